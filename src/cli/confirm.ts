// Yes/no questions at the prompt (the `prompts` confirm element); loaded only when a question is asked.

/** Asks a yes/no question; Ctrl-C or Escape counts as no. */
export async function askYesNo(question: string, initial = true): Promise<boolean> {
  const { default: prompts } = await import('prompts');
  const answer = (await prompts({ type: 'confirm', name: 'yes', message: question, initial })) as { yes?: boolean };
  return answer.yes === true;
}

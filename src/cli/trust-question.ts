// The folder-trust question at an interactive start: trust, not now, or never (the `prompts` select element).
import type { TrustChoice, TrustQuestion } from '../app/folder-trust.js';
import { describeTrustedKey } from '../store/config-trust.js';

/** Asks whether to trust the folder's .cadre/config.json; Ctrl-C or Escape counts as not now. */
export async function askFolderTrust(question: TrustQuestion, output: NodeJS.WriteStream = process.stdout): Promise<TrustChoice> {
  const { default: prompts } = await import('prompts');
  const what = question.changedSince
    ? `These settings in ${question.folder}/.cadre/config.json changed since you trusted the folder (${question.changedSince}):`
    : `${question.folder}/.cadre/config.json asks for settings cadre uses only in folders you trust:`;
  output.write(`${what}\n${question.keys.map((key) => `  ${describeTrustedKey(key)}\n`).join('')}`);
  const answer = (await prompts({
    type: 'select',
    name: 'choice',
    message: 'Trust this folder?',
    choices: [
      { title: 'Trust', description: 'use them; asked again when they change', value: 'trust' },
      { title: 'Not now', description: 'ignore them this time', value: 'not-now' },
      { title: 'Never', description: 'ignore them and do not ask again (/trust changes it)', value: 'never' },
    ],
    initial: 1,
  })) as { choice?: TrustChoice };
  return answer.choice ?? 'not-now';
}

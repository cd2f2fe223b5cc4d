// What a person sees in a terminal: raw program output drawn by a terminal emulator (@xterm/headless), scrollback included.
import xterm from '@xterm/headless';

/** The lines on screen and in scrollback, wrapped lines joined, trailing empty lines dropped. */
export async function seenLines(raw: string, size: { cols: number; rows: number } = { cols: 160, rows: 40 }): Promise<string[]> {
  const terminal = new xterm.Terminal({ ...size, scrollback: 10_000, allowProposedApi: true });
  await new Promise<void>((resolve) => terminal.write(raw, resolve));
  const buffer = terminal.buffer.active;
  const lines: string[] = [];
  for (let index = 0; index < buffer.length; index += 1) {
    const line = buffer.getLine(index);
    const text = line?.translateToString(true) ?? '';
    if (line?.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  terminal.dispose();
  while (lines.at(-1) === '') lines.pop();
  return lines;
}

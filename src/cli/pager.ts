// Shows long text through the person's pager ($PAGER, else less -R) when it does not fit the terminal.
import { spawn } from 'node:child_process';

export async function showPaged(text: string, out: NodeJS.WriteStream = process.stdout): Promise<void> {
  const rows = out.rows ?? 24;
  const lines = text.split('\n').length;
  if (!out.isTTY || lines < rows - 2) {
    out.write(text.endsWith('\n') ? text : `${text}\n`);
    return;
  }
  const pager = process.env.PAGER?.trim() || 'less -R';
  const shown = await new Promise<boolean>((resolve) => {
    const child = spawn(pager, { shell: true, stdio: ['pipe', 'inherit', 'inherit'] });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
    child.stdin.on('error', () => undefined);
    child.stdin.end(text);
  });
  if (!shown) out.write(text.endsWith('\n') ? text : `${text}\n`);
}

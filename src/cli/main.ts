// cadre's entry: the plain interactive start (no subcommand, no -c) skips the full parser, so the prompt comes up fast.
import type { GlobalOptions } from './sink.js';
import { guardOutputPipes } from './process-end.js';

/** `cadre`, `cadre --cwd DIR`, `cadre --resume NAME`, `cadre --no-color`: options for the prompt, or undefined for commander. */
function plainInteractive(args: string[]): GlobalOptions | undefined {
  const options: GlobalOptions = { cwd: process.cwd(), command: [], color: true };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    const next = args[i + 1];
    if ((arg === '--cwd' || arg === '--resume') && next !== undefined && !next.startsWith('-')) {
      if (arg === '--cwd') options.cwd = next;
      else options.resume = next;
      i += 1;
    } else if (arg.startsWith('--cwd=')) options.cwd = arg.slice('--cwd='.length);
    else if (arg === '--no-color') options.color = false;
    else return undefined;
  }
  return options;
}

/** Runs cadre with the given argv and resolves the process exit code. */
export async function main(argv: string[]): Promise<number> {
  guardOutputPipes();
  const plain = plainInteractive(argv.slice(2));
  if (plain) {
    const { runCadre } = await import('./run.js');
    return runCadre(plain);
  }
  const { runProgram } = await import('./program.js');
  return runProgram(argv);
}

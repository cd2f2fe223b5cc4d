// The full `cadre` command line (commander): the prompt, `-c` runs, and the host subcommands.
import { Command, CommanderError, Option } from 'commander';
import { exitCodes } from '../errors.js';
import { cadreVersion } from '../version.js';
import { createSink, reportFailure, type GlobalOptions } from './sink.js';
import { registerHostCommands } from './host-commands.js';


const exitCodeHelp = `
One task without the prompt (as claude -p, gemini -p, codex exec):
  cadre -p "<task>" or cadre "<task>" runs the task with universal-agent (the session's agent with --resume), prints
  the answer on stdout (--json: one JSON event per line) and exits with the codes below. -c commands given with it run
  first, in order. A plan that changes files is not applied without a prompt to approve it at: the run stops at it with
  plan.needs-approval (exit 1) and nothing is written, unless autonomous mode is on: cadre -c "/auto on" -p "<task>".
  Text that starts with a slash runs as that slash command.

Exit codes (for -p and -c runs):
  0    every command succeeded
  1    a command failed
  2    usage error (unknown command, bad argument, bad configuration)
  3    the command is not available in this version
  130  interrupted (Ctrl-C)

Examples:
  cadre                                   open the prompt on the current folder
  cadre --cwd examples/react-shop         open the prompt on another project
  cadre -p "explain src/index.ts"         run one task, print the answer, exit
  cadre -m claude-sonnet-4-5 "add tests"  the same task with another model for this run
  cadre -c "/status" -c "/sessions"       run commands without the prompt
  cadre --json -c "/help"                 the same, one JSON event per line
  cadre --resume header-work              continue a saved session`;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `-p TASK` or `cadre TASK`: the task runs after the -c entries, as one more entry (free text goes to the session's agent). */
function withTask(options: GlobalOptions, words: string[]): GlobalOptions {
  const tasks = [options.prompt, words.join(' ')].filter((task): task is string => task !== undefined && task.trim() !== '');
  return { ...options, command: [...options.command, ...tasks] };
}

export function buildProgram(setExitCode: (code: number) => void): Command {
  const program = new Command('cadre')
    .description('An interactive development assistant: universal-agent works on your project, vm-agent in an isolated container.')
    .version(cadreVersion, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show this help')
    .addOption(new Option('--cwd <dir>', 'the project folder').default(process.cwd(), 'the current folder'))
    .argument('[task...]', 'a task to run without the prompt, as -p does')
    .option('-p, --prompt <task>', 'run one task without the prompt (to universal-agent), print the answer and exit')
    .option('-m, --model <name>', 'the model for this run (as CADRE_MODEL: a name the provider serves, or provider/name)')
    .option('-c, --command <slash-command>', 'run a slash command without the prompt (repeatable; run in order, stops at the first failure)', collect, [])
    .option('--json', 'print one JSON object per line (the emitted events) instead of text')
    .option('--resume <name>', 'resume a saved session')
    .option('--trust', "trust this folder for this run: use its .cadre/config.json's MCP servers, base URL and other settings that need trust (CADRE_TRUST_FOLDER=1 too)")
    .option('--inspect', 'start the Stately inspector relay on 127.0.0.1 and print the URL to open')
    .option('--trace <file>', 'record every actor inspection event to FILE as JSON lines')
    .option('--no-color', 'print without colours (NO_COLOR works too)')
    .addHelpText('after', exitCodeHelp)
    .showSuggestionAfterError(true)
    .exitOverride()
    .action(async (words: string[], options: GlobalOptions) => {
      const { runCadre } = await import('./run.js');
      setExitCode(await runCadre(withTask(options, words)));
    });
  registerHostCommands(program, setExitCode);
  return program;
}

/** Runs cadre through commander with the given argv and resolves the process exit code. */
export async function runProgram(argv: string[]): Promise<number> {
  let exitCode: number = exitCodes.ok;
  const program = buildProgram((code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return exitCodes.ok;
      return exitCodes.usage;
    }
    const opts = program.opts<GlobalOptions>();
    return reportFailure(error, createSink({ json: opts.json, color: opts.color !== false }));
  }
}


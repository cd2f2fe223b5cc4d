// For the vm CLI tests: the commands vm-agent ran, read back from cadre's --json events, and the summary of a node:test run's output.
import type { JsonEvent } from './vm-cadre.js';

export interface CommandRun {
  command: string;
  /** Everything the command printed (stdout and stderr, in order), whole: the model gets a shortened copy, the person this. */
  output: string;
  /** How it ended, as cadre told the person: `exit code 0`, `stopped after 900 s (timeout)`… */
  ending: string;
}

const commandLabel = 'run-command ';

/** The run-command calls in `events`, in order; tools run one at a time, so the output between a call and its result is its own. */
export function commandRuns(events: readonly JsonEvent[]): CommandRun[] {
  const runs: CommandRun[] = [];
  let current: { id: string; run: CommandRun } | undefined;
  for (const event of events as readonly (JsonEvent & { id?: string; done?: boolean; chunk?: string })[]) {
    if (event.type === 'output.progress' && event.id?.startsWith('vm-agent:tool:')) {
      if (!event.done && event.label?.startsWith(commandLabel)) {
        current = { id: event.id, run: { command: event.label.slice(commandLabel.length), output: '', ending: '' } };
        runs.push(current.run);
      } else if (event.done && current?.id === event.id) {
        current.run.ending = event.label?.split(' → ').at(-1) ?? '';
        current = undefined;
      }
    } else if (event.type === 'output.stream' && current) {
      current.run.output += event.chunk ?? '';
    }
  }
  return runs;
}

export interface SuiteSummary {
  tests: number;
  pass: number;
  fail: number;
  cancelled: number;
  /** The names of the failing tests (not of the suites that hold them). */
  failing: string[];
}

/** The summary node:test's TAP reporter prints at the end of a run, and the tests it reported `not ok`. */
export function suiteSummary(output: string): SuiteSummary | undefined {
  const count = (name: string) => output.match(new RegExp(`^# ${name} (\\d+)$`, 'm'))?.[1];
  const [tests, pass, fail, cancelled] = ['tests', 'pass', 'fail', 'cancelled'].map(count);
  if (tests === undefined || pass === undefined || fail === undefined || cancelled === undefined) return undefined;
  const failing: string[] = [];
  const failure = /^(\s*)not ok \d+ - (.*)\n((?:\1 {2}.*\n)*)/gm;
  for (const [, , name, details] of output.matchAll(failure)) {
    if (!/^\s*type: 'suite'$/m.test(details ?? '')) failing.push(name ?? '');
  }
  return { tests: Number(tests), pass: Number(pass), fail: Number(fail), cancelled: Number(cancelled), failing };
}

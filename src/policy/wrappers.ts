// Programs that run another program (env, timeout, nice, xargs, …): finding the command they wrap.
import { parseOptions, splitOnce, type OptionSpec } from './options.js';

export type Unwrapped =
  | { kind: 'command'; argv: string[]; assignments: [string, string][] }
  /** The wrapper hands a string to a shell or splits it itself (watch, flock -c, env -S). */
  | { kind: 'string'; text: string }
  | { kind: 'none' }
  | { kind: 'unknown-option'; option: string };

interface WrapperSpec {
  options: OptionSpec;
  /** Operands before the wrapped command (timeout's duration, chroot's root). */
  operands?: number;
  /** Options after which there is no wrapped command (ionice -p). */
  noCommand?: string[];
  /** Options whose value is a shell string (flock -c). */
  stringOptions?: string[];
  /** The whole rest is one shell string (watch). */
  restIsString?: boolean;
  /** Leading NAME=VALUE operands are environment assignments (env). */
  assignments?: boolean;
  /** Safe around an allowed program: it only changes how long, how nicely or with which environment it runs. */
  transparent: boolean;
}

const f = 'flag' as const;
const v = 'value' as const;

const wrappers: Record<string, WrapperSpec> = {
  env: {
    options: {
      short: { i: f, '0': f, u: v, C: v, S: v, v: f, P: v },
      long: { '--ignore-environment': f, '--null': f, '--unset': v, '--chdir': v, '--split-string': v, '--debug': f, '--default-signal': f, '--ignore-signal': f, '--block-signal': f, '--list-signal-handling': f },
    },
    stringOptions: ['-S', '--split-string'],
    assignments: true,
    transparent: true,
  },
  timeout: { options: { short: { s: v, k: v, v: f }, long: { '--signal': v, '--kill-after': v, '--preserve-status': f, '--foreground': f, '--verbose': f } }, operands: 1, transparent: true },
  nice: { options: { short: { n: v }, long: { '--adjustment': v }, numeric: true }, transparent: true },
  nohup: { options: {}, transparent: true },
  time: { options: { short: { p: f, v: f, a: f, q: f, f: v, o: v }, long: { '--portability': f, '--verbose': f, '--append': f, '--quiet': f, '--format': v, '--output': v } }, transparent: true },
  stdbuf: { options: { short: { i: v, o: v, e: v }, long: { '--input': v, '--output': v, '--error': v } }, transparent: true },
  ionice: { options: { short: { c: v, n: v, p: v, P: v, u: v, t: f }, long: { '--class': v, '--classdata': v, '--pid': v, '--pgid': v, '--uid': v, '--ignore': f } }, noCommand: ['-p', '-P', '-u', '--pid', '--pgid', '--uid'], transparent: true },
  command: { options: { short: { p: f, v: f, V: f } }, transparent: true },
  exec: { options: { short: { c: f, l: f, a: v } }, transparent: true },
  setsid: { options: { short: { c: f, f: f, w: f }, long: { '--ctty': f, '--fork': f, '--wait': f } }, transparent: true },
  taskset: { options: { short: { a: f, c: f, p: f }, long: { '--all-tasks': f, '--cpu-list': f, '--pid': f } }, operands: 1, noCommand: ['-p', '--pid'], transparent: true },
  chrt: { options: { short: { b: f, d: f, f: f, i: f, o: f, r: f, R: f, a: f, m: f, p: f, v: f, T: v, P: v, D: v } }, operands: 1, noCommand: ['-p', '-m'], transparent: true },
  builtin: { options: {}, transparent: false },
  coproc: { options: {}, transparent: false },
  xargs: {
    options: {
      short: { '0': f, a: v, d: v, E: v, e: f, I: v, i: f, L: v, l: f, n: v, P: v, p: f, r: f, s: v, t: f, x: f, o: f },
      long: { '--null': f, '--arg-file': v, '--delimiter': v, '--eof': f, '--replace': f, '--max-lines': f, '--max-args': v, '--max-procs': v, '--interactive': f, '--no-run-if-empty': f, '--max-chars': v, '--verbose': f, '--exit': f, '--open-tty': f, '--process-slot-var': v, '--show-limits': f },
    },
    transparent: false,
  },
  chroot: { options: { long: { '--userspec': v, '--groups': v, '--skip-chdir': f } }, operands: 1, transparent: false },
  flock: { options: { short: { s: f, x: f, u: f, n: f, w: v, E: v, o: f, F: f, c: v }, long: { '--shared': f, '--exclusive': f, '--unlock': f, '--nonblock': f, '--timeout': v, '--conflict-exit-code': v, '--close': f, '--no-fork': f, '--verbose': f, '--command': v } }, operands: 1, stringOptions: ['-c', '--command'], transparent: false },
  unbuffer: { options: { short: { p: f } }, transparent: false },
  watch: { options: { short: { n: v, d: f, t: f, b: f, e: f, g: f, c: f, x: f, p: f, w: f, q: v }, long: { '--interval': v, '--differences': f, '--no-title': f, '--beep': f, '--errexit': f, '--chgexit': f, '--color': f, '--exec': f, '--precise': f, '--no-wrap': f } }, restIsString: true, transparent: false },
};

export function isWrapper(name: string): boolean {
  return Object.hasOwn(wrappers, name);
}

export function isTransparentWrapper(name: string): boolean {
  return wrappers[name]?.transparent === true;
}

/** Finds the command a wrapper runs: `timeout -s KILL 60 npm test` → `npm test`. */
export function unwrap(name: string, args: readonly string[]): Unwrapped {
  const spec = wrappers[name];
  if (!spec) return { kind: 'none' };
  const parsed = parseOptions(args, spec.options);
  if (parsed.unknown !== undefined) return { kind: 'unknown-option', option: parsed.unknown };
  const stringOption = parsed.seen.find((option) => spec.stringOptions?.includes(option.name));
  if (stringOption) return { kind: 'string', text: [stringOption.value ?? '', ...args.slice(parsed.next)].join(' ') };
  if (parsed.seen.some((option) => spec.noCommand?.includes(option.name))) return { kind: 'none' };
  let index = parsed.next;
  const assignments: [string, string][] = [];
  while (spec.assignments && index < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[index] ?? '')) {
    const [key, value = ''] = splitOnce(args[index] ?? '', '=');
    assignments.push([key, value]);
    index += 1;
  }
  index += spec.operands ?? 0;
  const rest = args.slice(index);
  // flock takes -c after its lock file too: `flock /tmp/lock -c '…'`.
  if (rest[0] !== undefined && spec.stringOptions?.includes(rest[0])) return { kind: 'string', text: rest.slice(1).join(' ') };
  if (spec.restIsString) return rest.length === 0 ? { kind: 'none' } : { kind: 'string', text: rest.join(' ') };
  if (rest.length === 0) return name === 'xargs' ? { kind: 'command', argv: ['echo'], assignments } : { kind: 'none' };
  return { kind: 'command', argv: rest, assignments };
}

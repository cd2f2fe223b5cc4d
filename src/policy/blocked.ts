// The blocked commands (rm -rf, sudo, su, chmod 777, shells and eval) in every spelling, through wrappers.
import { deny, type Decision } from './decision.js';
import { isLongSpelling, parseOptions } from './options.js';
import { decoders, evalLike, interpreters, programName, shells, sudoLike, suLike } from './programs.js';
import { innerCommands } from './inner.js';
import { isWrapper, unwrap } from './wrappers.js';

/** Where the command's standard input comes from: the programs of earlier pipeline stages. */
export interface InputContext {
  piped: boolean;
  upstream: string[][];
}

const maximumDepth = 8;

/** Returns the blocking decision for an argv, looking through wrappers; undefined when nothing blocked runs. */
export function findBlocked(argv: readonly string[], input: InputContext, depth = 0): Decision | undefined {
  const first = argv[0];
  if (first === undefined) return undefined;
  if (depth > maximumDepth) return deny('policy.parse.unsupported', 'Too many nested wrappers to classify.');
  const name = programName(first);
  const args = argv.slice(1);
  if (sudoLike.has(name)) return deny('policy.blocked.sudo', `${name} runs commands as another user; privilege escalation is blocked.`, { program: name });
  if (suLike.has(name)) return deny('policy.blocked.su', `${name} switches user; it is blocked.`, { program: name });
  if (name === 'rm' && isRecursiveForce(args)) {
    return deny('policy.blocked.rm-recursive-force', 'rm with both recursive and force flags deletes whole trees without asking; it is blocked in every spelling.', { program: 'rm' });
  }
  if (name === 'chmod' && grantsEveryoneEverything(args)) {
    return deny('policy.blocked.chmod-777', 'chmod giving read, write and execute to everyone (777, a+rwx, …) is blocked.', { program: 'chmod' });
  }
  if (evalLike.has(name)) return deny('policy.blocked.shell-eval', `${name} runs text as shell code the policy cannot see.`, { program: name });
  if (shells.has(name)) return shellDecision(name, args, input);
  if (Object.hasOwn(interpreters, name)) return interpreterDecision(name, args, input);
  if (isWrapper(name)) return wrappedDecision(name, args, input, depth);
  for (const inner of innerCommands(name, args)) {
    if (inner.kind === 'string') return deny('policy.blocked.shell-eval', `${name} hands a string to a shell: ${inner.text}`, { program: name });
    const found = findBlocked(inner.argv, { piped: false, upstream: [] }, depth + 1);
    if (found) return found;
  }
  return undefined;
}

function wrappedDecision(name: string, args: readonly string[], input: InputContext, depth: number): Decision | undefined {
  const inner = unwrap(name, args);
  if (inner.kind === 'string') {
    const words = inner.text.split(/\s+/).filter((word) => word !== '');
    const found = findBlocked(words, input, depth + 1);
    return found ?? deny('policy.blocked.shell-eval', `${name} runs a string the policy cannot parse reliably: ${inner.text}`, { program: name });
  }
  if (inner.kind === 'command') return findBlocked(inner.argv, input, depth + 1);
  return undefined;
}

function shellDecision(name: string, args: readonly string[], input: InputContext): Decision {
  const runsString = args.some((arg) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(arg));
  if (runsString) return deny('policy.blocked.shell-eval', `${name} -c runs a string as shell code the policy cannot see.`, { program: name });
  return stdinDecision(name, args, input) ?? deny('policy.blocked.shell', `${name} runs a shell script the policy cannot see; run allowed programs directly.`, { program: name });
}

function interpreterDecision(name: string, args: readonly string[], input: InputContext): Decision {
  const evalOptions = interpreters[name] ?? [];
  const inline = args.some((arg) => evalOptions.some((option) => arg === option || (option.length === 2 && arg.startsWith(option))));
  if (inline || evalOptions.length === 0) {
    return deny('policy.blocked.interpreter-eval', `${name} runs code given on the command line; it is not an allowed program.`, { program: name });
  }
  return stdinDecision(name, args, input) ?? deny('policy.program.not-allowed', `${name} is not an allowed program.`, { program: name });
}

/** A shell or interpreter fed by a pipe runs whatever the pipe produces. */
function stdinDecision(name: string, args: readonly string[], input: InputContext): Decision | undefined {
  const readsStdin = firstOperand(args) >= args.length || args.includes('-s') || args[firstOperand(args)] === '-';
  if (!input.piped || !readsStdin) return undefined;
  const decoder = input.upstream.find(isDecoder);
  if (decoder) {
    return deny('policy.blocked.encoded-payload', `${decoder[0] ?? 'a decoder'} output is piped into ${name}: an encoded payload run as code.`, { program: name });
  }
  return deny('policy.blocked.pipe-to-shell', `Output is piped into ${name}, which runs it as code.`, { program: name });
}

/** base64 -d, xxd -r, printf '\x…', echo -e '\x…' and friends. */
function isDecoder(stage: readonly string[]): boolean {
  const name = programName(stage[0] ?? '');
  return decoders.has(name) || (name === 'echo' && stage.some((arg) => /^-[a-zA-Z]*e/.test(arg)));
}

function firstOperand(args: readonly string[]): number {
  const index = args.findIndex((arg) => !/^[-+]/.test(arg) || arg === '-' || arg === '--');
  return index === -1 ? args.length : index;
}

/** GNU rm: short clusters (-rf, -fR), long options and their prefixes, --interactive=never, anywhere before `--`. */
function isRecursiveForce(args: readonly string[]): boolean {
  let recursive = false;
  let force = false;
  for (const arg of args) {
    if (arg === '--') break;
    if (arg.startsWith('--')) {
      recursive ||= isLongSpelling(arg, '--recursive');
      // --interactive=never asks no more than -f does.
      force ||= isLongSpelling(arg, '--force') || (isLongSpelling(arg, '--interactive') && arg.endsWith('=never'));
    } else if (arg.startsWith('-')) {
      recursive ||= /[rR]/.test(arg);
      force ||= arg.includes('f');
    }
  }
  return recursive && force;
}

const chmodSpec = {
  short: { R: 'flag', v: 'flag', c: 'flag', f: 'flag', H: 'flag', L: 'flag', P: 'flag' },
  long: { '--recursive': 'flag', '--verbose': 'flag', '--changes': 'flag', '--silent': 'flag', '--quiet': 'flag', '--reference': 'value', '--preserve-root': 'flag', '--no-preserve-root': 'flag' },
} as const;

/** chmod 777 / 0777 / 1777 / a+rwx / ugo=rwx / +rwx / u+rwx,g+rwx,o+rwx, with options in any place. */
function grantsEveryoneEverything(args: readonly string[]): boolean {
  const operands: string[] = [];
  let rest = [...args];
  while (rest.length > 0) {
    const parsed = parseOptions(rest, chmodSpec);
    // A mode such as -rwx looks like an unknown option; chmod takes it as the mode, and so does this loop.
    const at = parsed.next;
    if (at >= rest.length) break;
    operands.push(rest[at] ?? '');
    rest = rest.slice(at + 1);
  }
  return operands.some((operand) => /^0*[0-7]?777$/.test(operand) || symbolicGrantsAll(operand));
}

function symbolicGrantsAll(mode: string): boolean {
  const granted = { u: new Set<string>(), g: new Set<string>(), o: new Set<string>() };
  for (const clause of mode.split(',')) {
    const match = /^([ugoa]*)((?:[-+=][rwxXst]*)+)$/.exec(clause);
    if (!match) return false;
    const who = match[1] === '' || match[1]?.includes('a') ? 'ugo' : (match[1] ?? '');
    for (const action of (match[2] ?? '').match(/[-+=][rwxXst]*/g) ?? []) {
      if (action[0] === '-') continue;
      for (const target of who) {
        const set = granted[target as 'u' | 'g' | 'o'];
        for (const permission of action.slice(1).replace('X', 'x')) set.add(permission);
      }
    }
  }
  return Object.values(granted).every((set) => set.has('r') && set.has('w') && set.has('x'));
}

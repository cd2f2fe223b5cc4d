// Classifies one simple command: assignments, redirections, look-alike words, blocked programs, the allowlist.
import { allow, deny, type Decision } from './decision.js';
import { findBlocked } from './blocked.js';
import { checkDocker } from './docker.js';
import { checkAssignment } from './env.js';
import { checkGit } from './git.js';
import { checkPackageManager } from './package-managers.js';
import { isAllowedProgram, isTrustedLocation, programName } from './programs.js';
import { checkRedirect } from './redirects.js';
import type { SimpleCommand } from './script.js';
import { isAscii, skeleton } from './unicode.js';
import { wordDenial } from './word-denial.js';
import { hasBraceExpansion, hasGlob, hasUnquotedNonAscii, type Segment } from './words.js';
import { isTransparentWrapper, unwrap } from './wrappers.js';

type StaticWord = { value: string; segments: Segment[] };

/** The decision for one simple command, given the workspace that redirections must stay in. */
export function classifyCommand(command: SimpleCommand, workspace: string): Decision {
  for (const assignment of command.assignments) {
    if (!assignment.value.ok) return wordDenial(assignment.value);
    const denied = checkAssignment(assignment.name);
    if (denied) return denied;
  }
  for (const redirect of command.redirects) {
    const denied = checkRedirect(redirect, workspace);
    if (denied) return denied;
  }
  const words: StaticWord[] = [];
  for (const word of command.words) {
    if (!word.ok) return wordDenial(word);
    words.push(word);
  }
  if (words.length === 0) return allow('policy.allowed', 'Only sets shell variables.');
  const shapeDenial = checkShapes(words);
  if (shapeDenial) return shapeDenial;
  const argv = words.map((word) => word.value);
  const upstream = command.upstream.map((stage) => stage.words.map((word) => (word.ok ? word.value : '')));
  return findBlocked(argv, { piped: command.piped, upstream }) ?? checkAllowed(argv, workspace);
}

/** Look-alike Unicode, brace expansion and globs that could turn into options. */
function checkShapes(words: StaticWord[]): Decision | undefined {
  for (const [index, word] of words.entries()) {
    if (isAscii(word.value)) continue;
    const looksLike = skeleton(word.value);
    const optionLike = looksLike.startsWith('-');
    if (index === 0 || optionLike || hasUnquotedNonAscii(word.segments)) {
      const likeness = looksLike !== word.value && isAscii(looksLike) ? ` (it looks like '${looksLike}')` : '';
      return deny('policy.unicode.lookalike', `'${word.value}' uses non-ASCII letters where the shell reads a program or an option${likeness}.`, { program: index === 0 ? looksLike : undefined });
    }
  }
  for (const [index, word] of words.entries()) {
    if (hasBraceExpansion(word.segments)) {
      return deny('policy.parse.expansion', `${word.value} is brace-expanded by the shell into several words; write them out.`);
    }
    const globbed = hasGlob(word.segments);
    if (globbed && (index === 0 || /^[-*?[]/.test(word.value))) {
      return deny('policy.parse.glob', `${word.value} is a file pattern in a place where its matches could become a program or options; name files literally.`);
    }
  }
  return undefined;
}

function checkAllowed(original: string[], workspace: string): Decision {
  let argv = original;
  for (let depth = 0; isTransparentWrapper(programName(argv[0] ?? '')); depth += 1) {
    const wrapper = programName(argv[0] ?? '');
    const inner = unwrap(wrapper, argv.slice(1));
    if (inner.kind === 'unknown-option') return deny('policy.parse.unsupported', `${wrapper} ${inner.option}: an option the policy does not know.`, { program: wrapper });
    if (inner.kind !== 'command' || depth > 8) return deny('policy.program.not-allowed', `${wrapper} here does not run an allowed program.`, { program: wrapper });
    for (const [name] of inner.assignments) {
      const denied = checkAssignment(name);
      if (denied) return denied;
    }
    argv = inner.argv;
  }
  const first = argv[0] ?? '';
  const name = programName(first);
  if (!isAllowedProgram(name)) {
    return deny('policy.program.not-allowed', `${name} is not an allowed program (allowed: git, npm, yarn, pnpm, docker, the editor server).`, { program: name });
  }
  if (!isTrustedLocation(first)) {
    return deny('policy.program.path', `${first} is not the system's ${name}; call it by name.`, { program: name });
  }
  const args = argv.slice(1);
  const denied = name === 'git' ? checkGit(args, workspace)
    : name === 'npm' || name === 'yarn' || name === 'pnpm' ? checkPackageManager(name, args)
      : name === 'docker' ? checkDocker(args) : undefined;
  return denied ?? allow('policy.allowed', `${name} is an allowed program and nothing blocked was found.`, { program: name });
}

// Environment assignments (`NAME=value cmd`, `env NAME=value cmd`) that would change what a program executes.
import { deny, type Decision } from './decision.js';

/** Variables that choose which binary, library, shell or startup file runs. */
const execVariables = new Set([
  'PATH', 'BASH_ENV', 'ENV', 'SHELL', 'SHELLOPTS', 'BASHOPTS', 'PS4', 'PROMPT_COMMAND', 'IFS', 'CDPATH', 'GLOBIGNORE',
  'NODE_OPTIONS', 'NODE_PATH', 'PAGER', 'EDITOR', 'VISUAL', 'BROWSER', 'SSH_ASKPASS', 'SUDO_ASKPASS', 'HOME',
  'XDG_CONFIG_HOME', 'PERL5OPT', 'PERL5LIB', 'PYTHONSTARTUP', 'PYTHONPATH', 'RUBYOPT', 'TMPDIR', 'MANPAGER',
  'DOCKER_HOST', 'DOCKER_CONFIG', 'PREFIX', 'LESSOPEN', 'LESSCLOSE',
]);

/** GIT_* variables that are only informational: identity, dates, terminal prompts, tracing. */
const harmlessGitVariables = new Set([
  'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_AUTHOR_DATE', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE', 'GIT_TERMINAL_PROMPT', 'GIT_TRACE', 'GIT_FLUSH', 'GIT_MERGE_AUTOEDIT', 'GIT_PROGRESS_DELAY',
]);

/** Checks one `NAME=value` assignment; undefined when it is harmless. */
export function checkAssignment(name: string): Decision | undefined {
  const upper = name.toUpperCase();
  if (/^(NPM|YARN)_CONFIG_(SCRIPT_SHELL|SHELL)$/.test(upper) || upper === 'YARN_SCRIPT_SHELL') {
    return deny('policy.npm.script-shell', `${name} changes the shell npm and yarn run scripts with.`);
  }
  if (upper.startsWith('NPM_CONFIG_') || upper.startsWith('YARN_')) {
    return deny('policy.npm.config-env', `${name} overrides package-manager configuration from the environment; pass a supported option instead.`);
  }
  if (name.startsWith('GIT_') && !harmlessGitVariables.has(name)) {
    return deny('policy.git.env', `${name} changes how git runs (ssh command, external diff, pager, config, exec path); it is not accepted as a prefix.`);
  }
  if (execVariables.has(name) || /^(LD|DYLD)_/.test(name)) {
    return deny('policy.env.exec-override', `${name} changes which program, library or startup file runs.`);
  }
  return undefined;
}

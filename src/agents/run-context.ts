// What running a task needs of whatever started it (a slash command at the prompt or in a -c run).
export interface RunContext {
  /** Aborted when the person presses Ctrl-C while the command runs. */
  signal: AbortSignal;
  /** True at the interactive prompt (a person can be asked); false for `cadre -c`. */
  interactive: boolean;
}

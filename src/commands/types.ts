// The shape of a slash command: one file each, a zod schema for its arguments, a handler that gets parsed values.
import type { z } from 'zod';
import type { ExitCode } from '../errors.js';
import type { OutputSink } from '../output.js';
import type { Runtime } from '../app/runtime.js';

export type ArgsSchema = z.ZodObject<z.ZodRawShape>;

/** What a handler needs: where it runs, how to speak, how to stop, and the running system. */
export interface CommandContext {
  cwd: string;
  emit: OutputSink;
  /** Aborted when the person presses Ctrl-C while the command runs. */
  signal: AbortSignal;
  /** True at the interactive prompt; false for `cadre -c`. */
  interactive: boolean;
  /** Asks a yes/no question at the prompt (Enter answers `initial`, yes by default); resolves false when there is no one to ask. */
  confirm(question: string, options?: { initial?: boolean }): Promise<boolean>;
  /** Every slash command (for /help and the parser). */
  registry: readonly CommandDefinition[];
  runtime: Runtime;
}

export interface CommandOutcome {
  /** Leave the prompt loop after this command. */
  exit?: boolean;
  exitCode?: ExitCode;
}

export interface CommandDefinition<Schema extends ArgsSchema = ArgsSchema> {
  /** The name without its slash. */
  name: string;
  aliases?: readonly string[];
  /** One line for /help. */
  summary: string;
  usage: string;
  examples?: readonly string[];
  /** Schema keys filled by position, in order. */
  positionals?: readonly string[];
  /** The last positional takes every remaining word, joined by spaces. */
  variadic?: boolean;
  /** The rest of the line, untouched, is the first positional (for /exec). */
  rawRest?: boolean;
  args: Schema;
  /**
   * Absent while the capability has not landed: the command then answers
   * "not available in this version", and `pending` says what it waits for.
   */
  run?: (args: z.infer<Schema>, ctx: CommandContext) => Promise<CommandOutcome | void>;
  pending?: string;
}

/** Keeps the schema's type for the handler while the registry holds plain definitions. */
export function defineCommand<Schema extends ArgsSchema>(definition: CommandDefinition<Schema>): CommandDefinition {
  return definition as unknown as CommandDefinition;
}

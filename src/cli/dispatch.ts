// Runs one line of input: a slash command through its schema and handler, or a follow-up for the current agent.
import { CadreError, describeUnexpected, exitCodes, expectedFailure, type ExitCode } from '../errors.js';
import { findCommand } from '../commands/index.js';
import type { CommandContext, CommandDefinition } from '../commands/types.js';
import { tokenize, parseSlashLine, flagToKey } from './grammar.js';
import { bindArguments, isBooleanArgument } from './arguments.js';
import { closestName } from './suggest.js';

export interface DispatchOutcome {
  exitCode: ExitCode;
  exit: boolean;
}

function notAvailable(command: CommandDefinition): CadreError {
  return new CadreError('command.not-available', `/${command.name} is not available in this version (it needs ${command.pending ?? 'a capability that has not landed'}).`, {
    remedy: 'Type /help to see which commands work in this version.',
    exitCode: exitCodes.notAvailable,
  });
}

/** Turns text into the command to run and its validated arguments, or a usage error. */
export function resolveLine(
  text: string,
  registry: readonly CommandDefinition[],
  currentAgent: string,
): { command: CommandDefinition; args: Record<string, unknown> } {
  const trimmed = text.trim();
  if (!trimmed.startsWith('/')) {
    // Text without a slash is a follow-up for the session's current agent: /agent <current> "<text>".
    const agent = findCommand(registry, 'agent');
    if (!agent) throw new CadreError('command.unknown', 'No agent command is registered.', { exitCode: exitCodes.usage });
    return { command: agent, args: agent.args.parse({ agentName: currentAgent, task: trimmed, ...(currentAgent === 'universal-agent' ? { followUp: true } : {}) }) as Record<string, unknown> };
  }
  const tokens = tokenize(trimmed);
  if (tokens.kind === 'incomplete') {
    throw new CadreError('command.unterminated-quote', `A ${tokens.quote === '"' ? 'double' : 'single'} quote is not closed.`, {
      remedy: `Close the quote, or escape it with a backslash (\\${tokens.quote}).`,
      exitCode: exitCodes.usage,
    });
  }
  const rawName = (tokens.words[0]?.text ?? '/').slice(1).toLowerCase();
  const command = findCommand(registry, rawName);
  if (!command) {
    const guess = closestName(rawName, registry.flatMap((c) => [c.name, ...(c.aliases ?? [])]));
    throw new CadreError('command.unknown', rawName ? `Unknown command /${rawName}.` : 'A slash must be followed by a command name.', {
      remedy: guess ? `Did you mean /${guess}? Type /help for the list.` : 'Type /help for the list of commands.',
      exitCode: exitCodes.usage,
    });
  }
  const parsed = parseSlashLine(tokens.words, trimmed, (flag) => isBooleanArgument(command, flagToKey(flag)));
  const args = bindArguments(command, parsed) as Record<string, unknown>;
  return { command, args };
}

/**
 * Runs one line and reports the outcome. Expected failures become an `output.error` event with
 * their remedy and exit code; anything else is reported as a bug, never as a stack trace on screen.
 */
export async function dispatchLine(text: string, ctx: CommandContext): Promise<DispatchOutcome> {
  if (!text.trim()) return { exitCode: exitCodes.ok, exit: false };
  ctx.runtime.audit('command.typed', { text });
  try {
    const { command, args } = resolveLine(text, ctx.registry, ctx.runtime.session.view().agent);
    if (!command.run) throw notAvailable(command);
    const outcome = (await command.run(args, ctx)) ?? {};
    if (ctx.signal.aborted) return { exitCode: exitCodes.interrupted, exit: false };
    return { exitCode: outcome.exitCode ?? exitCodes.ok, exit: outcome.exit ?? false };
  } catch (error) {
    if (ctx.signal.aborted) {
      ctx.emit({ type: 'output.message', level: 'warn', text: 'Interrupted.' });
      return { exitCode: exitCodes.interrupted, exit: false };
    }
    const expected = expectedFailure(error);
    if (expected) {
      ctx.emit({ type: 'output.error', code: expected.code, message: expected.message, remedy: expected.remedy });
      return { exitCode: expected.exitCode, exit: false };
    }
    ctx.runtime.audit('internal.error', { error: describeUnexpected(error) });
    ctx.emit({
      type: 'output.error',
      code: 'internal',
      message: `cadre hit an unexpected error: ${describeUnexpected(error)}`,
      remedy: 'The session was saved. This is a bug in cadre: please report it with the command you typed (run with CADRE_DEBUG=1 for the stack trace).',
    });
    if (process.env.CADRE_DEBUG) console.error(error);
    return { exitCode: exitCodes.commandFailed, exit: false };
  }
}

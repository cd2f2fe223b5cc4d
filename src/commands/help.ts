// /help: lists the commands, or explains one.
import { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import { result } from '../output.js';
import { closestName } from '../cli/suggest.js';
import { describeArguments } from '../cli/arguments.js';
import { defineCommand, type CommandDefinition } from './types.js';

const notAvailableMark = '(not available in this version)';

function commandListText(registry: readonly CommandDefinition[]): string {
  const width = Math.max(...registry.map((c) => c.name.length)) + 2;
  const lines = registry.map((c) => `  /${c.name.padEnd(width)}${c.summary}${c.run ? '' : `  ${notAvailableMark}`}`);
  return ['Commands:', ...lines, '', 'Text without a leading slash goes to the current agent as a follow-up.', 'Type /help <command> for its arguments.'].join('\n');
}

function commandDetailText(command: CommandDefinition): string {
  const lines = [`/${command.name} — ${command.summary}${command.run ? '' : ` ${notAvailableMark}`}`, '', `Usage: ${command.usage}`];
  const args = describeArguments(command);
  if (args.length > 0) lines.push('', 'Arguments:', ...args.map((a) => `  ${a.label.padEnd(22)}${a.description}`));
  if (command.aliases?.length) lines.push('', `Aliases: ${command.aliases.map((a) => `/${a}`).join(', ')}`);
  if (command.examples?.length) lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`));
  if (!command.run) lines.push('', `This command is known but ${command.pending ?? 'its capability'} has not landed in this version.`);
  return lines.join('\n');
}

export const helpCommand = defineCommand({
  name: 'help',
  aliases: ['?'],
  summary: 'List the commands, or show how to use one',
  usage: '/help [command]',
  positionals: ['command'],
  args: z.object({ command: z.string().optional().describe('a command name, with or without its slash') }),
  run: async ({ command }, ctx) => {
    const registry = ctx.registry;
    if (!command) {
      const data = registry.map((c) => ({ name: c.name, summary: c.summary, usage: c.usage, available: Boolean(c.run) }));
      ctx.emit(result('help', { commands: data }, commandListText(registry)));
      return;
    }
    const name = command.replace(/^\//, '').toLowerCase();
    const found = registry.find((c) => c.name === name || c.aliases?.includes(name));
    if (!found) {
      const guess = closestName(name, registry.flatMap((c) => [c.name, ...(c.aliases ?? [])]));
      throw new CadreError('command.unknown', `There is no command /${name}.`, {
        remedy: guess ? `Did you mean /${guess}? Type /help for the list.` : 'Type /help for the list.',
        exitCode: exitCodes.usage,
      });
    }
    ctx.emit(result('help.command', { name: found.name, usage: found.usage, available: Boolean(found.run), arguments: describeArguments(found) }, commandDetailText(found)));
  },
});

// From a parsed line to a command's validated arguments, through its zod schema; and argument help.
import type { z } from 'zod';
import { CadreError, exitCodes } from '../errors.js';
import type { CommandDefinition } from '../commands/types.js';
import { flagToKey, keyToFlag, type ParsedLine } from './grammar.js';
import { closestName } from './suggest.js';

interface ZodLike {
  description?: string;
  _zod: { def: { type: string; innerType?: ZodLike; options?: unknown[]; entries?: Record<string, unknown> } };
}

/** The schema under optional/default/nullable wrappers. */
function baseSchema(schema: ZodLike): ZodLike {
  let current = schema;
  while (current._zod.def.innerType) current = current._zod.def.innerType;
  return current;
}

const shapeOf = (command: CommandDefinition): Record<string, ZodLike> => command.args.shape as unknown as Record<string, ZodLike>;

export function isBooleanArgument(command: CommandDefinition, key: string): boolean {
  const schema = shapeOf(command)[key];
  return schema !== undefined && baseSchema(schema)._zod.def.type === 'boolean';
}

function expectedOf(schema: ZodLike): string {
  const base = baseSchema(schema);
  const type = base._zod.def.type;
  if (type === 'enum' && base._zod.def.entries) return `one of ${Object.values(base._zod.def.entries).join(', ')}`;
  if (type === 'boolean') return 'a flag without a value';
  return `a ${type}`;
}

export interface ArgumentHelp {
  label: string;
  description: string;
}

export function describeArguments(command: CommandDefinition): ArgumentHelp[] {
  const positionals = command.positionals ?? [];
  return Object.entries(shapeOf(command)).map(([key, schema]) => {
    const label = positionals.includes(key) ? `<${key}>` : `--${keyToFlag(key)}${isBooleanArgument(command, key) ? '' : ' <value>'}`;
    const optional = schema._zod.def.type === 'optional' || schema._zod.def.type === 'default';
    return { label, description: `${schema.description ?? ''}${optional ? ' (optional)' : ''}` };
  });
}

function usageError(command: CommandDefinition, message: string): CadreError {
  return new CadreError('command.bad-argument', message, { remedy: `Usage: ${command.usage}`, exitCode: exitCodes.usage });
}

/** Maps positionals and flags onto the schema's keys and validates them. */
export function bindArguments(command: CommandDefinition, parsed: ParsedLine): z.infer<CommandDefinition['args']> {
  const shape = shapeOf(command);
  const positionals = command.positionals ?? [];
  const raw: Record<string, unknown> = {};

  if (command.rawRest) {
    const first = positionals[0];
    if (first && parsed.rest.trim()) raw[first] = parsed.rest.trim();
  } else {
    const values = [...parsed.positionals];
    positionals.forEach((key, index) => {
      const last = index === positionals.length - 1;
      if (last && command.variadic && values.length > 0) raw[key] = values.splice(0).join(' ');
      else if (values.length > 0) raw[key] = values.shift();
    });
    if (values.length > 0) {
      throw usageError(command, `/${command.name} takes ${positionals.length === 0 ? 'no' : `at most ${positionals.length}`} positional argument${positionals.length === 1 ? '' : 's'}; "${values[0]}" is one too many.`);
    }
    for (const [flag, value] of parsed.flags) {
      const key = flagToKey(flag);
      if (!(key in shape) || positionals.includes(key)) {
        const flags = Object.keys(shape).filter((k) => !positionals.includes(k)).map(keyToFlag);
        const guess = closestName(flag, flags);
        throw usageError(command, `/${command.name} has no flag --${flag}.${guess ? ` Did you mean --${guess}?` : ''}`);
      }
      if (isBooleanArgument(command, key)) {
        if (value !== true && value !== 'true' && value !== 'false') throw usageError(command, `--${flag} is a flag without a value; got "${value}".`);
        raw[key] = value === true || value === 'true';
      } else {
        if (value === true) throw usageError(command, `--${flag} needs a value: ${shape[key]?.description ?? expectedOf(shape[key] as ZodLike)}.`);
        raw[key] = value;
      }
    }
  }

  const parsedArgs = command.args.safeParse(raw);
  if (parsedArgs.success) return parsedArgs.data;
  const issue = parsedArgs.error.issues[0];
  const key = String(issue?.path[0] ?? '');
  const schema = shape[key];
  const label = positionals.includes(key) ? `<${key}>` : `--${keyToFlag(key)}`;
  const missing = raw[key] === undefined;
  if (missing) throw usageError(command, `Missing ${label}: ${schema?.description ?? 'a value'}.`);
  const expected = schema && baseSchema(schema)._zod.def.type === 'enum' ? `expected ${expectedOf(schema)}` : (issue?.message ?? 'invalid value');
  throw usageError(command, `Bad ${label} "${String(raw[key])}": ${expected}${schema?.description ? ` (${schema.description})` : ''}.`);
}

// A small getopt: skips a program's options so the policy can find the operands (or the wrapped command).

/** 'flag' takes no value; 'value' takes one (`-n 5`, `-n5`, `--adjustment 5`, `--adjustment=5`). */
export type OptionKind = 'flag' | 'value';

export interface OptionSpec {
  short?: Record<string, OptionKind>;
  long?: Record<string, OptionKind>;
  /** Accepts `-10` style numeric options (nice). */
  numeric?: boolean;
}

export interface ParsedOptions {
  /** Index of the first operand in the argument list. */
  next: number;
  /** Options seen, by their canonical spelling (`-n`, `--adjustment`), with their values. */
  seen: { name: string; value?: string }[];
  /** The first option the spec does not know, if any. */
  unknown?: string;
}

/** Reads options up to the first operand or `--`; GNU-style unambiguous long-option prefixes are honoured. */
export function parseOptions(args: readonly string[], spec: OptionSpec): ParsedOptions {
  const seen: ParsedOptions['seen'] = [];
  let index = 0;
  while (index < args.length) {
    const arg = args[index] ?? '';
    if (arg === '--') return { next: index + 1, seen };
    if (arg.startsWith('--')) {
      const [rawName = '', inlineValue] = splitOnce(arg, '=');
      const name = matchLong(rawName, spec.long ?? {});
      if (!name) return { next: index, seen, unknown: arg };
      if (spec.long?.[name] === 'value' && inlineValue === undefined) {
        seen.push({ name, value: args[index + 1] });
        index += 2;
      } else {
        seen.push({ name, value: inlineValue });
        index += 1;
      }
      continue;
    }
    if (arg.length > 1 && arg.startsWith('-')) {
      if (spec.numeric && /^-\d+$/.test(arg)) {
        seen.push({ name: '-n', value: arg.slice(1) });
        index += 1;
        continue;
      }
      const consumed = readCluster(arg, args[index + 1], spec.short ?? {}, seen);
      if (consumed === 0) return { next: index, seen, unknown: arg };
      index += consumed;
      continue;
    }
    return { next: index, seen };
  }
  return { next: index, seen };
}

function readCluster(arg: string, following: string | undefined, short: Record<string, OptionKind>, seen: ParsedOptions['seen']): number {
  for (let position = 1; position < arg.length; position += 1) {
    const letter = arg[position] ?? '';
    const kind = short[letter];
    if (!kind) return 0;
    if (kind === 'value') {
      const rest = arg.slice(position + 1);
      seen.push({ name: `-${letter}`, value: rest === '' ? following : rest });
      return rest === '' ? 2 : 1;
    }
    seen.push({ name: `-${letter}` });
  }
  return 1;
}

function matchLong(rawName: string, long: Record<string, OptionKind>): string | undefined {
  if (rawName in long) return rawName;
  const candidates = Object.keys(long).filter((name) => name.startsWith(rawName));
  return candidates.length === 1 ? candidates[0] : undefined;
}

export function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at === -1 ? [text, undefined] : [text.slice(0, at), text.slice(at + separator.length)];
}

/** True when a long option (`--recur`, `--receive-pack=x`) is a prefix spelling of `full`. */
export function isLongSpelling(arg: string, full: string, minimum = 3): boolean {
  const name = splitOnce(arg, '=')[0];
  return name.length >= minimum && name.startsWith('--') && full.startsWith(name);
}

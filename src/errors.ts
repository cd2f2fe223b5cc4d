// Expected failures as typed values: a literal code, a message for people, a remedy, a cause.

/** The exit codes of `cadre -c …` runs; documented in the README. */
export const exitCodes = {
  ok: 0,
  commandFailed: 1,
  usage: 2,
  notAvailable: 3,
  /** `cadre policy check`: the policy denies the command or path. */
  policyDenied: 4,
  interrupted: 130,
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

/**
 * An expected failure. `message` says what went wrong and why; `remedy` says what to do.
 * Renderers print both and never a stack trace. Anything thrown that is not a
 * CadreError is a bug and is reported as one.
 */
export class CadreError<Code extends string = string> extends Error {
  override readonly name = 'CadreError';
  readonly code: Code;
  readonly remedy: string;
  readonly exitCode: ExitCode;

  constructor(code: Code, message: string, options: { remedy?: string; cause?: unknown; exitCode?: ExitCode } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.remedy = options.remedy ?? '';
    this.exitCode = options.exitCode ?? exitCodes.commandFailed;
  }

  toJSON(): { code: Code; message: string; remedy: string } {
    return { code: this.code, message: this.message, remedy: this.remedy };
  }
}

export function isCadreError(value: unknown): value is CadreError {
  return value instanceof CadreError;
}

/** A short description of a non-Cadre error, for logs and bug reports. */
export function describeUnexpected(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

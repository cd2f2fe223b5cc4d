// Expected failures as typed values: a literal code, a message for people, a remedy, a cause.

/** The exit codes of `cadre -c …` runs; documented in the README. */
export const exitCodes = {
  ok: 0,
  commandFailed: 1,
  usage: 2,
  notAvailable: 3,
  /** `cadre policy check`: the policy denies the command or path. */
  policyDenied: 4,
  /** `cadre audit verify`: the log is intact up to where its session crashed (no closing record; the crash is on record). */
  auditCrashed: 5,
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

const systemRemedies: Record<string, string> = {
  EACCES: 'cadre has no permission there: check the owner and mode of that path, or work from a folder you can write',
  EPERM: 'the operating system refused it: check the owner and mode of that path',
  EROFS: 'that file system is read-only: work from a writable copy, or point CADRE_HOME at a writable folder',
  ENOSPC: 'the disk is full: free some space on it, then try again',
  EDQUOT: 'your disk quota is used up: free some space, then try again',
  EMFILE: 'too many files are open: close other programs, or raise the limit (ulimit -n), then try again',
  ENFILE: 'the system has too many files open: close other programs, then try again',
  ENOENT: 'a file or folder it needs is missing: check the path',
  ENOTDIR: 'a file stands where a folder is needed: move it aside',
  EISDIR: 'a folder stands where a file is needed: move it aside',
  EEXIST: 'a file or folder of another kind already has that name: move it aside',
  EBUSY: 'another program is using it: close that program, then try again',
  EIO: 'the disk reported an input/output error: check the device',
};

/**
 * An error of the operating system (a file or folder that cannot be read or written, a full disk, too many open files):
 * the environment's, not a bug. Null for anything else.
 */
export function systemFailure(error: unknown): CadreError | null {
  if (!(error instanceof Error)) return null;
  const errno: NodeJS.ErrnoException = error;
  const remedy = typeof errno.code === 'string' ? systemRemedies[errno.code] : undefined;
  if (!remedy) return null;
  const what = errno.syscall ? `${errno.syscall}${errno.path ? ` ${errno.path}` : ''}` : 'do that';
  const reason = error.message.replace(/^[A-Z]+: /, '').split(',')[0] ?? error.message;
  return new CadreError(`system.${(errno.code ?? '').toLowerCase()}`, `cadre could not ${what}: ${reason}.`, { remedy, cause: error });
}

/** An expected failure as the renderer shows it, or null when `error` is a bug (neither a CadreError nor the system's). */
export function expectedFailure(error: unknown): CadreError | null {
  return isCadreError(error) ? error : systemFailure(error);
}

// A failure as the machines keep it: the message, and the code, remedy and exit code an expected failure carries.

export interface Failure {
  message: string;
  /** The expected failure's code (`plan.apply-failed`…); null for anything else. */
  code: string | null;
  remedy: string | null;
  exitCode: number | null;
}

const field = (error: unknown, name: string): unknown =>
  typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;

/** The failure an actor's error describes; the fields of an expected failure (CadreError) are read structurally. */
export function describeFailure(error: unknown): Failure {
  const code = field(error, 'code');
  const remedy = field(error, 'remedy');
  const exitCode = field(error, 'exitCode');
  return {
    message: error instanceof Error ? error.message : String(error),
    code: typeof code === 'string' ? code : null,
    remedy: typeof remedy === 'string' ? remedy : null,
    exitCode: typeof exitCode === 'number' ? exitCode : null,
  };
}

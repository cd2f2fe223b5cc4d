// The plan draft that generation and documentation produce; the plan layer turns it into diffs, approval and an atomic apply.

export type PlanStepAction = 'create-file' | 'modify-file' | 'delete-file' | 'create-tests' | 'update-exports' | 'add-docs';

export type PlanStepDraft = {
  action: PlanStepAction;
  /** Relative to the project root, forward slashes. */
  path: string;
  summary: string;
  /** The full new content of the file; null deletes it. */
  content: string | null;
};

export type PlanDraft = { title: string; steps: PlanStepDraft[] };

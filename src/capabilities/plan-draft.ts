// A plan as agents draft it: a title and ordered steps, each an action on one file with its new content.

export type PlanAction = 'create-file' | 'modify-file' | 'delete-file' | 'create-tests' | 'update-exports' | 'add-docs';

export interface PlanStep {
  action: PlanAction;
  /** Project-relative path, forward slashes. */
  path: string;
  summary: string;
  /** The file's full new content; null for a deletion. */
  content: string | null;
}

export interface PlanDraft {
  title: string;
  steps: PlanStep[];
}

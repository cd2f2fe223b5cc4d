// A plan as agents draft it: a title and ordered steps, each an action on one file with its new content (plain data the plan actor carries).

export type PlanAction = 'create-file' | 'modify-file' | 'delete-file' | 'create-tests' | 'update-exports' | 'add-docs';

export interface DraftStep {
  action: PlanAction;
  /** Project-relative path, forward slashes. */
  path: string;
  summary: string;
  /** The file's full new content; null for a deletion. */
  content: string | null;
  /**
   * Set when the step takes away text that is in the file now (a deletion, or lines of the current content missing from the new
   * one): the file a person wrote loses something, so the plan is sensitive and asks even in /auto.
   */
  overwrites?: { removedLines: number };
}

export interface PlanDraft {
  title: string;
  steps: DraftStep[];
}

// Builds a PlanDraft from the staged changes and the model's notes, in the spec's order of work.
import type { PlanAction, PlanDraft, PlanStep } from '../../capabilities/plan-draft.js';
import type { StagedChange, StagedView } from '../tools/staged-view.js';
import type { PlanNotes } from '../tools/project-files.js';

const testPath = /(^|\/)(__tests__|tests?|e2e|spec)\/|\.(test|spec|e2e)\.[cm]?[jt]sx?$/;
const docsPath = /(^|\/)docs?\/|\.(md|mdx|rst|adoc)$/i;
const indexPath = /(^|\/)index\.[cm]?[jt]sx?$/;

/** The action a change implies from its path and its kind, when the model did not name one. */
export function classifyAction(change: StagedChange): PlanAction {
  if (change.after === null) return 'delete-file';
  if (testPath.test(change.path)) return 'create-tests';
  if (docsPath.test(change.path)) return 'add-docs';
  if (change.before === null) return 'create-file';
  if (indexPath.test(change.path)) return 'update-exports';
  return 'modify-file';
}

/** Implementation first, then tests, then documentation: the spec's order for a multi-step task. */
const phase: Record<PlanAction, number> = {
  'create-file': 0, 'modify-file': 0, 'delete-file': 0, 'update-exports': 1, 'create-tests': 2, 'add-docs': 3,
};

function defaultSummary(action: PlanAction, path: string): string {
  const verbs: Record<PlanAction, string> = {
    'create-file': 'Create', 'modify-file': 'Modify', 'delete-file': 'Delete',
    'create-tests': 'Add tests in', 'update-exports': 'Update exports in', 'add-docs': 'Document in',
  };
  return `${verbs[action]} ${path}`;
}

export function buildPlanDraft(changes: StagedChange[], notes: PlanNotes, fallbackTitle: string): PlanDraft | null {
  if (changes.length === 0) return null;
  const steps: PlanStep[] = changes.map((change) => {
    const note = notes.summaries.get(change.path);
    const action = change.after === null ? 'delete-file' : note?.action && note.action !== 'delete-file' ? note.action : classifyAction(change);
    return { action, path: change.path, summary: note?.summary ?? defaultSummary(action, change.path), content: change.after };
  });
  steps.sort((a, b) => phase[a.action] - phase[b.action]);
  return { title: notes.title ?? fallbackTitle, steps };
}

/** Puts a previous, not yet applied plan back into a staged view, so a follow-up refines it. */
export async function stagePlan(view: StagedView, plan: PlanDraft, notes: PlanNotes): Promise<void> {
  for (const step of plan.steps) {
    await view.stage(step.path, step.content);
    notes.summaries.set(step.path, { summary: step.summary, action: step.action });
  }
  notes.title = plan.title;
}

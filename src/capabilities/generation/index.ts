// The generation capability's public surface: a task's text → a PlanDraft (component, API endpoint or database schema), never writing files.
import type { ProjectContext } from '../../project/context.js';
import type { PlanDraft } from '../plan-draft.js';
import { generateComponent } from './component.js';
import { generateEndpoint } from './endpoint.js';
import { generateSchema } from './schema.js';
import { type GenerationTask, parseGenerationTask } from './task.js';

export { generationKind, parseGenerationTask, type GenerationTask } from './task.js';
export { formatSource } from './format.js';

export type GenerateOptions = { cwd: string; context: ProjectContext; now?: Date };

/** Drafts the plan for a generation task (text or already parsed); expected problems are CadreErrors with a remedy. */
export async function generateFromTask(task: string | GenerationTask, options: GenerateOptions): Promise<PlanDraft> {
  const parsed = typeof task === 'string' ? parseGenerationTask(task) : task;
  switch (parsed.kind) {
    case 'component': return generateComponent(parsed, options);
    case 'endpoint': return generateEndpoint(parsed, options);
    case 'schema': return generateSchema(parsed, options);
  }
}

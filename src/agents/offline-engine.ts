// The embedded offline engine behind universal-agent when no model is configured: routes a task to a deterministic capability.
import type { DraftPlanInput, DraftPlanOutput } from '../../machines/task.machine.js';
import { CadreError, exitCodes } from '../errors.js';
import type { Route } from '../capabilities/routing.js';
import { result, say, type OutputSink } from '../output.js';
import type { ProjectContext } from '../project/context.js';
import type { GenerationTask } from '../capabilities/generation/task.js';

/**
 * The project context every task uses, as the project is now: the cache is brought up to date first (only files whose
 * size or mtime changed are read again), so a task never works from conventions or files that have since changed.
 */
async function analysedProject(cwd: string, keysDir: string | undefined) {
  const { analyzeProject } = await import('../project/context.js');
  return analyzeProject({ cwd, ...(keysDir ? { keysDir } : {}) });
}

async function routeOf(text: string, context: ProjectContext): Promise<Route> {
  const { routeTask } = await import('../capabilities/routing.js');
  return routeTask(text, context);
}

/** A generation drafted offline: its task, the project as the generator saw it, and each file before and as drafted. */
interface Generation {
  text: string;
  task: GenerationTask;
  context: ProjectContext;
  files: { path: string; before: string | null; after: string | null }[];
}

/**
 * The last generation drafted offline in each project folder, for a follow-up that refines it ("add a prop disabled:boolean"
 * typed after "create a component SearchBox…"), as a model session would take it.
 */
const lastGeneration = new Map<string, Generation>();

const readNow = async (cwd: string, path: string): Promise<string | null> => {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  return readFile(join(cwd, path), 'utf8').catch(() => null);
};

/**
 * A follow-up that is not a task of its own but says what to change in the last generation (fields or props added or left
 * out, another name, another method and path): that generation's task revised, drafted again on the project as it was before
 * that generation (its files are taken back to their earlier content in the generator's view, whether or not it was
 * applied). Null when the follow-up is not one; an error when a file of that generation was changed since by someone else.
 */
async function refinement(input: DraftPlanInput, cwd: string): Promise<{ last: Generation; task: GenerationTask; files: Record<string, string | null> } | null> {
  const last = lastGeneration.get(cwd);
  if (!input.followUp || input.feedback !== null || !last) return null;
  const { reviseTask } = await import('../capabilities/generation/feedback.js');
  const task = reviseTask(last.task, input.text);
  if (!task) return null;
  const files: Record<string, string | null> = {};
  for (const file of last.files) {
    const now = await readNow(cwd, file.path);
    if (now === file.before) continue;
    if (now !== file.after) {
      throw new CadreError('offline.refine-changed', `${file.path} changed since cadre drafted "${last.text.trim()}", so cadre cannot refine that result offline without losing the change.`, {
        remedy: 'Ask for the whole thing again with the change in it (a new name if the file stays), or configure a model to change existing files.',
        exitCode: exitCodes.usage,
      });
    }
    files[file.path] = file.before;
  }
  return { last, task, files };
}

/** Generation and documentation from the project's own conventions: a plan draft that goes through approval. */
async function draftGenerated(input: DraftPlanInput, capability: string, context: ProjectContext, deps: { cwd: string; emit: OutputSink }, refined?: GenerationTask): Promise<DraftPlanOutput> {
  let draft;
  if (capability === 'generate-docs') {
    const { documentProject, documentationRequest, documentationKinds } = await import('../capabilities/documentation/index.js');
    const request = documentationRequest(input.text, context) ?? { kinds: [...documentationKinds], symbols: [] };
    draft = await documentProject(request.kinds, { cwd: deps.cwd, context, symbols: request.symbols });
  } else {
    const { generateFromTask, parseGenerationTask } = await import('../capabilities/generation/index.js');
    const { readProjectFile } = await import('../capabilities/generation/conventions.js');
    let task = refined ?? parseGenerationTask(input.text);
    if (input.feedback !== null) {
      // A rejection's reason is used when it says what to change; otherwise cadre says it cannot, rather than drafting the same plan again.
      const { reviseTask, feedbackNotUsable } = await import('../capabilities/generation/feedback.js');
      const revised = reviseTask(task, input.feedback);
      if (!revised) throw feedbackNotUsable(input.feedback);
      deps.emit(say(`Revising the plan with the reason given: "${input.feedback.trim()}".`, 'dim'));
      task = revised;
    }
    draft = await generateFromTask(task, { cwd: deps.cwd, context });
    const files = await Promise.all(draft.steps.map(async (step) => ({ path: step.path, before: await readProjectFile(deps.cwd, step.path), after: step.content })));
    lastGeneration.set(deps.cwd, { text: input.text, task, context, files });
  }
  await markOverwrites(draft, deps.cwd);
  const { isSecuritySensitive } = await import('./plan/sensitive.js');
  const { draftedPlan } = await import('./plan/drafted.js');
  const plan = draftedPlan(draft, { taskId: input.taskId, cwd: deps.cwd, sensitiveReason: isSecuritySensitive(input.text, draft, deps.cwd) });
  deps.emit(say(`Drafted "${draft.title}" offline, from the project's own conventions (${draft.steps.length} step(s)).`, 'dim'));
  return { summary: draft.title, plan };
}

/** Flags each step that takes away text the file has now (PlanStep.overwrites), for the approval's sensitivity check. */
async function markOverwrites(draft: { steps: { path: string; content: string | null; overwrites?: { removedLines: number } }[] }, cwd: string): Promise<void> {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  for (const step of draft.steps) {
    const current = await readFile(join(cwd, step.path), 'utf8').catch(() => null);
    if (current === null) continue;
    const kept = new Set((step.content ?? '').split('\n'));
    const removedLines = current.split('\n').filter((line) => line.trim() && !kept.has(line)).length;
    if (step.content === null || removedLines > 0) step.overwrites = { removedLines: step.content === null ? current.split('\n').filter((line) => line.trim()).length : removedLines };
  }
}

const analysisKinds = { 'analyze-security': 'security', 'analyze-quality': 'quality', 'analyze-performance': 'performance' } as const;
/** A task that asks for no network ("security audit --offline", "... without the registry"): the dependency check uses the bundled advisories only. */
const asksOffline = /(?:^|\s)--offline\b|\bno network\b|\bwithout (?:the )?(?:network|registry|internet)\b/i;

export const draftOffline = {
  /** Chooses the specialist and capability, and says which and why. */
  async route(text: string, cwd: string, emit: OutputSink, keysDir?: string): Promise<Route> {
    const route = await routeOf(text, (await analysedProject(cwd, keysDir)).context);
    emit(say(route.needsModel
      ? `Routing: ${route.specialist} specialist; no offline capability fits this task.`
      : `Routing: ${route.specialist} specialist → ${route.capability} (confidence ${route.confidence.toFixed(2)}): ${route.reason}`, 'dim'));
    return route;
  },

  /** Runs the capability the router chose; read-only capabilities leave nothing to approve (planId null). */
  async draft(input: DraftPlanInput, deps: { cwd: string; emit: OutputSink; signal: AbortSignal; keysDir?: string }): Promise<DraftPlanOutput> {
    if (input.redraft) deps.emit(say('Drafting the plan again, on the files as they are now.', 'dim'));
    // One refresh of the project's context per draft: the route and the generator read the same one.
    const analysed = await analysedProject(deps.cwd, deps.keysDir);
    const route = await routeOf(input.text, analysed.context);
    if (route.capability === 'analyze-project') {
      deps.emit(result('project.context', { changed: analysed.changed, reused: analysed.reused }, analysed.summary));
      return { summary: 'Project analysed; the context cache is up to date.', plan: null };
    }
    const kind = route.capability ? analysisKinds[route.capability as keyof typeof analysisKinds] : undefined;
    if (kind) {
      const { presentAnalysis } = await import('../capabilities/analysis/present.js');
      const report = await presentAnalysis({ kind, cwd: deps.cwd, ...(asksOffline.test(input.text) ? { offline: true } : {}), color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR, emit: deps.emit, ...(deps.keysDir ? { keysDir: deps.keysDir } : {}) });
      const counts = Object.entries(report.counts).filter(([, n]) => n > 0).map(([severity, n]) => `${n} ${severity}`).join(', ');
      return { summary: `The ${kind} analysis found ${report.findings.length} issue(s)${counts ? ` (${counts})` : ''}; nothing was changed.`, plan: null };
    }
    if (route.capability === 'generate-docs' && input.feedback !== null) {
      const { feedbackNotUsable } = await import('../capabilities/generation/feedback.js');
      throw feedbackNotUsable(input.feedback);
    }
    if (route.capability?.startsWith('generate-') && !route.needsModel) return draftGenerated(input, route.capability, analysed.context, deps);
    const refined = await refinement(input, deps.cwd);
    if (refined) {
      deps.emit(say(`Refining the last generation ("${refined.last.text.trim()}") with: "${input.text.trim()}".`, 'dim'));
      const { withProjectFiles } = await import('../capabilities/generation/conventions.js');
      return withProjectFiles(refined.files, () => draftGenerated({ ...input, text: refined.last.text }, `generate-${refined.task.kind}`, refined.last.context, deps, refined.task));
    }
    const { modelSetupHint } = await import('../model/resolve.js');
    if (route.capability?.startsWith('generate-')) {
      // The router knows why the generator does not fit (NestJS without TypeORM, a task with no name…): say that, not "something else".
      throw new CadreError('model.none', `${route.reason.replace(/\.$/, '')}. Offline, cadre cannot do this one; a model can.`, { remedy: modelSetupHint, exitCode: exitCodes.notAvailable });
    }
    throw new CadreError('model.none', 'This task needs a model. Offline, universal-agent runs the security, quality and performance analyses and /analyze-project, and generates components, API endpoints, database schemas and documentation from the project\'s own conventions; this task asks for something else.', {
      remedy: modelSetupHint,
      exitCode: exitCodes.notAvailable,
    });
  },
};

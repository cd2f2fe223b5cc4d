// The embedded offline engine behind universal-agent when no model is configured: routes a task to a deterministic capability.
import type { DraftPlanInput, DraftPlanOutput } from '../../machines/task.machine.js';
import type { PlanStore } from '../agents/actors.js';
import { CadreError, exitCodes } from '../errors.js';
import type { Route } from '../capabilities/routing.js';
import { result, say, type OutputSink } from './output.js';

async function routeOf(text: string, cwd: string): Promise<Route> {
  const [{ routeTask }, { loadProjectContext }] = await Promise.all([import('../capabilities/routing.js'), import('../project/context.js')]);
  return routeTask(text, await loadProjectContext(cwd));
}

const analysisKinds = { 'analyze-security': 'security', 'analyze-quality': 'quality', 'analyze-performance': 'performance' } as const;

export const draftOffline = {
  /** Chooses the specialist and capability, and says which and why. */
  async route(text: string, cwd: string, emit: OutputSink): Promise<Route> {
    const route = await routeOf(text, cwd);
    emit(say(route.needsModel
      ? `Routing: ${route.specialist} specialist; no offline capability fits this task.`
      : `Routing: ${route.specialist} specialist → ${route.capability} (confidence ${route.confidence.toFixed(2)}): ${route.reason}`, 'dim'));
    return route;
  },

  /** Runs the capability the router chose; read-only capabilities leave nothing to approve (planId null). */
  async draft(input: DraftPlanInput, deps: { cwd: string; plans: PlanStore; emit: OutputSink; signal: AbortSignal }): Promise<DraftPlanOutput> {
    const route = await routeOf(input.text, deps.cwd);
    if (route.capability === 'analyze-project') {
      const { analyzeProject } = await import('../project/context.js');
      const analysed = await analyzeProject({ cwd: deps.cwd });
      deps.emit(result('project.context', { changed: analysed.changed, reused: analysed.reused }, analysed.summary));
      return { planId: null, summary: 'Project analysed; the context cache is up to date.' };
    }
    const kind = route.capability ? analysisKinds[route.capability as keyof typeof analysisKinds] : undefined;
    if (kind) {
      const { presentAnalysis } = await import('../capabilities/analysis/present.js');
      const report = await presentAnalysis({ kind, cwd: deps.cwd, color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR, emit: deps.emit });
      const counts = Object.entries(report.counts).filter(([, n]) => n > 0).map(([severity, n]) => `${n} ${severity}`).join(', ');
      return { planId: null, summary: `The ${kind} analysis found ${report.findings.length} issue(s)${counts ? ` (${counts})` : ''}; nothing was changed.` };
    }
    const { modelSetupHint } = await import('../model/resolve.js');
    throw new CadreError('model.none', 'This task needs a model: offline, universal-agent runs the security, quality and performance analyses and /analyze-project, but writing or changing code needs a model.', {
      remedy: modelSetupHint,
      exitCode: exitCodes.notAvailable,
    });
  },
};

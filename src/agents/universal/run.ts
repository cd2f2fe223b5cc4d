// The universal-agent loop: route, stream model turns, run tools through the wrapper, and draft the plan.
import type { PlanDraft } from '../../capabilities/plan-draft.js';
import { say, type OutputSink } from '../../cli/output.js';
import type { ChatMessage, ModelClient, TokenUsage, ToolCall } from '../../model/types.js';
import { addUsage, zeroUsage } from '../../model/types.js';
import { buildPlanDraft, stagePlan } from '../plan/draft.js';
import { universalTools } from '../tools/index.js';
import { createPermissions, defaultRules, type PermissionRules } from '../tools/permissions.js';
import { createStagedView } from '../tools/staged-view.js';
import type { AgentTool, PlanNotes, ToolContext } from '../tools/tool.js';
import { runTool, type ToolAuditEntry } from '../tools/wrapper.js';
import type { ProjectContext } from '../../project/context.js';
import { systemPrompt, userTurn, type ExecOutput, type ExtraCapability, type LastPlan } from './prompt.js';
import { routeToSpecialist, type Route } from './route.js';
import { compactTranscript } from './transcript.js';

export interface UniversalAgentConfig {
  cwd: string;
  permissions?: PermissionRules;
  capabilities?: ExtraCapability[];
  /** Most model turns in one run (default 40). */
  maxSteps?: number;
  maxOutputTokens?: number;
  toolTimeoutMs?: number;
  audit?: (entry: ToolAuditEntry) => void;
  /** Live text as the model streams it; without it, each turn's text is emitted whole. */
  onTextDelta?: (text: string) => void;
  /** A router to use instead of the local one (e.g. routeTask from src/capabilities/routing.ts). */
  route?: (task: string, context: ProjectContext | null) => Route;
}

export interface UniversalAgentInput {
  task: string;
  model: ModelClient;
  projectContext: ProjectContext | null;
  config: UniversalAgentConfig;
  /** The conversation so far (follow-ups continue it). Not modified: the new one is returned. */
  transcript: ChatMessage[];
  lastPlan: LastPlan | null;
  execOutputs: ExecOutput[];
  emit: OutputSink;
  signal?: AbortSignal;
  /** A specialist already chosen (and announced) by the task's routing step; otherwise the agent routes. */
  route?: Route;
}

export interface UniversalAgentResult {
  plan: PlanDraft | null;
  summary: string;
  usage: TokenUsage;
  transcript: ChatMessage[];
  route: Route;
  /** True when the model called propose-plan (false: the plan, if any, was drafted from staged changes anyway). */
  proposed: boolean;
}

/** Routes a task to a specialist and tells the user which one and why. */
export function chooseSpecialist(task: string, context: ProjectContext | null, config: Pick<UniversalAgentConfig, 'route'>, emit: OutputSink): Route {
  const route = (config.route ?? routeToSpecialist)(task, context);
  emit(say(`universal-agent → ${route.specialist} specialist (${route.reason})`, 'dim'));
  return route;
}

const titleOf = (task: string) => {
  const line = task.trim().split('\n')[0] ?? task;
  return line.length > 72 ? `${line.slice(0, 71)}…` : line;
};

/**
 * Runs universal-agent on one task or follow-up. Provider failures are thrown as CadreError (`model.*`)
 * after the partial work is abandoned; the caller's transcript is untouched, so the session loses nothing.
 */
export async function runUniversalAgent(input: UniversalAgentInput): Promise<UniversalAgentResult> {
  const { config, emit, model } = input;
  const signal = input.signal ?? new AbortController().signal;
  const route = input.route ?? chooseSpecialist(input.task, input.projectContext, config, emit);

  const notes: PlanNotes = { summaries: new Map(), proposed: false };
  const view = createStagedView(config.cwd);
  if (input.lastPlan && input.lastPlan.status !== 'applied') await stagePlan(view, input.lastPlan.plan, notes);
  const context: ToolContext = { root: config.cwd, view, permissions: createPermissions(config.cwd, config.permissions ?? defaultRules), plan: notes, signal };
  const tools: readonly AgentTool[] = universalTools;
  const system = systemPrompt({ specialist: route.specialist, projectContext: input.projectContext, capabilities: config.capabilities ?? [], lastPlan: input.lastPlan });
  const messages: ChatMessage[] = [...compactTranscript(input.transcript), { role: 'user', content: userTurn(input.task, input.execOutputs) }];
  let usage = zeroUsage();
  let summary = '';
  const maxSteps = config.maxSteps ?? 40;

  for (let step = 0; ; step += 1) {
    if (step >= maxSteps) {
      emit(say(`universal-agent stopped after ${maxSteps} model turns without finishing; the staged changes so far are kept as the plan.`, 'warn'));
      break;
    }
    let text = '';
    const calls: ToolCall[] = [];
    for await (const part of model.stream({
      system,
      messages,
      tools: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
      signal,
      ...(config.maxOutputTokens ? { maxOutputTokens: config.maxOutputTokens } : {}),
    })) {
      if (part.type === 'text-delta') {
        text += part.text;
        config.onTextDelta?.(part.text);
      } else if (part.type === 'tool-call') calls.push(part.call);
      else usage = addUsage(usage, part.usage);
    }
    if (text.trim() && !config.onTextDelta) emit(say(text.trim()));
    else if (text && config.onTextDelta && !text.endsWith('\n')) config.onTextDelta('\n');
    if (text.trim()) summary = text.trim();
    messages.push({ role: 'assistant', content: text, ...(calls.length ? { toolCalls: calls } : {}) });
    if (calls.length === 0) break;
    const results = [];
    for (const call of calls) {
      const run = await runTool(tools.find((tool) => tool.name === call.name), call, context, {
        ...(config.toolTimeoutMs ? { timeoutMs: config.toolTimeoutMs } : {}),
        ...(config.audit ? { audit: config.audit } : {}),
      });
      emit(say(`  ${run.outcome === 'ok' ? '· ' : ''}${run.display}`, run.outcome === 'ok' ? 'dim' : 'warn'));
      results.push(run.result);
    }
    messages.push({ role: 'tool', results });
  }

  const plan = buildPlanDraft(await view.changes(), notes, titleOf(input.task));
  emit(say(`tokens: ${usage.inputTokens} in · ${usage.outputTokens} out (${model.provider} ${model.model})`, 'dim'));
  return { plan, summary, usage, transcript: messages, route, proposed: notes.proposed };
}

// The universal-agent loop: route, stream model turns, run tools through the wrapper, keep the context in bounds, and draft the plan.
import type { z } from 'zod';
import type { PlanDraft } from '../../capabilities/plan-draft.js';
import { say, type OutputSink } from '../../output.js';
import { CadreError, isCadreError } from '../../errors.js';
import { linearCounter, loadTokenCounter } from '../../gateway/token-estimate.js';
import { defaultContextWindow } from '../../model/context-window.js';
import { createRequestCounter } from '../../model/tokens.js';
import type { ChatMessage, ModelClient, TokenUsage, ToolCall, ToolResult } from '../../model/types.js';
import { addUsage, zeroUsage } from '../../model/types.js';
import type { ProjectContext } from '../../project/context.js';
import { runAgentLoop } from '../loop.js';
import { buildPlanDraft, stagePlan } from '../plan/draft.js';
import { describeCall, refusedArguments } from '../tools/arguments.js';
import { universalTools } from '../tools/index.js';
import { createPermissions, defaultRules, type PermissionRules } from '../tools/permissions.js';
import { createStagedView } from '../tools/staged-view.js';
import { createProjectToolContext, type PlanNotes, type ProjectToolContext } from '../tools/project-files.js';
import type { AgentTool } from '../tools/tool.js';
import { runTool, type ToolAuditEntry } from '../tools/wrapper.js';
import { createContextKeeper } from './context-keeper.js';
import { createInstructionLoader, instructionsNote, instructionsSection, pathsNamedIn, type InstructionFile } from './instructions.js';
import { createLoopGuard, describeRepetition } from '../loop-guard.js';
import { systemPrompt, userTurn, type ExecOutput, type ExtraCapability, type LastPlan } from './prompt.js';
import { routeToSpecialist, type Route } from './route.js';
import { repeatedCalls, repeatedRefusal, stoppedByPerson, turnLimitReached } from './stops.js';
import { compactTranscript } from './transcript.js';
import { streamTurn } from './turn.js';

/** Asks the person a yes/no question at the prompt. */
export type AskPerson = (question: string) => Promise<boolean>;

export interface UniversalAgentConfig {
  cwd: string;
  permissions?: PermissionRules;
  capabilities?: ExtraCapability[];
  /** Most model turns in one run (default 40); reaching it is a failure. */
  maxSteps?: number;
  maxOutputTokens?: number;
  toolTimeoutMs?: number;
  /** A model stream silent this long fails the run with `model.stalled` (default 60 s). */
  stallTimeoutMs?: number;
  audit?: (entry: ToolAuditEntry) => void;
  /** A router to use instead of the local one (e.g. routeTask from src/capabilities/routing.ts). */
  route?: (task: string, context: ProjectContext | null) => Route;
  /** The model's context window in tokens (default a conservative 32,000). */
  contextWindow?: () => Promise<number>;
  /** Tools of configured integrations (MCP servers), offered next to the built-in ones through the same wrapper. */
  extraTools?: () => Promise<readonly AgentTool[]>;
  /** Who answers yes/no questions (a refused call repeated, a side effect to approve); undefined when no one can (cadre -c). */
  askPerson?: () => AskPerson | undefined;
  /** Read AGENTS.md / CLAUDE.md instruction files (default true). */
  instructions?: boolean;
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

/** The tokens of one model request: an agent turn, or the summary a compaction asked for. */
export interface ModelTurnUsage {
  kind: 'turn' | 'compaction';
  usage: TokenUsage;
}

export interface UniversalAgentResult {
  plan: PlanDraft | null;
  summary: string;
  usage: TokenUsage;
  /** Every model request of the run, in order. */
  turns: ModelTurnUsage[];
  transcript: ChatMessage[];
  route: Route;
  /** True when the model called propose-plan (false: the plan, if any, was drafted from staged changes anyway). */
  proposed: boolean;
  /** Why the run stopped before finishing (stall, provider error, turn limit, loop, cancellation); the rest is the work kept. */
  stopped: CadreError | null;
  /** The instruction files read into the run. */
  instructions: string[];
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

const announce = (files: InstructionFile[], emit: OutputSink): void => {
  if (files.length) emit(say(`Instructions read: ${files.map((file) => `${file.path}${file.truncated ? ' (cut at the budget)' : ''}`).join(', ')}`, 'dim'));
};

/**
 * Runs universal-agent on one task or follow-up. Nothing thrown for expected failures: a run that stops early (a
 * provider error, a stall, the turn limit, a loop, Ctrl-C) returns `stopped` with the work so far (the conversation
 * up to the last whole turn, the staged changes as a plan), so the session keeps it.
 */
export async function runUniversalAgent(input: UniversalAgentInput): Promise<UniversalAgentResult> {
  const { config, emit, model } = input;
  const signal = input.signal ?? new AbortController().signal;
  const route = input.route ?? chooseSpecialist(input.task, input.projectContext, config, emit);

  const notes: PlanNotes = { summaries: new Map(), proposed: false };
  const view = createStagedView(config.cwd);
  if (input.lastPlan && input.lastPlan.status !== 'applied') await stagePlan(view, input.lastPlan.plan, notes);
  const permissions = createPermissions(config.cwd, config.permissions ?? defaultRules);
  const context = createProjectToolContext({ root: config.cwd, view, permissions, plan: notes, signal });
  const tools: readonly AgentTool<z.ZodType, ProjectToolContext>[] = [...universalTools, ...((await config.extraTools?.()) ?? [])];
  const specs = tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));

  const instructions = config.instructions === false ? null : createInstructionLoader({ permissions, countTokens: linearCounter(await loadTokenCounter()) });
  const firstFiles = (await instructions?.forPaths(['.', ...pathsNamedIn(input.task), ...(input.lastPlan?.plan.steps.map((step) => step.path) ?? [])])) ?? [];
  announce(firstFiles, emit);
  const system = [
    systemPrompt({ specialist: route.specialist, projectContext: input.projectContext, capabilities: config.capabilities ?? [], lastPlan: input.lastPlan }),
    instructionsSection(firstFiles),
  ].filter(Boolean).join('\n\n');

  let usage = zeroUsage();
  const turns: ModelTurnUsage[] = [];
  const counted = (kind: ModelTurnUsage['kind'], used: TokenUsage): void => {
    usage = addUsage(usage, used);
    turns.push({ kind, usage: used });
  };
  const counter = await createRequestCounter();
  const window = (await config.contextWindow?.()) ?? defaultContextWindow;
  const keeper = createContextKeeper({
    model, counter, system, tools: specs, window, emit, signal, onUsage: (used) => counted('compaction', used),
    ...(config.stallTimeoutMs ? { stallTimeoutMs: config.stallTimeoutMs } : {}),
  });
  const guard = createLoopGuard();
  const maxSteps = config.maxSteps ?? 40;

  /** One model turn; a "context too long" reply compacts the conversation and tries once more. */
  const requestTurn = async (conversation: { messages: ChatMessage[] }) => {
    for (let retried = false; ; retried = true) {
      const messages = await keeper.fit(conversation.messages, { force: retried });
      conversation.messages = messages;
      const estimated = keeper.estimate(messages);
      try {
        const turn = await streamTurn(model, {
          system, messages, tools: specs, signal,
          ...(config.maxOutputTokens ? { maxOutputTokens: config.maxOutputTokens } : {}),
          ...(config.stallTimeoutMs ? { stallTimeoutMs: config.stallTimeoutMs } : {}),
        }, emit);
        counter.calibrate(estimated, turn.usage.inputTokens);
        return turn;
      } catch (error) {
        if (retried || !isCadreError(error) || error.code !== 'model.context-too-long') throw error;
      }
    }
  };

  /** Runs the calls of one turn; the results, and whether the run must stop after them. */
  const runCalls = async (calls: ToolCall[]): Promise<{ kept: ToolCall[]; results: ToolResult[]; stop: CadreError | null }> => {
    const kept: ToolCall[] = [];
    const results: ToolResult[] = [];
    let stop: CadreError | null = null;
    for (const call of calls) {
      const tool = tools.find((candidate) => candidate.name === call.name);
      const ask = config.askPerson?.();
      const run = await runTool(tools, call, context, {
        kinds: ['read', 'write'],
        kindRefusal: (refused) => `${refused.name} needs ${refused.kind} access, which universal-agent does not have. Ask the user to run commands with /exec.`,
        ...(config.toolTimeoutMs ? { timeoutMs: config.toolTimeoutMs } : {}),
        ...(config.audit ? { audit: config.audit } : {}),
        ...(ask ? { ask } : {}),
      });
      emit(say(`  ${run.outcome === 'ok' ? '·' : '✗'} ${run.display}`, run.outcome === 'ok' ? 'dim' : 'warn'));
      const refused = run.outcome !== 'ok';
      // A refused call's long arguments (a 5 MB file, say) never go back to the model.
      kept.push(refused ? { ...call, input: refusedArguments(call.input) } : call);
      const result = { ...run.result };
      // Judged on what the call itself returned, before any note is added to it.
      const verdict = guard.record(call, refused ? { refused } : { refused, output: run.result.output });
      if (!refused && tool?.paths && instructions) {
        const found = await instructions.forPaths(tool.paths(tool.parameters.parse(call.input)));
        announce(found, emit);
        result.output += instructionsNote(found);
      }
      if (verdict.kind === 'warn') result.output += `\n\n${verdict.note}`;
      if (verdict.kind === 'stop' && !stop) {
        const named = describeCall(call.name, call.input);
        const what = describeRepetition(verdict);
        if (!ask) {
          stop = verdict.reason === 'refused'
            ? repeatedRefusal(named, run.display, verdict.times, await view.changes())
            : repeatedCalls(named, what, await view.changes());
        } else if (await ask(`universal-agent has made ${what} (${named}). Let it go on?`)) {
          guard.forgive(call);
          result.output += verdict.reason === 'refused'
            ? '\n\nThe user let you go on, but this exact call will be refused again: do something else.'
            : '\n\nThe user let you go on, but repeating these calls will not change their results: use what you have or do something else.';
        } else stop = stoppedByPerson(named, what, await view.changes());
      }
      results.push(result);
    }
    return { kept, results, stop };
  };

  const { messages, summary, stopped } = await runAgentLoop([...compactTranscript(input.transcript), { role: 'user', content: userTurn(input.task, input.execOutputs) }], {
    maxTurns: maxSteps,
    requestTurn,
    onTurn: (turn) => counted('turn', turn.usage),
    runCalls,
    turnLimit: async () => turnLimitReached(maxSteps, await view.changes()),
  });
  // Expected endings are CadreErrors; anything else is a bug.
  if (stopped !== null && !isCadreError(stopped)) throw stopped;

  const plan = buildPlanDraft(await view.changes(), notes, titleOf(input.task));
  return { plan, summary, usage, turns, transcript: messages, route, proposed: notes.proposed, stopped, instructions: instructions?.loaded().map((file) => file.path) ?? [] };
}

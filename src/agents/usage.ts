// Token usage and estimated cost per task and per session: recorded after each universal-agent run, shown at its end and by /status.
import { estimateCost, formatCost, formatUsage, type ModelPrice } from '../model/cost.js';
import { addUsage, zeroUsage, type TokenUsage } from '../model/types.js';
import type { AgentMemory, TaskUsageRecord } from './session-state.js';
import type { ModelTurnUsage } from './universal/run.js';

export type { TaskUsageRecord };

/** Records kept in the session (the oldest are dropped; the session total stays in `usage`). */
const keptRecords = 100;

export function recordTaskUsage(memory: AgentMemory, input: { task: string; model: string; turns: ModelTurnUsage[]; price: ModelPrice | undefined }): TaskUsageRecord {
  const usage = input.turns.reduce((sum, turn) => addUsage(sum, turn.usage), zeroUsage());
  const record: TaskUsageRecord = {
    at: Date.now(), task: input.task.slice(0, 80), model: input.model, usage, turns: input.turns,
    cost: input.price ? estimateCost(usage, input.price) : null,
  };
  memory.usageLog = [...memory.usageLog, record].slice(-keptRecords);
  return record;
}

export interface SessionCost {
  /** Dollars over the runs whose model has a price. */
  dollars: number;
  /** Runs whose model has no price: the figure leaves them out. */
  unpriced: number;
}

export function sessionCost(log: readonly TaskUsageRecord[]): SessionCost {
  return { dollars: log.reduce((sum, record) => sum + (record.cost ?? 0), 0), unpriced: log.filter((record) => record.cost === null).length };
}

export function describeCost(cost: number | null | SessionCost): string {
  if (cost === null) return 'cost unknown (no price for this model in model.prices)';
  if (typeof cost === 'number') return `≈ ${formatCost(cost)}`;
  if (cost.dollars === 0 && cost.unpriced > 0) return 'cost unknown (no price for its model in model.prices)';
  return `≈ ${formatCost(cost.dollars)}${cost.unpriced ? ` (+${cost.unpriced} run(s) of unpriced models)` : ''}`;
}

/** "#1 900 in · 20 out; #2 …", compaction requests marked. */
export function describeTurns(turns: readonly ModelTurnUsage[]): string {
  return turns.map((turn, index) => `#${index + 1}${turn.kind === 'compaction' ? ' (compaction)' : ''} ${formatUsage(turn.usage)}`).join('; ');
}

/** The line at the end of a task: this task's tokens and cost, then the session's. */
export function describeTaskEnd(record: TaskUsageRecord, session: { usage: TokenUsage; usageLog: readonly TaskUsageRecord[] }): string {
  const turns = record.turns.length;
  return `tokens: this task ${formatUsage(record.usage)} over ${turns} model request${turns === 1 ? '' : 's'}, ${describeCost(record.cost)}`
    + ` · session ${formatUsage(session.usage)}, ${describeCost(sessionCost(session.usageLog))} (${record.model})`;
}

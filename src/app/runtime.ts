// What command handlers may use of the running system; the composition root (root.ts) implements it.
import type { AgentHost } from './agent-host.js';
import type { ModelHost } from './model-host.js';
import type { McpManager } from '../mcp/manager.js';
import type { Config } from '../store/config-schema.js';
import type { FolderTrust } from './folder-trust.js';
import type { VmHost } from './vm-host.js';
import type { VmTasks } from './vm-tasks.js';
import type { SessionInbox } from './actors.js';

/** The session as people see it in /status. */
export interface SessionView {
  name: string;
  state: string;
  mode: 'approve' | 'auto';
  agent: 'universal-agent' | 'vm-agent';
  usage: { inputTokens: number; outputTokens: number };
  budget: { limit: number; used: number };
  containers: string[];
  currentContainer: string | null;
  tasks: string[];
  /** vm-agent tasks waiting for the running one, first to run first. */
  queuedTasks: string[];
  transcriptLength: number;
}

export interface SessionListing {
  name: string;
  savedAt: string | null;
  size: number;
  unreadable?: string;
}

export interface Runtime {
  version: string;
  cwd: string;
  session: {
    view(): SessionView;
    /** Tells the session actor an event of its own machine. */
    send(event: SessionInbox): void;
  };
  saveSession(name: string): Promise<{ file: string; bytes: number }>;
  /** Replaces the current session with a saved one. */
  resumeSession(name: string): Promise<SessionView>;
  listSessions(): Promise<SessionListing[]>;
  /** Appends a record to the audit trail (secrets are redacted by the writer). */
  audit(type: string, data: Record<string, unknown>): void;
  /** Which model answers, e.g. "offline (no model configured)". */
  describeModel(): Promise<string>;
  /** The effective configuration. */
  config: Config;
  /** Whether this run uses the project's settings that need trust, and which they are (/trust). */
  folderTrust: FolderTrust;
  /** The session's model: its client, context window, price, and /model. */
  models: ModelHost;
  /** The configured MCP servers (started on first need). */
  mcp: McpManager;
  /** The agents in the actor system: tasks with approval, /exec output for the agent, /undo. */
  agents: AgentHost;
  /** vm-agent's containers, gateways and /vm-config settings (the engine loads on first use). */
  vm: VmHost;
  /** vm-agent tasks through the session's queue. */
  vmTasks: VmTasks;
}

// The hosts the composition root is made of (built before the root actor), and the runtime the commands see over them.
import { CadreError } from '../errors.js';
import type { LoadedConfig } from '../store/config.js';
import type { FolderTrust } from './folder-trust.js';
import type { CadrePaths } from '../store/paths.js';
import { cadreVersion } from '../version.js';
import type { Runtime } from './runtime.js';
import { createSessionHost, savedSession, type SessionHost } from './session-host.js';
import { restoreSessionModel } from './session-model.js';
import type { SessionFile } from '../store/session-file.js';
import type { AuditTrail } from './audit-trail.js';
import { askYesNo } from '../cli/confirm.js';
import { createAgentHost, type AgentHost } from './agent-host.js';
import { createVmHost, type VmHost } from './vm-host.js';
import type { SandboxesChoice } from './vm-engine.js';
import { createVmTasks, type VmTasks } from './vm-tasks.js';
import { createModelHost, type ModelHost } from './model-host.js';
import { createMcpManager, type McpManager } from '../mcp/manager.js';
import { auditOf, sessionOf, type RootRef, type SessionRef } from './actors.js';
import type { OutputSink } from '../output.js';

/** What the hosts take of the app's options. */
export interface HostOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  sink: OutputSink;
  interactive: boolean;
  resume?: string;
  /** Where sandboxes run, when not on the Docker engine of vm.engine. */
  sandboxes?: SandboxesChoice;
}

export interface AppHosts {
  /** The root actor `cli`: looked up only when a host runs, after the root has started. */
  root: () => RootRef;
  recordAudit: (type: string, data: Record<string, unknown>) => void;
  sessionActor: () => SessionRef;
  mcp: McpManager;
  models: ModelHost;
  sessions: SessionHost;
  vm: VmHost;
  vmTasks: VmTasks;
  agents: AgentHost;
  /** The resumed session's /model choice back in force (or the configured model, said, when it is no longer served). */
  restoreModel: (file: SessionFile) => Promise<void>;
  confirm: (question: string, asked?: { initial?: boolean }) => Promise<boolean>;
}

/** Builds the hosts in their order: MCP, models, sessions, the vm side, vm-agent tasks, the agents. */
export async function createHosts(
  options: HostOptions,
  { paths, loaded, audit, root }: { paths: CadrePaths; loaded: LoadedConfig; audit: AuditTrail; root: () => RootRef },
): Promise<AppHosts> {
  const { cwd, env, sink } = options;
  const recordAudit = (type: string, data: Record<string, unknown>): void => auditOf(root())?.send({ type: 'audit.record', recordType: type, data });
  const sessionActor = () => sessionOf(root());
  const mcp = createMcpManager({ servers: loaded.config.mcp.servers, cwd, sink, version: cadreVersion });
  const models = createModelHost({
    config: loaded.config, env, sink, extraTools: () => mcp.tools(),
    ...(options.interactive ? { ask: (question: string) => askYesNo(question, false) } : {}),
  });
  const sessions: SessionHost = await createSessionHost({ paths, sink, budgetLimit: loaded.config.vm.tokenBudget, resume: options.resume });
  const vm = createVmHost({
    paths, config: loaded.config, env, sink, audit: recordAudit, version: cadreVersion, root, session: sessionActor, ...(options.sandboxes ? { sandboxes: options.sandboxes } : {}),
  });
  const vmTasks = createVmTasks({ vm, sink, audit: recordAudit, session: sessionActor });
  const agents = createAgentHost({ cwd, env, config: loaded.config, sink, audit: recordAudit, session: sessionActor, models, sessionId: audit.session, vmAttempt: vmTasks.attempt });

  const restoreModel = (file: SessionFile): Promise<void> => restoreSessionModel({
    saved: savedSession(file).model, models, sink, audit: recordAudit,
    forget: () => sessionActor().send({ type: 'session.model.set', model: null }),
  });

  const confirm = (question: string, asked: { initial?: boolean } = {}): Promise<boolean> => (options.interactive ? askYesNo(question, asked.initial ?? true) : Promise.resolve(false));

  return { root, recordAudit, sessionActor, mcp, models, sessions, vm, vmTasks, agents, restoreModel, confirm };
}

/** What command handlers may use of the running system, over the hosts. */
export function createRuntime(options: HostOptions, { loaded, trust }: { loaded: LoadedConfig; trust: FolderTrust }, hosts: AppHosts): Runtime {
  const { root, sessions, vm, vmTasks, agents, confirm } = hosts;
  return {
    version: cadreVersion,
    cwd: options.cwd,
    session: {
      view: () => sessions.view(root()),
      send: (event) => hosts.sessionActor().send(event),
    },
    saveSession: async (name) => {
      const saved = await sessions.save(root(), name);
      await vm.noteSession(name);
      return saved;
    },
    resumeSession: async (name) => {
      const live = sessions.view(root()).tasks;
      if (live.length > 0) {
        throw new CadreError('session.busy', `Cannot resume "${name}" while task${live.length > 1 ? 's' : ''} ${live.join(', ')} ${live.length > 1 ? 'are' : 'is'} running in this session.`, {
          remedy: 'wait for them to finish, or stop them with /cancel, then /resume again',
        });
      }
      const file = await sessions.load(name);
      sessions.restore(root(), file);
      await hosts.restoreModel(file);
      const view = sessions.view(root());
      await vm.reattach(view.containers, view.currentContainer);
      await vmTasks.offerInterrupted(view.containers, { interactive: options.interactive, signal: new AbortController().signal, confirm });
      return sessions.view(root());
    },
    listSessions: () => sessions.list(),
    audit: hosts.recordAudit,
    describeModel: () => agents.describeModel(),
    config: loaded.config,
    folderTrust: trust,
    models: hosts.models,
    mcp: hosts.mcp,
    agents,
    vm,
    vmTasks,
  };
}

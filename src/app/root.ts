// The composition root: the one place where the pure machines get their real effects and the actors start.
import { stat } from 'node:fs/promises';
import { journalDir } from '../agents/plan/paths.js';
import { createActor, fromPromise, waitFor, type Actor, type InspectionEvent } from 'xstate';
import { cliMachine } from '../../machines/cli.machine.js';
import { exitCodes, type ExitCode } from '../errors.js';
import { commandRegistry } from '../commands/index.js';
import { loadConfig } from '../store/config.js';
import { decideFolderTrust, folderTrustNote, type FolderTrust } from './folder-trust.js';
import { resolvePaths, type CadrePaths } from '../store/paths.js';
import { cadreVersion } from '../version.js';
import { say, type OutputSink } from '../output.js';
import { reportFailure } from '../cli/sink.js';
import type { Runtime } from './runtime.js';
import type { LoopTarget } from '../cli/prompt-loop.js';
import { dispatchLine, type DispatchOutcome } from '../cli/dispatch.js';
import { openAuditTrail, type AuditTrail } from './audit-trail.js';
import { sessionMachine } from '../../machines/session.machine.js';
import { createHosts, createRuntime, type AppHosts } from './app-hosts.js';
import type { SandboxesChoice } from './vm-engine.js';

export interface AppOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  sink: OutputSink;
  interactive: boolean;
  /** A saved session to resume at start. */
  resume?: string;
  /** The folder's trust, settled before start (default: the remembered answer or CADRE_TRUST_FOLDER, never a question). */
  trust?: FolderTrust;
  inspect?: (event: InspectionEvent) => void;
  /** Where sandboxes run, when not on the Docker engine of vm.engine (a backend kept in memory, for one). */
  sandboxes?: SandboxesChoice;
}

export interface App {
  paths: CadrePaths;
  runtime: Runtime;
  /** Runs one entry (a slash command or a follow-up) to completion. */
  submit(text: string): Promise<DispatchOutcome>;
  /** Ctrl-C: aborts the running command, or arms the exit at an idle prompt. */
  interrupt(): void;
  /** Stops the running command, if any, without arming anything at an idle prompt (cadre is about to shut down). */
  stopCommand(): void;
  loopTarget(): LoopTarget;
  /** At the prompt: offers to resume the session a crash left behind. */
  offerCrashRecovery(): Promise<void>;
  shutdown(): Promise<void>;
}

type CliActor = Actor<typeof cliMachine>;

/** Finishes or rolls back a plan apply a crash interrupted in this project, and says which (before anything else runs). */
async function recoverPlans(cwd: string, sink: OutputSink): Promise<{ label: string; outcome: string; conflicts: string[] }[]> {
  if (!(await stat(journalDir(cwd)).then(() => true, () => false))) return [];
  const { recoverInterruptedPlans } = await import('../agents/plan/apply.js');
  const recoveries = await recoverInterruptedPlans(cwd).catch((error: unknown) => {
    sink({ type: 'output.error', code: 'plan.recovery-failed', message: `A plan apply that cadre was interrupted in could not be finished or rolled back: ${error instanceof Error ? error.message : String(error)}`, remedy: `check ${journalDir(cwd)} and the files it names; git status shows what changed` });
    return [];
  });
  for (const { label, outcome, conflicts } of recoveries) {
    sink(say(outcome === 'finished'
      ? `cadre stopped while applying ${label}; every new file was already saved, so the apply was finished now. /undo restores the files as they were before.`
      : `cadre stopped while applying ${label}, before any file was changed; it was rolled back: your files are as they were.`, 'warn'));
    if (conflicts.length) sink(say(`These files were changed after cadre stopped and were left as you have them: ${conflicts.join(', ')}.`, 'warn'));
  }
  return recoveries;
}

/** The root's machine with its real effects: the hosts' actor logic, the command runner and the shut-down. */
function provideCliMachine(options: AppOptions, hosts: AppHosts, runtime: Runtime, audit: AuditTrail) {
  const { cwd, sink } = options;
  const { root, sessions, vm, agents, confirm } = hosts;
  return cliMachine.provide({
    actors: {
      audit: audit.logic,
      session: sessionMachine.provide({ actors: { task: agents.taskLogic } }),
      container: vm.containerLogic,
      pool: vm.poolLogic,
      runCommand: fromPromise(async ({ input, signal }) => {
        const outcome = await dispatchLine(input.text, { cwd, emit: sink, signal, interactive: options.interactive, confirm, registry: commandRegistry, runtime });
        return { exitCode: outcome.exitCode, exit: outcome.exit };
      }),
      shutDown: fromPromise(async () => {
        await vm.drainPool();
        runtime.audit('session.ended', { session: sessions.view(root()).name });
      }),
    },
    actions: {
      reportError: (_, params) => void reportFailure(params.error, sink),
      announceExitArmed: () => sink({ type: 'output.message', level: 'dim', text: 'Press Ctrl-C again to exit (or Ctrl-D). The session is saved automatically.' }),
      announceInterrupted: () => sink({ type: 'output.message', level: 'warn', text: 'Interrupted.' }),
      reportAuditFailure: (_, params) => sink({ type: 'output.error', code: 'audit.failed', message: `The audit trail could not be written: ${params.message}`, remedy: params.remedy }),
    },
  });
}

/** Watches the session for autosave; one resumed at start (--resume) is restored first, then its model, containers and interrupted tasks. */
async function openSessionAtStart(cli: CliActor, hosts: AppHosts, options: AppOptions): Promise<void> {
  const { sessions, vm, vmTasks } = hosts;
  const resumedAtStart = sessions.resumed();
  if (resumedAtStart) sessions.restore(cli, resumedAtStart);
  sessions.watch(cli);
  if (resumedAtStart) {
    await hosts.restoreModel(resumedAtStart);
    const view = sessions.view(cli);
    await vm.reattach(view.containers, view.currentContainer);
    await vmTasks.offerInterrupted(view.containers, { interactive: options.interactive, signal: new AbortController().signal, confirm: hosts.confirm });
  }
}

/** The app's controls over the started root actor. */
function appControls(cli: CliActor, { options, paths, runtime, hosts, audit }: { options: AppOptions; paths: CadrePaths; runtime: Runtime; hosts: AppHosts; audit: AuditTrail }): App {
  const { sink } = options;
  const { sessions, vm, mcp, confirm } = hosts;

  const submit = async (text: string): Promise<DispatchOutcome> => {
    if (cli.getSnapshot().status !== 'active') return { exitCode: exitCodes.ok, exit: true };
    cli.send({ type: 'input.line', text });
    const settled = await waitFor(cli, (s) => !s.matches('dispatching'), { timeout: Infinity });
    // What the command changed is on disk before the prompt comes back: a crash right after loses none of it.
    if (settled.status === 'active') await sessions.autosave(cli);
    return { exitCode: settled.context.lastExitCode as ExitCode, exit: settled.status === 'done' || settled.matches('exiting') || settled.matches('stopped') };
  };

  return {
    paths,
    runtime,
    submit,
    interrupt: () => cli.send({ type: 'input.interrupt' }),
    stopCommand: () => {
      if (cli.getSnapshot().matches('dispatching')) cli.send({ type: 'input.interrupt' });
    },
    loopTarget: () => ({
      submit: async (text) => ({ exit: (await submit(text)).exit }),
      interrupt: async () => {
        cli.send({ type: 'input.interrupt' });
        const s = cli.getSnapshot();
        return { exit: s.status === 'done' || s.matches('exiting') || s.matches('stopped') };
      },
      endOfInput: async () => {
        cli.send({ type: 'input.eof' });
      },
    }),
    offerCrashRecovery: async () => {
      const crashed = sessions.crashed();
      if (!crashed) return;
      const resume = await confirm(`cadre stopped unexpectedly during session "${crashed.name}" (${crashed.savedAt}). Resume it?`);
      await sessions.crashOfferAnswered();
      if (!resume) {
        sink({ type: 'output.message', level: 'dim', text: `Kept it as "${crashed.keptAs}": /resume ${crashed.keptAs} brings it back later.` });
        return;
      }
      await runtime.resumeSession(crashed.keptAs);
      sink({ type: 'output.message', level: 'success', text: `Resumed "${crashed.name}".` });
    },
    shutdown: async () => {
      if (cli.getSnapshot().status === 'active') {
        if (!cli.getSnapshot().matches('exiting')) cli.send({ type: 'input.eof' });
        await waitFor(cli, (s) => s.status !== 'active', { timeout: 10_000 }).catch(() => undefined);
      }
      await vm.close();
      await mcp.close();
      await sessions.close();
      await audit.close();
    },
  };
}

export async function startApp(options: AppOptions): Promise<App> {
  const { cwd, env, sink } = options;
  const paths = resolvePaths({ cwd, env });
  const trust = options.trust ?? await decideFolderTrust({ cwd, env });
  const loaded = await loadConfig({ cwd, env, ...(trust.trusted ? { trustedProject: trust.fingerprint } : {}) });
  const trustNote = folderTrustNote(trust, paths, loaded.ignored);
  if (trustNote) sink(trustNote);
  const audit = await openAuditTrail({ paths });
  const recovered = await recoverPlans(cwd, sink);
  // Build order: the hosts first (the root's logic is made of them), then the root actor `cli`. The hosts look actors up
  // only when they run, through this closure over `cli`, which is started before any of them is called.
  const hosts = await createHosts(options, { paths, loaded, audit, root: () => cli });
  const runtime = createRuntime(options, { loaded, trust }, hosts);
  const { sessions } = hosts;

  const cli: CliActor = createActor(provideCliMachine(options, hosts, runtime, audit), {
    input: { cwd, session: sessions.initialInput() },
    ...(options.inspect ? { inspect: options.inspect } : {}),
  });
  cli.subscribe({
    error: (error) => {
      reportFailure(error, sink);
      void sessions.autosave(cli);
    },
  });
  cli.start();
  await openSessionAtStart(cli, hosts, options);
  runtime.audit('session.started', { session: sessions.view(cli).name, cwd, version: cadreVersion });
  if (trustNote?.type === 'output.result') runtime.audit('folder.trust', trustNote.data as Record<string, unknown>);
  for (const recovery of recovered) runtime.audit('plan.recovered', { ...recovery });
  await waitFor(cli, (s) => !s.matches('starting'));
  hosts.vm.sweepInBackground({ interactive: options.interactive });
  return appControls(cli, { options, paths, runtime, hosts, audit });
}

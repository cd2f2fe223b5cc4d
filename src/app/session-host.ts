// The session's life on disk: its name, autosave after every change, crash recovery, /save and /resume.
import { readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { Subscription } from 'xstate';
import type { SessionInput, SessionRestore } from '../../machines/session.machine.js';
import { expectedFailure, isCadreError } from '../errors.js';
import { createAutosaver, findCrashedSession, type Autosaver } from '../store/autosave.js';
import type { CadrePaths } from '../store/paths.js';
import { writeFileAtomic } from '../store/atomic-write.js';
import { autosaveLockName, crashOfferName } from '../store/crash-lock.js';
import { transcriptEntrySchema, type SessionData, type SessionFile } from '../store/session-file.js';
import { memoryOf } from '../agents/session-state.js';
import { listSessions, loadSession, saveSession } from '../store/sessions.js';
import { cadreVersion } from '../version.js';
import type { OutputSink } from '../output.js';
import type { SessionListing, SessionView } from './runtime.js';
import { sessionOf, type SystemOwner } from './actors.js';

/** The root actor, as far as this module needs it. */
type RootActor = SystemOwner;

export interface CrashedSession {
  name: string;
  savedAt: string;
  /** The saved-session name it was kept under. */
  keptAs: string;
}

export interface SessionHost {
  initialInput(): SessionInput;
  view(root: RootActor): SessionView;
  save(root: RootActor, name: string): Promise<{ file: string; bytes: number }>;
  load(name: string): Promise<SessionFile>;
  /** Puts a saved session in place of the running one (the session actor stays; its context is replaced by message). */
  restore(root: RootActor, file: SessionFile): void;
  list(): Promise<SessionListing[]>;
  /** Autosaves the session after every state change of the given root. */
  watch(root: RootActor): void;
  autosave(root: RootActor): Promise<void>;
  crashed(): CrashedSession | undefined;
  /** The crash offer was answered (or told): it is not made again. */
  crashOfferAnswered(): Promise<void>;
  /** The saved file this run resumed at start (--resume), if any. */
  resumed(): SessionFile | undefined;
  close(): Promise<void>;
}

const stamp = (): string => new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);

function dataOf(root: RootActor): SessionData {
  return { cadreVersion, snapshot: sessionOf(root).getPersistedSnapshot() };
}

const tokens = z.number().int().min(0);
/**
 * The persisted session context as far as a resume uses it. The file comes from disk: each field is checked, and one that
 * does not fit is left at its default (the file itself stays as it is).
 */
const savedContextSchema = z.looseObject({
  mode: z.enum(['approve', 'auto']).optional().catch(undefined),
  agent: z.enum(['universal-agent', 'vm-agent']).optional().catch(undefined),
  transcript: z.array(transcriptEntrySchema).optional().catch(undefined),
  usage: z.looseObject({ inputTokens: tokens, outputTokens: tokens }).optional().catch(undefined),
  agentMemory: z.record(z.string(), z.unknown()).optional().catch(undefined),
  budget: z.looseObject({ used: tokens }).optional().catch(undefined),
  containers: z.array(z.string()).optional().catch(undefined),
  currentContainer: z.string().nullable().optional().catch(undefined),
  model: z.string().min(1).nullable().optional().catch(undefined),
});

function savedContext(file: SessionFile): z.infer<typeof savedContextSchema> {
  const parsed = savedContextSchema.safeParse((file.snapshot as { context?: unknown } | null)?.context ?? {});
  return parsed.success ? parsed.data : {};
}

/** The session a file holds: its actor's persisted context (files saved before it held everything carry some fields beside it). */
export function savedSession(file: SessionFile): SessionRestore {
  const context = savedContext(file);
  const containers = context.containers ?? [];
  const transcript = context.transcript ?? file.transcript ?? [];
  return {
    name: file.name,
    mode: context.mode ?? file.mode ?? 'approve',
    agent: context.agent ?? file.agent ?? 'universal-agent',
    transcript: transcript.map((entry) => ({ role: entry.role === 'tool' ? 'system' : entry.role, text: entry.text, at: typeof entry.at === 'number' ? entry.at : Date.parse(entry.at ?? '') || 0 })),
    usage: context.usage ?? file.usage ?? { inputTokens: 0, outputTokens: 0 },
    agentMemory: context.agentMemory ?? { ...memoryOf(file.agentState) },
    budgetUsed: context.budget?.used ?? 0,
    containers,
    currentContainer: typeof context.currentContainer === 'string' && containers.includes(context.currentContainer) ? context.currentContainer : (containers.at(-1) ?? null),
    model: context.model ?? null,
  };
}

/** A session with nothing in it: no transcript, no container, no conversation. Nothing to resume. */
function isEmptySession(file: SessionFile): boolean {
  const saved = savedSession(file);
  return saved.transcript.length === 0 && saved.containers.length === 0 && memoryOf(saved.agentMemory).conversation.length === 0;
}

/** The crash offer that was made and never answered (cadre died while asking): it is asked again. */
async function pendingOffer(paths: CadrePaths): Promise<CrashedSession | undefined> {
  try {
    const offer = JSON.parse(await readFile(join(paths.sessionsDir, crashOfferName), 'utf8')) as CrashedSession;
    await stat(join(paths.sessionsDir, `${offer.keptAs}.json`));
    return offer;
  } catch {
    return undefined;
  }
}

/**
 * Moves the autosave a crash left behind aside under a resumable name, so the new autosave cannot overwrite it, and
 * records the offer until it is answered. An empty session is dropped (nothing to resume); an offer a crash interrupted is
 * made again.
 */
async function keepCrashedSession(paths: CadrePaths, sink: OutputSink): Promise<CrashedSession | undefined> {
  try {
    const crashed = await findCrashedSession(paths.sessionsDir);
    if (!crashed) return await pendingOffer(paths);
    // The lock of a slot of its own goes with its autosave (the project's first lock is taken over by this start).
    const dropLock = async (): Promise<void> => {
      if (crashed.lockFile !== join(paths.sessionsDir, autosaveLockName)) await rm(crashed.lockFile, { force: true });
    };
    if (isEmptySession(crashed.data)) {
      await rm(crashed.file, { force: true });
      await dropLock();
      return await pendingOffer(paths);
    }
    const keptAs = `crashed-${stamp()}`;
    await rename(crashed.file, join(paths.sessionsDir, `${keptAs}.json`));
    const offer = { name: crashed.data.name, savedAt: crashed.data.savedAt, keptAs };
    await writeFileAtomic(join(paths.sessionsDir, crashOfferName), `${JSON.stringify(offer)}\n`);
    await dropLock();
    return offer;
  } catch (error) {
    const expected = expectedFailure(error);
    if (!expected) throw error;
    // The folder itself is unusable: the autosave, which cannot work either, says so once.
    if (!isCadreError(error)) return undefined;
    const keptAs = `.autosave.unreadable-${stamp()}.json`;
    const unreadable = (error as { file?: unknown }).file;
    await rename(typeof unreadable === 'string' ? unreadable : join(paths.sessionsDir, '.autosave.json'), join(paths.sessionsDir, keptAs)).catch(() => undefined);
    sink({ type: 'output.message', level: 'warn', text: `The session a crash left behind could not be read (${error.message}); it was kept as ${join(paths.sessionsDir, keptAs)}.` });
    return undefined;
  }
}

/** The vm-agent tasks the crash interrupted in the kept session's containers, said with the crash: /resume shows them. */
async function interruptedTasksNote(paths: CadrePaths, crashed: CrashedSession): Promise<string> {
  try {
    const { interruptedMarkers } = await import('../agents/vm/task-marker.js');
    const markers = await interruptedMarkers(paths.workspacesDir, savedSession(await loadSession(paths.sessionsDir, crashed.keptAs)).containers);
    return markers.map((marker) => ` vm-agent task ${marker.taskId} in ${marker.containerId} was interrupted: the /resume shows what it did, and /agent vm-agent --continue --container ${marker.containerId} then continues it.`).join('');
  } catch {
    return '';
  }
}

export async function createSessionHost(options: { paths: CadrePaths; sink: OutputSink; budgetLimit: number; resume?: string }): Promise<SessionHost> {
  const { paths, sink } = options;
  const resumed = options.resume ? await loadSession(paths.sessionsDir, options.resume) : undefined;
  const crashed = await keepCrashedSession(paths, sink);
  if (crashed && !process.stdin.isTTY) {
    sink({ type: 'output.message', level: 'warn', text: `cadre stopped unexpectedly during session "${crashed.name}"; it was kept: /resume ${crashed.keptAs} brings it back.${await interruptedTasksNote(paths, crashed)}` });
    await rm(join(paths.sessionsDir, crashOfferName), { force: true });
  }
  const name = resumed?.name ?? `session-${stamp()}`;
  let autosaver: Autosaver | undefined;
  try {
    autosaver = await createAutosaver(paths.sessionsDir);
  } catch (error) {
    const expected = expectedFailure(error);
    if (!expected) throw error;
    sink({ type: 'output.message', level: 'warn', text: `${expected.message} This session is not autosaved (/save may fail too). To fix: ${expected.remedy}.` });
  }
  let subscription: Subscription | undefined;
  let failedOnce = false;

  const autosave = async (root: RootActor): Promise<void> => {
    if (!autosaver) return;
    try {
      await autosaver.save(sessionOf(root).getSnapshot().context.name, dataOf(root));
    } catch (error) {
      if (failedOnce) return;
      failedOnce = true;
      sink({ type: 'output.message', level: 'warn', text: `Autosave failed: ${error instanceof Error ? error.message : String(error)}. Use /save NAME to keep this session.` });
    }
  };

  return {
    initialInput: () => ({ name, budgetLimit: options.budgetLimit }),
    view: (root) => {
      const snapshot = sessionOf(root).getSnapshot();
      const { context } = snapshot;
      return {
        name: context.name,
        state: JSON.stringify(snapshot.value).replace(/[{}"]/g, '').replace(/:/g, '.'),
        mode: context.mode,
        agent: context.agent,
        usage: context.usage,
        budget: context.budget,
        containers: context.containers,
        currentContainer: context.currentContainer,
        tasks: context.tasks,
        queuedTasks: context.vmQueue,
        transcriptLength: context.transcript.length,
      };
    },
    save: async (root, saveName) => {
      sessionOf(root).send({ type: 'session.renamed', name: saveName });
      const saved = await saveSession(paths.sessionsDir, saveName, dataOf(root));
      const { size } = await stat(saved.file);
      return { file: saved.file, bytes: size };
    },
    load: (loadName) => loadSession(paths.sessionsDir, loadName),
    restore: (root, file) => sessionOf(root).send({ type: 'session.restored', saved: savedSession(file) }),
    list: async () => (await listSessions(paths.sessionsDir)).map((s) => ({ name: s.name, savedAt: s.savedAt, size: s.size, ...(s.unreadable ? { unreadable: s.reason ?? 'unreadable' } : {}) })),
    watch: (root) => {
      subscription?.unsubscribe();
      subscription = sessionOf(root).subscribe(() => void autosave(root));
      void autosave(root);
    },
    autosave,
    crashed: () => crashed,
    crashOfferAnswered: () => rm(join(paths.sessionsDir, crashOfferName), { force: true }),
    resumed: () => resumed,
    // Every change was autosaved as it happened; closing waits for the last write and drops the crash lock.
    close: async () => {
      subscription?.unsubscribe();
      await autosaver?.close({ clean: true });
    },
  };
}


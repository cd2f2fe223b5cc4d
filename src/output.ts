// The output events that actors and commands emit; the text and JSON-lines renderers subscribe to them.
import { isCadreError } from './errors.js';

export type OutputLevel = 'info' | 'success' | 'warn' | 'dim';

/**
 * Set on text that came from a sandbox container (its commands' output, the runner's messages): what it came from,
 * e.g. `vm-agent` or a container id. The text renderer strips its control sequences and marks every line with it.
 */
export type OutputOrigin = { origin?: string };

export type OutputEvent =
  /** A line (or block) of text for people. */
  | ({ type: 'output.message'; level: OutputLevel; text: string } & OutputOrigin)
  /** An expected failure: what went wrong, and what to do. */
  | { type: 'output.error'; code: string; message: string; remedy: string }
  /** A structured result. `text` is its rendering for people; `data` is what --json prints. */
  | { type: 'output.result'; kind: string; data: unknown; text: string }
  /**
   * Progress on long work (clones, installs, container starts, scans). A `transient` one is a status line (the wait for
   * a model, with elapsed time and tokens so far): drawn in place on a terminal and erased when done, never in a log.
   */
  | ({ type: 'output.progress'; id: string; label: string; current?: number; total?: number; done?: boolean; transient?: boolean; elapsedMs?: number; tokens?: number } & OutputOrigin)
  /** A piece of the model's text as it streams (the renderer ends the line before other output). */
  | { type: 'output.model-text'; text: string }
  /** Live output of a running process. */
  | ({ type: 'output.stream'; stream: 'stdout' | 'stderr'; chunk: string } & OutputOrigin);

export type OutputSink = (event: OutputEvent) => void;

export const say = (text: string, level: OutputLevel = 'info'): OutputEvent => ({ type: 'output.message', level, text });

export const result = (kind: string, data: unknown, text: string): OutputEvent => ({ type: 'output.result', kind, data, text });

/** Shows an expected failure once, with its remedy (the task's outcome then carries its code and exit code), and rethrows it. */
export async function reportingFailures<T>(sink: OutputSink, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // A step stopped through its signal (the task cancelled, timed out or out of budget) is not reported: the task's outcome says why it ended.
    if (isCadreError(error) && !signal?.aborted) sink({ type: 'output.error', code: error.code, message: error.message, remedy: error.remedy });
    throw error;
  }
}

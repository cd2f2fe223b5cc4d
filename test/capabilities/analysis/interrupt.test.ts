// An aborted signal stops runAnalysis and analyzeProject mid-way: an `interrupted` error, no progress after it, no cache written (real project: nestjs-boilerplate).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAnalysis } from '../../../src/capabilities/analysis/index.js';
import { analyzeProject } from '../../../src/project/context.js';
import { unpackCorpus, type UnpackedProject } from '../../support/corpus.js';

let project: UnpackedProject;
beforeEach(() => {
  project = unpackCorpus('nestjs-boilerplate');
});
afterEach(() => project.dispose());

/** Aborts after the tenth file; returns how many progress reports came in all. */
function abortAfterTen(): { controller: AbortController; progress: () => number; onProgress: (done: number) => void } {
  const controller = new AbortController();
  let reports = 0;
  return {
    controller,
    progress: () => reports,
    onProgress: (done) => {
      reports += 1;
      if (done === 10) controller.abort();
    },
  };
}

describe('Ctrl-C (an aborted signal)', () => {
  it.each(['security', 'quality', 'performance'] as const)('stops analyze %s and writes no cache', async (kind) => {
    const abort = abortAfterTen();
    await expect(runAnalysis(kind, { cwd: project.root, signal: abort.controller.signal, onProgress: abort.onProgress })).rejects.toMatchObject({ code: 'interrupted', exitCode: 130 });
    expect(abort.progress()).toBe(10);
    expect(existsSync(join(project.root, '.cadre', `analysis-${kind}.json`))).toBe(false);
    expect(existsSync(join(project.root, '.cadre', `analysis-${kind}.report.json`))).toBe(false);
  });

  it('stops /analyze-project and leaves the previous context untouched', async () => {
    const abort = abortAfterTen();
    await expect(analyzeProject({ cwd: project.root, signal: abort.controller.signal, onProgress: abort.onProgress })).rejects.toMatchObject({ code: 'interrupted' });
    expect(abort.progress()).toBe(10);
    expect(existsSync(join(project.root, '.cadre', 'context.json'))).toBe(false);
  });

  it('stops before anything is read when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runAnalysis('security', { cwd: project.root, signal: controller.signal })).rejects.toMatchObject({ code: 'interrupted' });
    expect(existsSync(join(project.root, '.cadre'))).toBe(false);
  });
});

// The corpus checks cover what MANIFEST.json records: every check that passed on a project as shipped is run after generation
// (or is the offline install or workaround it needs), so a check cannot be silently left out.
import { describe, expect, it } from 'vitest';
import { corpusEntry, generationProjects } from '../support/corpus.js';
import { projectChecks } from '../corpus-checks/support/projects.js';

/** Passing MANIFEST steps that are the install itself, done by the dependency cache. */
const installSteps = new Set(['install without scripts', 'install without the Cypress binary']);

describe('corpus checks against MANIFEST.json', () => {
  it.each(generationProjects)('%s: every passing check and offline workaround is run', (name) => {
    const entry = corpusEntry(name);
    const spec = projectChecks(name, '/copy');
    const covered = new Set([...spec.prepare.map((step) => step.step), ...spec.checks.map((check) => check.step)]);
    const passing = entry.checks.filter((check) => check.result === 'pass' && !installSteps.has(check.step)).map((check) => check.step);
    expect(passing.filter((step) => !covered.has(step))).toEqual([]);
    // A check run as "same failures" is one MANIFEST records as failing.
    for (const check of spec.checks.filter((candidate) => candidate.expect === 'same-failures')) {
      expect(entry.checks.find((recorded) => recorded.step === check.step)?.result, `${name}: ${check.step}`).not.toBe('pass');
    }
  });
});

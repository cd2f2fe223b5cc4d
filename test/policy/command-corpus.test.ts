// Every line of the command corpora is a case: the adversarial spellings are denied with their rule, the rest allowed.
import { describe, expect, it } from 'vitest';
import { checkCommand } from '../../src/policy/command-policy.js';
import { readCommandCorpus } from './corpus.js';

const denied = readCommandCorpus(new URL('./corpus/denied.txt', import.meta.url), '*');
const allowed = readCommandCorpus(new URL('./corpus/allowed.txt', import.meta.url), 'policy.allowed');

describe('the command corpus', () => {
  it('holds enough spellings', () => {
    expect(denied.length).toBeGreaterThanOrEqual(200);
    expect(allowed.length).toBeGreaterThanOrEqual(60);
  });

  it.each(denied)('denies line $line: $input', async ({ input, rule }) => {
    const decision = await checkCommand(input);
    expect(decision.decision).toBe('deny');
    if (rule !== '*') expect(decision.rule).toBe(rule);
  });

  it.each(allowed)('allows line $line: $input', async ({ input }) => {
    expect(await checkCommand(input)).toMatchObject({ decision: 'allow', rule: 'policy.allowed' });
  });
});

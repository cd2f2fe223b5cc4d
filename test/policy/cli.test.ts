// `cadre policy check`: the decision and its rule, as text or JSON, with distinct exit codes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodes } from '../../src/errors.js';
import { policyCheck, policyDeniedExitCode } from '../../src/policy/cli.js';
import { decisionSchema } from '../../src/policy/decision.js';

describe('policyCheck', () => {
  it('prints an allowed command with exit code 0', async () => {
    const result = await policyCheck({ command: 'git status', json: false });
    expect(result.exitCode).toBe(exitCodes.ok);
    expect(result.text).toBe('allowed (git): policy.allowed\n  git: allowed, and nothing blocked was found.');
  });

  it('prints the rule and reason of a denial with a distinct exit code', async () => {
    const result = await policyCheck({ command: 'env /bin/rm --recursive --force /', json: false });
    expect(result.exitCode).toBe(policyDeniedExitCode);
    const { policyDenied, ...others } = exitCodes;
    expect(policyDenied).toBe(policyDeniedExitCode);
    expect(Object.values(others)).not.toContain(policyDeniedExitCode);
    expect(result.text.split('\n')[0]).toBe('denied (rm): policy.blocked.rm-recursive-force');
  });

  it('prints JSON that validates against the decision schema', async () => {
    const result = await policyCheck({ command: 'sudo -u root ls', json: true });
    const parsed = JSON.parse(result.text) as { input: unknown; decision: unknown };
    expect(parsed.input).toEqual({ command: 'sudo -u root ls' });
    expect(decisionSchema.parse(parsed.decision)).toMatchObject({ decision: 'deny', rule: 'policy.blocked.sudo', program: 'sudo' });
    expect(result.json.decision?.rule).toBe('policy.blocked.sudo');
  });

  it('checks paths against the given workspace', async () => {
    const workspace = mkdtempSync(path.join(tmpdir(), 'cadre-policy-cli-'));
    try {
      const inside = await policyCheck({ path: 'src/a.ts', json: true, workspace });
      expect(inside.exitCode).toBe(exitCodes.ok);
      const outside = await policyCheck({ path: '../../etc/passwd', json: false, workspace });
      expect(outside.exitCode).toBe(policyDeniedExitCode);
      expect(outside.text).toContain('policy.path.outside-workspace');
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it('is a usage error with neither or both of command and path', async () => {
    expect((await policyCheck({ json: false })).exitCode).toBe(exitCodes.usage);
    const both = await policyCheck({ command: 'ls', path: 'x', json: true });
    expect(both.exitCode).toBe(exitCodes.usage);
    expect(JSON.parse(both.text)).toMatchObject({ error: { code: 'policy.usage' } });
  });
});

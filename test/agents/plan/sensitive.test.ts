// When /auto must still ask: overwriting or deleting a file the person wrote is sensitive; files an earlier plan created are not.
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../../src/agents/plan/apply.js';
import { isSecuritySensitive } from '../../../src/agents/plan/sensitive.js';
import type { PlanDraft } from '../../../src/capabilities/plan-draft.js';
import { runCli, tempProject } from '../../support/cli.js';
import { makeProject } from '../tools/context.js';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const handWritten = '# shop\n\n## Setup\n\n1. Install Postgres 16.\n2. Copy .env.example to .env and fill in DATABASE_URL.\n3. Run npm ci, then npm run migrate.\n\n## Deploying\n\nAsk Dana for the staging keys.\n';
const rewrite = (content: string): PlanDraft => ({ title: 'Write the README', steps: [{ action: 'modify-file', path: 'README.md', summary: 'README', content }] });

describe('overwriting what the person wrote', () => {
  it('asks when a plan replaces most of an existing file, not when it edits a few lines of it', () => {
    const cwd = makeProject({ 'README.md': handWritten });
    expect(isSecuritySensitive('document the project', rewrite('# shop\n\nA shop.\n'), cwd)).toMatch(/replaces most of README\.md/);
    expect(isSecuritySensitive('document the project', rewrite(handWritten.replace('Postgres 16', 'Postgres 17')), cwd)).toBeNull();
  });

  it('asks when a drafted step takes away lines of a file the person wrote (PlanStep.overwrites), even a few', () => {
    const cwd = makeProject({ 'src/app.js': 'const express = require("express");\nconst app = express();\napp.listen(3000);\n' });
    const edit: PlanDraft = { title: 'Add a route', steps: [{ action: 'modify-file', path: 'src/app.js', summary: 'route', content: 'const express = require("express");\nconst app = express();\napp.get("/x", (req, res) => res.end());\napp.listen(Number(process.env.PORT));\n', overwrites: { removedLines: 1 } }] };
    expect(isSecuritySensitive('add an endpoint', edit, cwd)).toMatch(/changes or removes 1 existing line of src\/app\.js/);
    expect(isSecuritySensitive('add an endpoint', { ...edit, steps: [{ ...edit.steps[0]!, overwrites: { removedLines: 0 } }] }, cwd)).toBeNull();
  });

  it('does not ask for a file an earlier plan of cadre created', async () => {
    const cwd = makeProject({});
    await applyPlan({ title: 'Create', steps: [{ action: 'create-file', path: 'README.md', summary: 'README', content: handWritten }] }, cwd, { planId: 'p0' });
    expect(isSecuritySensitive('document the project', rewrite('# shop\n\nA shop.\n'), cwd)).toBeNull();
  });

  it('in /auto, the offline README generator does not replace a hand-written README without asking', async () => {
    const { project, home } = await tempProject();
    await writeFile(join(project, 'README.md'), handWritten);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', dependencies: { express: '^4.19.0' } }));
    const run = await runCli(['-c', '/auto on', '-c', '/agent universal-agent "write the README"'], { cwd: project, home });
    const readme = await readFile(join(project, 'README.md'), 'utf8');
    // Either the generator kept the person's sections (merging), or the plan asked first: the setup steps are never lost silently.
    expect(run.code === 0 ? readme : handWritten).toContain('Ask Dana for the staging keys.');
    if (run.code !== 0) expect(run.stderr).toMatch(/plan waits for approval/);
  });
});

// propose-plan: the model declares its staged changes complete, with a title and a summary per step.
import { z } from 'zod';
import { defineProjectTool } from './project-files.js';
import { ToolRefusal } from './tool.js';

const actions = ['create-file', 'modify-file', 'delete-file', 'create-tests', 'update-exports', 'add-docs'] as const;

const parameters = z.object({
  title: z.string().min(1).describe('A short title for the plan'),
  steps: z.array(z.object({
    path: z.string().min(1),
    summary: z.string().min(1).describe('What this step changes'),
    action: z.enum(actions).optional().describe('The kind of step, when the file path does not make it obvious'),
  })).default([]).describe('A summary for each staged file'),
});

const fileName = /(?:^|[\s(])((?:[\w@.-]+\/)*[\w@-]+(?:\.[\w-]+)*\.(?:[cm]?[jt]sx?|vue|svelte|css|scss|less|json|md|ya?ml|sql|prisma|html|graphql))(?=$|[\s),.:;!?])/g;
const backticked = /`([^`\n]{1,80})`/g;

/**
 * What the title says the plan changes that its diff lacks: a file it names that no change touches, or `code` in
 * backticks that no changed file contains. A title claiming what the steps do not do is refused before anyone sees it.
 */
function claimsMissing(title: string, changes: { path: string; before: string | null; after: string | null }[]): string[] {
  const missing: string[] = [];
  for (const [, name] of title.matchAll(fileName)) {
    const wanted = (name ?? '').replace(/^\.\//, '');
    if (!changes.some((change) => change.path === wanted || change.path.endsWith(`/${wanted}`))) missing.push(wanted);
  }
  for (const [, code] of title.matchAll(backticked)) {
    const text = (code ?? '').trim();
    if (text && !changes.some((change) => change.path.includes(text) || (change.after ?? change.before ?? '').includes(text))) missing.push(`\`${text}\``);
  }
  return missing;
}

export const proposePlanTool = defineProjectTool({
  name: 'propose-plan',
  kind: 'read',
  description: 'Finish: present the staged changes to the user as a plan for approval. Call it once, after staging every change (write-file, edit-file, delete-file).',
  parameters,
  async execute(params, context) {
    if (context.view.staged().size === 0) throw new ToolRefusal('there are no staged changes; stage them with write-file, edit-file or delete-file first');
    const missing = claimsMissing(params.title, await context.view.changes());
    if (missing.length > 0) {
      throw new ToolRefusal(`the title "${params.title}" names ${missing.join(', ')}, which none of the staged changes ${missing.length === 1 ? 'has' : 'have'}; stage that change, or give a title that says what the staged changes do`);
    }
    context.plan.title = params.title;
    for (const step of params.steps) {
      const relPath = step.path.replace(/^\.\//, '');
      context.plan.summaries.set(relPath, { summary: step.summary, ...(step.action ? { action: step.action } : {}) });
    }
    context.plan.proposed = true;
    return {
      output: `Plan "${params.title}" recorded with ${context.view.staged().size} staged files. It will be shown to the user for approval; end your turn with a short summary and usage examples.`,
      display: `proposed plan "${params.title}"`,
    };
  },
});

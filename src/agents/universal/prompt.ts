// universal-agent's system prompt and the user turn: rules, specialist, capabilities, project context, last plan, /exec output.
import type { PlanDraft } from '../../capabilities/plan-draft.js';
import type { ProjectContext } from '../../project/context.js';
import { capabilityInstructions, specialists, type SpecialistName } from './specialists.js';

/** A capability added through config: a name, a description, instructions and the tools it may use. */
export interface ExtraCapability {
  name: string;
  description: string;
  instructions: string;
  tools: string[];
}

export interface LastPlan {
  plan: PlanDraft;
  status: 'applied' | 'rejected' | 'pending';
  /** Why the user rejected it, when they said. */
  reason?: string;
  /** What verification found after applying. */
  differences?: string[];
}

export interface ExecOutput {
  command: string;
  exitCode: number | null;
  tail: string;
}

const rules = `You are universal-agent, a development assistant working on the user's project on their machine.
Rules:
- Work only through your tools. You cannot run commands: when something must run (tests, a build, a linter), ask the user to run it with \`/exec <command>\`; its output will be given to you on the next turn.
- You have no network access.
- Changes are staged, not written: write-file, edit-file and delete-file add plan steps that the user approves before anything touches the disk. Reads show staged content.
- Limits: no file over 100 KB is written or edited; at most 100 KB of a file is read at once (use line ranges); binary files cannot be modified. Some paths are denied by permissions (.env files, .git, private keys, anything outside the project). A refused tool call says why: adapt, do not retry the same call.
- For a multi-step task, follow this order: (1) analyse the project structure (list, read, search), (2) plan the steps, (3) stage each component, (4) stage tests, (5) stage documentation, then call propose-plan once to request approval, and (6) end with a short summary and usage examples.
- Match the project's existing style, frameworks, theming and test runner.
- If the task needs no file changes (a question, an explanation, a diagnosis), answer in text without proposing a plan.`;

export function systemPrompt(options: {
  specialist: SpecialistName;
  projectContext: ProjectContext | null;
  capabilities: ExtraCapability[];
  lastPlan: LastPlan | null;
}): string {
  const specialist = specialists.find((s) => s.name === options.specialist);
  const facts = options.projectContext ? describeProject(options.projectContext)
    : 'No project context cache yet (the user can build one with /analyze-project); explore with list-files.';
  const capabilities = [
    ...Object.entries(capabilityInstructions).map(([name, text]) => `- ${name}: ${text}`),
    ...options.capabilities.map((c) => `- ${c.name} (${c.description}): ${c.instructions}${c.tools.length ? ` Tools: ${c.tools.join(', ')}.` : ''}`),
  ].join('\n');
  const sections = [rules, specialist?.instructions ?? '', `Capabilities:\n${capabilities}`, `Project:\n${facts}`];
  if (options.lastPlan) sections.push(describeLastPlan(options.lastPlan));
  return sections.filter(Boolean).join('\n\n');
}

function describeProject(context: ProjectContext): string {
  const list = (items: readonly string[]) => (items.length ? items.join(', ') : 'none detected');
  const style = context.style;
  const indent = style.indent.kind === 'tab' ? 'tabs' : `${style.indent.size} spaces`;
  return [
    `Name: ${context.packageJson?.name ?? 'unnamed'}; ${Object.keys(context.files).length} files indexed`,
    `Package manager: ${context.packageManager ?? 'none detected'}`,
    `Frameworks: ${list(context.frameworks)}`,
    `Theming: ${list(context.theming)}`,
    `Test runners: ${list(context.testRunners)}`,
    `Database layer: ${list(context.orm)}`,
    `Code style: ${indent}, ${style.quotes} quotes, ${style.semicolons ? 'semicolons' : 'no semicolons'}, ${style.fileNaming} file names, ${style.identifierNaming} identifiers, ${style.importStyle} modules`,
  ].join('\n');
}

function describeLastPlan(last: LastPlan): string {
  const steps = last.plan.steps.map((step) => `- ${step.action} ${step.path}: ${step.summary}`).join('\n');
  const status = {
    applied: 'was approved and applied; its changes are on disk',
    rejected: `was rejected by the user${last.reason ? ` (reason: ${last.reason})` : ''}; its changes are staged again so you can refine them`,
    pending: 'has not been approved yet; its changes are staged so you can refine them',
  }[last.status];
  const differences = last.differences?.length ? `\nAfter applying, these differences were found: ${last.differences.join('; ')}` : '';
  return `The previous plan "${last.plan.title}" ${status}:\n${steps}${differences}\nA follow-up instruction refines that result.`;
}

/** The words that open the /exec outputs in a user turn (compaction keeps what follows them). */
export const execOutputsHeading = 'Output of the commands I ran with /exec since your last turn (the end of each):';

/** The user's turn: the task plus any /exec output since the last turn. */
export function userTurn(task: string, execOutputs: ExecOutput[]): string {
  if (execOutputs.length === 0) return task;
  const outputs = execOutputs.map((run) => `$ ${run.command}\n(exit code ${run.exitCode ?? 'none: stopped'})\n${run.tail.trimEnd()}`).join('\n\n');
  return `${task}\n\n${execOutputsHeading}\n${outputs}`;
}

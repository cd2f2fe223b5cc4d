// The host's view of the person's project for the tool kernel: reads see the staged plan, writes are staged, the permissions confine every path.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { z } from 'zod';
import type { PlanAction } from '../../capabilities/plan-draft.js';
import type { Permissions } from './permissions.js';
import type { StagedView } from './staged-view.js';
import { defineTool, PathDenial, type AgentTool, type ToolContext, type ToolFiles } from './tool.js';
import { walkProject } from './walk.js';

/** Notes the model attaches to the plan while it works; read when the plan is drafted. */
export interface PlanNotes {
  title?: string;
  summaries: Map<string, { summary: string; action?: PlanAction }>;
  /** Set by propose-plan: the model says the plan is complete. */
  proposed: boolean;
}

/** What universal-agent's own tools (analysis, deletion, the plan) see beyond the files. */
export interface ProjectToolContext extends ToolContext {
  root: string;
  view: StagedView;
  permissions: Permissions;
  plan: PlanNotes;
}

/** A tool that only universal-agent has. */
export const defineProjectTool = <Params extends z.ZodType>(tool: AgentTool<Params, ProjectToolContext>) => defineTool(tool);

/** The project through the staged view: what the plan would leave, confined by the person's permissions. */
export function createProjectFiles(options: { root: string; view: StagedView; permissions: Permissions; plan: PlanNotes }): ToolFiles {
  const { root, view, permissions, plan } = options;
  return {
    root,
    staging: true,
    confine(path, access) {
      const decision = permissions.check(path, access);
      if (!decision.ok) throw new PathDenial(decision.reason);
      return decision.relPath;
    },
    read: (relPath, readOptions) => view.read(relPath, readOptions),
    async isFolder(relPath) {
      return (await stat(join(root, relPath)).catch(() => null))?.isDirectory() ?? false;
    },
    async write(relPath, content, note) {
      await view.stage(relPath, content);
      if (note.summary) plan.summaries.set(relPath, { summary: note.summary });
    },
    async list(relDir) {
      const prefix = relDir === '.' ? '' : `${relDir}/`;
      const walked = await walkProject(root, prefix ? relDir : '');
      const files = new Set(walked.files);
      for (const [path, content] of view.staged()) {
        if (!path.startsWith(prefix)) continue;
        if (content === null) files.delete(path);
        else files.add(path);
      }
      const readable = [...files].filter((path) => permissions.check(path, 'read').ok).sort();
      return { files: readable.map((path) => ({ path, staged: view.staged().has(path) })), truncated: walked.truncated, hidden: files.size - readable.length };
    },
  };
}

/** The context universal-agent's tools run in over `root`. */
export function createProjectToolContext(options: { root: string; view: StagedView; permissions: Permissions; plan: PlanNotes; signal: AbortSignal }): ProjectToolContext {
  return { ...options, files: createProjectFiles(options) };
}

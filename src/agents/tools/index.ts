// The tools universal-agent may use, as one explicit list.
import type { z } from 'zod';
import { analyzeTool } from './analyze.js';
import { deleteFileTool } from './delete-file.js';
import { editFileTool } from './edit-file.js';
import { listFilesTool } from './list-files.js';
import { proposePlanTool } from './propose-plan.js';
import { readFileTool } from './read-file.js';
import { searchTool } from './search.js';
import type { ProjectToolContext } from './project-files.js';
import type { AgentTool } from './tool.js';
import { writeFileTool } from './write-file.js';

export const universalTools: readonly AgentTool<z.ZodType, ProjectToolContext>[] = [
  listFilesTool, readFileTool, searchTool, analyzeTool, writeFileTool, editFileTool, deleteFileTool, proposePlanTool,
];

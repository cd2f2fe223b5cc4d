// The tools the vm-agent runner gives the model, as one explicit list: the kernel's file tools over the workspace, and run-command.
import { editFileTool } from '../../agents/tools/edit-file.js';
import { listFilesTool } from '../../agents/tools/list-files.js';
import { readFileTool } from '../../agents/tools/read-file.js';
import { searchTool } from '../../agents/tools/search.js';
import { writeFileTool } from '../../agents/tools/write-file.js';
import { runCommandTool } from './run-command.js';
import type { RunnerTool } from './run-tool.js';

export const runnerTools: readonly RunnerTool[] = [listFilesTool, readFileTool, searchTool, writeFileTool, editFileTool, runCommandTool];

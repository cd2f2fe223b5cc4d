// The tools the vm-agent runner gives the model, as one explicit list.
import { editFileTool } from './edit-file.js';
import { listFilesTool } from './list-files.js';
import { readFileTool } from './read-file.js';
import { runCommandTool } from './run-command.js';
import { searchTool } from './search.js';
import type { RunnerTool } from './tool.js';
import { writeFileTool } from './write-file.js';

export const runnerTools: readonly RunnerTool[] = [listFilesTool, readFileTool, searchTool, writeFileTool, editFileTool, runCommandTool];

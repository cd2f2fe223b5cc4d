// /analyze-project: builds the project context cache.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const analyzeProjectCommand = defineCommand({
  name: 'analyze-project',
  summary: 'Detect frameworks, theming, code style and tests; build the context cache',
  usage: '/analyze-project',
  args: z.object({}),
  pending: 'project analysis',
});

// /vm-create-pr: commits the container's work on a branch and opens a pull request.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmCreatePrCommand = defineCommand({
  name: 'vm-create-pr',
  summary: "Commit a container's changes on a new branch and open a pull request",
  usage: '/vm-create-pr <container_id> "<title>" "<description>"',
  positionals: ['containerId', 'title', 'description'],
  args: z.object({
    containerId: z.string().min(1).describe('the container id, e.g. vm-3f2a'),
    title: z.string().min(1).describe('the pull request title'),
    description: z.string().default('').describe('the pull request description (may span lines)'),
  }),
  pending: 'pull request support',
});

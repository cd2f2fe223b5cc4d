// /vm-install-deps: installs the project's dependencies in the container.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmInstallDepsCommand = defineCommand({
  name: 'vm-install-deps',
  summary: 'Install dependencies in the container, detecting npm, yarn or pnpm',
  usage: '/vm-install-deps --auto-detect [--container <id>]',
  args: z.object({
    autoDetect: z.boolean().optional().describe('detect the package manager from the lockfile'),
    container: z.string().optional().describe('the container (default: the last created)'),
  }),
  pending: 'the vm-agent',
});

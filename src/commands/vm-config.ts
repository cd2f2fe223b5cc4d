// /vm-config: sets container defaults, or one container's settings.
import { z } from 'zod';
import { defineCommand } from './types.js';

export const vmConfigCommand = defineCommand({
  name: 'vm-config',
  summary: 'Set memory, CPU, timeout, env and network rules for containers',
  usage: '/vm-config [--memory 4GB] [--cpu 2] [--timeout 30] [--env "A=1,B=2"] [--network-isolation] [--allowed-domains "a.com,b.org"] [--container <id>]',
  args: z.object({
    memory: z.string().optional().describe('memory limit with a unit, e.g. 4GB or 512MB'),
    cpu: z.string().optional().describe('CPU cores, at most the host has'),
    timeout: z.string().optional().describe('timeout in minutes'),
    env: z.string().optional().describe('NAME=value pairs, comma-separated'),
    networkIsolation: z.boolean().optional().describe('allow no network at all'),
    allowedDomains: z.string().optional().describe('extra domains, comma-separated (*.domain for subdomains)'),
    container: z.string().optional().describe('apply to this container instead of the defaults'),
  }),
  pending: 'container support',
});

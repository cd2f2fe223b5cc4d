// /auto: toggles autonomous mode (plans apply without step-by-step approval).
import { z } from 'zod';
import { defineCommand } from './types.js';

export const autoCommand = defineCommand({
  name: 'auto',
  summary: 'Toggle autonomous mode: plans apply without step-by-step approval',
  usage: '/auto [on|off]',
  positionals: ['state'],
  args: z.object({ state: z.enum(['on', 'off']).optional().describe('on or off; without it, toggles') }),
  pending: 'the universal-agent',
});

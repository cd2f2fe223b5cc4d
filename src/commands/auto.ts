// /auto: toggles autonomous mode (plans apply without step-by-step approval).
import { z } from 'zod';
import { say } from '../output.js';
import { defineCommand } from './types.js';

const guidance = [
  'Autonomous mode is on: plans apply without asking, step by step.',
  'Recommended for routine, well-defined, non-critical tasks, or tasks done before.',
  'Advised against for critical system changes, security-sensitive operations, complex refactoring and first-time tasks.',
  'A task that looks security-sensitive or critical still asks, and says why. /auto off turns it off; /undo reverts the last plan.',
].join('\n');

export const autoCommand = defineCommand({
  name: 'auto',
  summary: 'Toggle autonomous mode: plans apply without step-by-step approval',
  usage: '/auto [on|off]',
  positionals: ['state'],
  args: z.object({ state: z.enum(['on', 'off']).optional().describe('on or off; without it, toggles') }),
  run: async ({ state }, ctx) => {
    const current = ctx.runtime.session.view().mode;
    const mode = state === undefined ? (current === 'auto' ? 'approve' : 'auto') : state === 'on' ? 'auto' : 'approve';
    ctx.runtime.session.send({ type: 'session.mode.set', mode });
    ctx.runtime.audit('session.mode', { mode });
    ctx.emit(mode === 'auto' ? say(guidance, 'warn') : say('Autonomous mode is off: every plan asks for approval.', 'success'));
  },
});

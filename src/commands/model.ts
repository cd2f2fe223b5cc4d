// /model: shows the session's model and the ones its provider serves, or switches to another for this session.
import { z } from 'zod';
import { result, say } from '../output.js';
import { defineCommand } from './types.js';

export const modelCommand = defineCommand({
  name: 'model',
  summary: 'Show the model, or switch this session to another one the provider serves',
  usage: '/model [<name> | <provider>:<name>]',
  examples: ['/model', '/model claude-haiku-4-5', '/model openai:gpt-4.1-mini'],
  positionals: ['name'],
  args: z.object({
    name: z.string().min(1).optional().describe('the model to use from now on in this session, as the provider spells it'),
  }),
  run: async ({ name }, ctx) => {
    const models = ctx.runtime.models;
    if (name === undefined) {
      const active = await models.describe();
      const resolved = await models.resolved();
      const served = resolved.provider === 'offline' ? null : await models.list();
      const current = resolved.provider === 'offline' ? null : resolved.model;
      const lines = [`Model  ${active}`];
      if (served?.length) lines.push('Served by the provider:', ...served.map((model) => `  ${model.id === current ? '●' : ' '} ${model.id}${model.contextWindow ? `  (${model.contextWindow.toLocaleString('en-US')} tokens)` : ''}`));
      else if (served) lines.push('The provider lists no models.');
      else if (current) lines.push('The provider has no model list: /model NAME switches without checking the name.');
      ctx.emit(result('model', { active, models: served }, lines.join('\n')));
      return;
    }
    const switched = await models.switchTo(name);
    // Kept in the session's context, so /save, /resume and the crash offer bring the choice back.
    ctx.runtime.session.send({ type: 'session.model.set', model: name });
    ctx.runtime.audit('model.switched', { provider: switched.resolved.provider, model: switched.resolved.model, validated: switched.validated });
    ctx.emit(result('model', { active: await models.describe(), validated: switched.validated }, `This session now uses ${switched.resolved.provider} · ${switched.resolved.model}.`));
    if (!switched.validated) ctx.emit(say('The provider has no model list, so the name was not checked: a wrong name fails at the next task.', 'warn'));
  },
});

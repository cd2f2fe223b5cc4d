// A resumed session's model: the one /model chose when it was saved, if the provider still serves it; else the configured one, said plainly.
import { isCadreError } from '../errors.js';
import { say, type OutputSink } from '../output.js';
import type { ModelHost } from './model-host.js';

/**
 * Makes `saved` (the session's /model choice, null for none) the active model. A name the provider no longer serves
 * (or that cannot be resolved any more) falls back to the configured model, with a warning, and the session forgets it.
 */
export async function restoreSessionModel(options: {
  saved: string | null;
  models: Pick<ModelHost, 'switchTo' | 'reset' | 'chosen' | 'describe'>;
  forget: () => void;
  sink: OutputSink;
  audit: (type: string, data: Record<string, unknown>) => void;
}): Promise<void> {
  const { saved, models } = options;
  if (saved === null) {
    models.reset();
    return;
  }
  if (models.chosen() === saved) return;
  try {
    const switched = await models.switchTo(saved);
    options.audit('model.restored', { provider: switched.resolved.provider, model: switched.resolved.model, validated: switched.validated });
  } catch (error) {
    if (!isCadreError(error)) throw error;
    models.reset();
    options.forget();
    options.audit('model.restore-failed', { model: saved, code: error.code });
    options.sink(say(`The saved session used the model "${saved}", but ${error.message.replace(/\.$/, '')}. It uses the configured model instead: ${await models.describe()}. /model lists what the provider serves.`, 'warn'));
  }
}

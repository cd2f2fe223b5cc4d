// A rejected generation plan's reason, used offline: extra or changed fields and props, fields to leave out, another name, another method and path. What it cannot use, it says.
import { CadreError, exitCodes } from '../../errors.js';
import { pascalCase, singular } from './names.js';
import { type GenerationTask, parseGenerationTask } from './task.js';

function parseFields(text: string): { name: string; type: string; optional: boolean; list: boolean }[] {
  // The task parser reads fields from any text that names a kind; a bare list of fields is read as a schema's.
  try {
    const parsed = parseGenerationTask(`create a model Feedback with fields ${text}`);
    return parsed.kind === 'schema' ? parsed.fields : [];
  } catch {
    return [];
  }
}

/** The task as the feedback changes it, or null when the feedback asks for nothing cadre can do offline. */
export function reviseTask(task: GenerationTask, feedback: string): GenerationTask | null {
  const text = feedback.trim();
  if (!text) return null;
  let changed = false;
  const revised = structuredClone(task);
  const added = /\b\w+\??:[A-Za-z]+/.test(text) ? parseFields(text.replace(/\b(?:without|remove|drop|no)\s+(?:the\s+)?(?:field|prop|column)?s?\s+[\w, ]+/gi, '')) : [];
  const list = revised.kind === 'component' ? revised.props : revised.fields;
  for (const field of added) {
    const at = list.findIndex((existing) => existing.name === field.name);
    if (at === -1) list.push(field as (typeof list)[number]);
    else list[at] = field as (typeof list)[number];
    changed = true;
  }
  for (const match of text.matchAll(/\b(?:without|remove|drop|no)\s+(?:the\s+)?(?:fields?|props?|columns?)?\s*([A-Za-z_][\w]*(?:\s*(?:,|and)\s*[A-Za-z_][\w]*)*)/gi)) {
    for (const name of (match[1] ?? '').split(/\s*(?:,|and)\s*/)) {
      const at = list.findIndex((existing) => existing.name === name);
      if (at !== -1) {
        list.splice(at, 1);
        changed = true;
      }
    }
  }
  const rename = /\b(?:call it|name it|rename (?:it )?to|named|called)\s+[`"']?([A-Za-z][\w]*)/i.exec(text)?.[1];
  if (rename && revised.kind !== 'endpoint' && pascalCase(rename) !== revised.name) {
    revised.name = revised.kind === 'schema' ? pascalCase(singular(rename)) : pascalCase(rename);
    changed = true;
  }
  const route = /\b(GET|POST|PUT|PATCH|DELETE)?\s*(\/[A-Za-z0-9_\-/:{}]+)/i.exec(text);
  if (route && revised.kind === 'endpoint') {
    const path = (route[2] as string).replace(/\{(\w+)\}/g, ':$1').replace(/\/+$/, '') || '/';
    const method = (route[1]?.toUpperCase() ?? revised.method) as typeof revised.method;
    if (path !== revised.path || method !== revised.method) {
      const segment = path.split('/').filter((part) => part && !part.startsWith(':')).at(-1);
      Object.assign(revised, { path, method, ...(segment ? { resource: pascalCase(singular(segment)) } : {}) });
      changed = true;
    }
  }
  return changed ? revised : null;
}

/** The refusal when a rejection's reason gives cadre nothing to change offline (rather than drafting the same plan again). */
export function feedbackNotUsable(feedback: string): CadreError {
  return new CadreError('offline.feedback-not-used', feedback.trim()
    ? `Offline, cadre cannot act on "${feedback.trim()}", so it did not draft the same plan again.`
    : 'The plan was rejected without a reason; offline, cadre would draft the same plan again, so it did not.', {
    remedy: 'Say what to change in terms cadre reads offline: fields or props to add or change (rating:int), "without notes", "call it ReviewCard", or another method and path (PUT /reviews/:id); or run the task again reworded, or configure a model to revise plans from free-form feedback.',
    exitCode: exitCodes.usage,
  });
}

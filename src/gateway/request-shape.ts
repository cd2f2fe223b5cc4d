// The request shape the gateway forwards: bounded sizes and depth, known fields only, no server-side tools or URL sources.
import type { MeteredEndpoint, ProviderKind } from './providers.js';

export interface ShapeOptions {
  kind: ProviderKind;
  endpoint: MeteredEndpoint;
  /** Server-side tool types configured for this container (e.g. `web_search_20250305`); none by default. */
  serverTools: readonly string[];
}

export type ShapeRefusal = 'depth' | 'field-size' | 'unknown-field' | 'server-tool' | 'url-source';

export type ShapeResult =
  | {
    ok: true; texts: string[]; attachments: number; /** The attachments' length in characters. */ attachmentChars: number;
    /** The object keys of the parsed body: fewer than its text has when a key repeats in an object (see scanJson). */ keys: number;
  }
  | { ok: false; refusal: ShapeRefusal; field: string; message: string };

/** Deepest nesting a model request needs (tool input schemas included), with room to spare. */
export const maxDepth = 64;
/** Object keys and identifier fields (model, role, type, tool names) are short in every provider's API. */
export const maxNameChars = 256;

const topLevel: Record<MeteredEndpoint, ReadonlySet<string>> = {
  messages: new Set(['model', 'messages', 'system', 'max_tokens', 'metadata', 'stop_sequences', 'stream', 'temperature', 'top_k', 'top_p', 'tools', 'tool_choice', 'thinking', 'service_tier']),
  chat: new Set([
    'model', 'messages', 'max_tokens', 'max_completion_tokens', 'stream', 'stream_options', 'temperature', 'top_p', 'n', 'stop', 'tools',
    'tool_choice', 'parallel_tool_calls', 'response_format', 'seed', 'user', 'frequency_penalty', 'presence_penalty', 'logit_bias',
    'logprobs', 'top_logprobs', 'reasoning_effort', 'service_tier', 'metadata', 'prompt_cache_key', 'safety_identifier', 'verbosity', 'store',
  ]),
  responses: new Set([
    'model', 'input', 'instructions', 'max_output_tokens', 'stream', 'temperature', 'top_p', 'tools', 'tool_choice', 'parallel_tool_calls',
    'text', 'reasoning', 'metadata', 'user', 'store', 'truncation', 'include', 'service_tier', 'prompt_cache_key', 'safety_identifier',
  ]),
};
/** Fields whose string value is an identifier, not content. */
const nameFields = new Set(['model', 'role', 'type', 'name', 'id', 'tool_use_id', 'tool_call_id', 'call_id', 'media_type', 'user', 'user_id']);
/** Tools the client runs itself (Anthropic's schema-defined client tools): nothing leaves through the provider. */
const clientToolPrefixes = ['bash_', 'text_editor_', 'computer_', 'memory_'];

/**
 * Checks a parsed request body and collects the texts its input tokens are estimated from (inline
 * base64 attachments are counted, not collected). Iterative, so a deeply nested body cannot overflow the stack.
 */
export function checkRequestShape(body: Record<string, unknown>, options: ShapeOptions): ShapeResult {
  for (const field of Object.keys(body)) {
    if (!topLevel[options.endpoint].has(field)) {
      return refuse('unknown-field', field, `the field "${clip(field)}" is not forwarded (the gateway passes only the fields a ${options.kind} ${options.endpoint} call needs; MCP servers, containers and stored prompts are refused)`);
    }
  }
  const tools = checkTools(body.tools, options);
  if (tools) return tools;
  const texts: string[] = [];
  let attachments = 0;
  let attachmentChars = 0;
  let keys = 0;
  // Each entry knows its parent and its step from it: a refused field's path is spelled out only when it is refused.
  const stack: ShapeNode[] = [{ value: body, depth: 0, key: '', holder: undefined, parent: undefined, step: '' }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const { value, depth, key, holder } = node;
    if (depth > maxDepth) return refuse('depth', pathOf(node), `the request nests deeper than ${maxDepth} levels`);
    if (typeof value === 'string') {
      if (nameFields.has(key) && value.length > maxNameChars) return refuse('field-size', pathOf(node), `"${clip(key)}" is ${value.length} characters long; at most ${maxNameChars} are accepted`);
      if (isInlineAttachment(key, value, holder)) {
        attachments += 1;
        attachmentChars += value.length;
      } else {
        texts.push(value);
      }
      continue;
    }
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) stack.push({ value: value[index], depth: depth + 1, key, holder, parent: node, step: index });
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    const record = value as Record<string, unknown>;
    const source = urlSource(key, record);
    if (source) return refuse('url-source', pathOf(node), `${source} would make the provider fetch a URL the container chose; send the content inline (base64) instead`);
    for (const childKey in record) {
      if (!Object.hasOwn(record, childKey)) continue;
      if (childKey.length > maxNameChars) return refuse('field-size', pathOf(node), `a field name is ${childKey.length} characters long; at most ${maxNameChars} are accepted`);
      texts.push(childKey);
      keys += 1;
      stack.push({ value: record[childKey], depth: depth + 1, key: childKey, holder: record, parent: node, step: childKey });
    }
  }
  return { ok: true, texts, attachments, attachmentChars, keys };
}

interface ShapeNode {
  value: unknown;
  depth: number;
  /** The key of the nearest object field holding the value (array items share their array's). */
  key: string;
  holder: Record<string, unknown> | undefined;
  parent: ShapeNode | undefined;
  /** The key or index that leads from the parent to this value. */
  step: string | number;
}

/** `messages[1].content[0].source`: the path of a value in the body, keys clipped. */
function pathOf(node: ShapeNode): string {
  let path = '';
  for (let at: ShapeNode | undefined = node; at?.parent !== undefined; at = at.parent) {
    path = typeof at.step === 'number' ? `[${at.step}]${path}` : `.${clip(at.step, 40)}${path}`;
  }
  return path;
}

function checkTools(tools: unknown, options: ShapeOptions): ShapeResult | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return refuse('unknown-field', 'tools', '"tools" must be a list');
  for (const [index, tool] of tools.entries()) {
    const type = typeof tool === 'object' && tool !== null ? (tool as Record<string, unknown>).type : undefined;
    if (type !== undefined && typeof type !== 'string') return refuse('server-tool', `tools[${index}]`, 'a tool type must be a string');
    if (isClientTool(options.kind, type) || (type !== undefined && options.serverTools.includes(type))) continue;
    return refuse('server-tool', `tools[${index}]`, `the tool type "${clip(String(type))}" runs on the provider's side (web search, web fetch, code execution, MCP, file search), outside the container's egress rules; it is not configured for this container`);
  }
  return undefined;
}

function isClientTool(kind: ProviderKind, type: string | undefined): boolean {
  if (kind === 'anthropic') return type === undefined || type === 'custom' || clientToolPrefixes.some((prefix) => type.startsWith(prefix));
  return type === 'function' || type === 'custom';
}

/** A content part that names a remote resource for the provider to fetch: URL or stored-file sources. */
function urlSource(key: string, record: Record<string, unknown>): string | undefined {
  if (key === 'source' && (record.type === 'url' || record.type === 'file')) return `a ${record.type} source`;
  const imageUrl = record.image_url;
  const url = typeof imageUrl === 'string' ? imageUrl : typeof imageUrl === 'object' && imageUrl !== null ? (imageUrl as Record<string, unknown>).url : undefined;
  if (typeof url === 'string' && !url.startsWith('data:')) return 'an image URL';
  if (record.file_url !== undefined) return 'a file URL';
  if (record.file_id !== undefined) return 'a stored file id';
  return undefined;
}

function isInlineAttachment(key: string, value: string, holder: Record<string, unknown> | undefined): boolean {
  if (value.length < 256) return false;
  return value.startsWith('data:') || ((key === 'data' || key === 'file_data') && (holder?.type === 'base64' || key === 'file_data'));
}

function refuse(refusal: ShapeRefusal, field: string, message: string): ShapeResult {
  return { ok: false, refusal, field: field.replace(/^\./, '') || '(body)', message: `cadre gateway: ${message}.` };
}

function clip(text: string, max = 64): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

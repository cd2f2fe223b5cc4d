// Reads a generation task's text: what to generate (component, endpoint, schema), its name, fields, route path and method.
import { CadreError, exitCodes } from '../../errors.js';
import { pascalCase, plural, singular, wordsOf } from './names.js';

export type FieldType = 'string' | 'text' | 'int' | 'number' | 'boolean' | 'date' | 'json' | 'handler';
export type FieldSpec = { name: string; type: FieldType; optional: boolean; list: boolean };
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type ComponentTask = { kind: 'component'; name: string; props: FieldSpec[]; state: FieldSpec[]; framework: 'react' | 'vue' | null };
export type EndpointTask = { kind: 'endpoint'; method: HttpMethod; path: string; resource: string; fields: FieldSpec[] };
export type SchemaTask = { kind: 'schema'; name: string; fields: FieldSpec[]; /** The database layer the task names ("a mongoose model"), when it names one. */ orm?: string | null };
export type GenerationTask = ComponentTask | EndpointTask | SchemaTask;

const typeWords: Record<string, FieldType> = {
  string: 'string', str: 'string', text: 'text', int: 'int', integer: 'int', number: 'number', float: 'number', decimal: 'number',
  double: 'number', boolean: 'boolean', bool: 'boolean', date: 'date', datetime: 'date', timestamp: 'date', json: 'json', object: 'json',
  function: 'handler', handler: 'handler',
};

const fieldToken = /\b([A-Za-z_][A-Za-z0-9_]*)(\?)?:([A-Za-z]+)(\[\])?(\?)?/g;
const methodPath = /\b(GET|POST|PUT|PATCH|DELETE)\s+(\/[A-Za-z0-9_\-/:{}.]*)/i;
const stopWords = new Set(['a', 'an', 'the', 'new', 'with', 'for', 'called', 'named', 'database', 'db', 'prisma', 'drizzle', 'knex', 'sql', 'orm', 'react', 'vue', 'typeorm', 'mongoose', 'sequelize', 'simple', 'small']);

const usage = (code: string, message: string, remedy: string): CadreError => new CadreError(code, message, { remedy, exitCode: exitCodes.usage });

/** The kind of generation a task asks for, or null when it asks for none of them. */
export function generationKind(text: string): GenerationTask['kind'] | null {
  if (methodPath.test(text)) return 'endpoint';
  if (/\b(?:component|widget)s?\b/i.test(text)) return 'component';
  if (/\b(?:schema|model|table|migration|entity)\b/i.test(text)) return 'schema';
  if (/\b(?:endpoint|route|api)\b/i.test(text)) return 'endpoint';
  return null;
}

/** Parses the task text; a CadreError names what is missing and shows how to say it. */
export function parseGenerationTask(text: string): GenerationTask {
  const kind = generationKind(text);
  if (kind === 'component') return parseComponent(text);
  if (kind === 'endpoint') return parseEndpoint(text);
  if (kind === 'schema') return parseSchema(text);
  throw usage('generation.unknown-kind', 'The task does not say whether to generate a component, an API endpoint or a database schema.',
    'Say what to generate, e.g. "create a component SearchBox with props query:string onSearch", "add an endpoint POST /reviews with fields rating:int body:string", or "create a model Review with fields rating:int body:text".');
}

function parseComponent(text: string): ComponentTask {
  const name = findName(text, [/\b(?:called|named)\s+[`"']?([A-Za-z][\w-]*)/i, /\bcomponents?\s+[`"']?([A-Z][A-Za-z0-9]*)/, /\b([A-Z][A-Za-z0-9]*)\s+components?\b/]);
  if (!name) throw usage('generation.missing-name', 'The task does not say what to call the component.', 'Name it in PascalCase, e.g. "create a component SearchBox with props query:string onSearch".');
  const stateAt = text.search(/\bstate\b/i);
  const propsText = stateAt === -1 ? text : text.slice(0, stateAt);
  const stateText = stateAt === -1 ? '' : text.slice(stateAt);
  const handlers = [...propsText.matchAll(/\b(on[A-Z][A-Za-z0-9]*)\b(?!\??:)/g)].map((match): FieldSpec => ({ name: match[1] as string, type: 'handler', optional: false, list: false }));
  const props = uniqueFields([...parseFields(propsText), ...handlers]);
  const framework = /\bvue\b/i.test(text) ? 'vue' : /\breact\b/i.test(text) ? 'react' : null;
  return { kind: 'component', name: pascalCase(name), props, state: uniqueFields(parseFields(stateText)), framework };
}

/** Words that name no resource in "a … endpoint" or "an endpoint for …". */
const notResources = new Set([...stopWords, 'api', 'apis', 'rest', 'restful', 'http', 'crud', 'json', 'graphql', 'route', 'routes', 'endpoint', 'endpoints', 'backend', 'server', 'my', 'our', 'this', 'that', 'some', 'all', 'get', 'post', 'put', 'patch', 'delete']);

/** The route a task names without a path: "an endpoint for products", "a products endpoint", "the orders API" → /products, /orders. */
function impliedPath(text: string): string | null {
  const patterns = [
    /\b(?:endpoints?|routes?|apis?)\s+(?:for|to\s+(?:list|create|get|fetch|read|manage|update|delete)|that\s+(?:lists|returns|creates|manages))\s+(?:the\s+|all\s+|new\s+)?([A-Za-z][\w-]*)/i,
    /\b([A-Za-z][\w-]*)\s+(?:rest\s+|restful\s+|crud\s+|json\s+|http\s+)?(?:endpoints?|routes?|api)\b/i,
  ];
  for (const pattern of patterns) {
    const word = pattern.exec(text)?.[1];
    if (word && !notResources.has(word.toLowerCase())) return `/${wordsOf(plural(singular(word))).join('-').toLowerCase()}`;
  }
  return null;
}

function parseEndpoint(text: string): EndpointTask {
  const match = methodPath.exec(text);
  const path = match?.[2] ?? /(?:^|\s)(\/[A-Za-z0-9_\-/:{}]+)/.exec(text)?.[1] ?? impliedPath(text);
  if (!path) throw usage('generation.missing-path', 'The task does not say which route the endpoint serves.', 'Give the method and path, e.g. "add an endpoint POST /reviews with fields rating:int body:string".');
  const normalized = path.replace(/\{(\w+)\}/g, ':$1').replace(/\/+$/, '') || '/';
  const fields = parseFields(text);
  const reads = /\b(?:list(?:s|ing)?|returns?|returning|fetch(?:es|ing)?|reads?|shows?)\b/i.test(text);
  const method = (match?.[1]?.toUpperCase() as HttpMethod | undefined) ?? (fields.length > 0 && !reads ? 'POST' : 'GET');
  const segment = normalized.split('/').filter((part) => part && !part.startsWith(':')).at(-1);
  if (!segment) throw usage('generation.missing-resource', `The path ${normalized} does not name a resource.`, 'Use a path with a resource name, e.g. /reviews or /reviews/:id.');
  if ((method === 'POST' || method === 'PUT' || method === 'PATCH') && fields.length === 0) {
    throw usage('generation.missing-fields', `${method} ${normalized} needs the fields of its request body.`, `List them as name:type, e.g. "${method} ${normalized} with fields rating:int body:string" (types: string, text, int, number, boolean, date, json; add ? for optional).`);
  }
  return { kind: 'endpoint', method, path: normalized, resource: pascalCase(singular(segment)), fields };
}

function parseSchema(text: string): SchemaTask {
  const name = findName(text, [/\b(?:called|named)\s+[`"']?([A-Za-z][\w]*)/i, /\b(?:model|table|schema|entity)\s+(?:for\s+)?[`"']?([A-Za-z][\w]*)/i, /\b([A-Za-z][\w]*)\s+(?:model|table|schema|entity)\b/i]);
  if (!name) throw usage('generation.missing-name', 'The task does not say what the model or table is called.', 'Name it, e.g. "create a model Review with fields rating:int body:text".');
  const fields = parseFields(text);
  if (fields.length === 0) throw usage('generation.missing-fields', `The task does not list the fields of ${name}.`, 'List them as name:type, e.g. "create a model Review with fields rating:int body:text productId:string" (types: string, text, int, number, boolean, date, json; add ? for optional).');
  const orm = /\b(prisma|drizzle|typeorm|sequelize|mongoose|knex)\b/i.exec(text)?.[1] ?? (/\b(?:plain )?sql\b/i.test(text) ? 'plain SQL' : null);
  return { kind: 'schema', name: pascalCase(singular(name)), fields, orm };
}

function findName(text: string, patterns: RegExp[]): string | null {
  for (const pattern of patterns) {
    const found = pattern.exec(text)?.[1];
    if (found && !stopWords.has(found.toLowerCase()) && !found.includes(':')) return found;
  }
  return null;
}

/** A field's type from its name, for fields listed without one ("with name and price"): price → number, inStock → boolean. */
export function inferFieldType(name: string): FieldType {
  const words = wordsOf(name).map((word) => word.toLowerCase());
  const last = words.at(-1) ?? '';
  if (/^on[A-Z]/.test(name)) return 'handler';
  if (['is', 'has', 'can', 'should', 'in'].includes(words[0] ?? '') && words.length > 1) return 'boolean';
  if (['active', 'enabled', 'disabled', 'published', 'done', 'completed', 'visible', 'archived', 'deleted', 'verified', 'available'].includes(last)) return 'boolean';
  if (['at', 'date', 'on', 'birthday', 'dob', 'deadline'].includes(last) || (last === 'time' && words.length > 1)) return 'date';
  if (['price', 'amount', 'cost', 'total', 'balance', 'rate', 'score', 'weight', 'height', 'width', 'latitude', 'longitude', 'lat', 'lng', 'percent', 'percentage', 'discount', 'tax'].includes(last)) return 'number';
  if (['count', 'quantity', 'qty', 'age', 'year', 'rating', 'stock', 'position', 'rank', 'level', 'stars', 'votes', 'views', 'likes', 'order', 'priority', 'number'].includes(last)) return 'int';
  if (['description', 'body', 'content', 'bio', 'notes', 'summary', 'text', 'comment', 'message', 'details'].includes(last)) return 'text';
  return 'string';
}

/**
 * Fields listed the way people say them, when none is written name:type: "with name and price", "with fields title,
 * body and publishedAt", "with name (string) and price (number)", "with price as number". Anything that is not a list of
 * single names gives no fields (a component "with a nice border" has none).
 */
function looseFields(text: string): FieldSpec[] {
  const list = /\bwith\s+(?:the\s+)?(?:fields?|properties|props|attributes|columns)?\s*:?\s*(.+?)(?:[.;!?]|\s+(?:that|which|returning|in\s+the|to|using|from|for|on\s+the|under)\b|$)/i.exec(text)?.[1];
  if (!list) return [];
  const fields: FieldSpec[] = [];
  for (const raw of list.split(/\s*,\s*(?:and\s+)?|\s+and\s+/i)) {
    const part = raw.trim().replace(/^(?:a|an|the|its|their)\s+/i, '');
    if (!part) continue;
    const typed = /^([A-Za-z_][\w]*)(\?)?(?:\s*\(\s*([A-Za-z]+)(\[\])?\s*\)|\s+as\s+(?:an?\s+)?([A-Za-z]+)(\[\])?)?$/.exec(part);
    if (!typed) return [];
    const typeWord = (typed[3] ?? typed[5])?.toLowerCase();
    const type = typeWord === undefined ? inferFieldType(typed[1] as string) : typeWords[typeWord];
    if (!type) throw usage('generation.unknown-type', `Unknown field type "${typeWord}" in "${part}".`, `Use one of: ${Object.keys(typeWords).join(', ')}.`);
    fields.push({ name: typed[1] as string, type, optional: Boolean(typed[2]), list: Boolean(typed[4] ?? typed[6]) });
  }
  return fields;
}

function parseFields(text: string): FieldSpec[] {
  const typed = typedFields(text);
  return typed.length > 0 ? typed : uniqueFields(looseFields(text));
}

function typedFields(text: string): FieldSpec[] {
  const fields: FieldSpec[] = [];
  for (const match of text.matchAll(fieldToken)) {
    const typeWord = (match[3] as string).toLowerCase();
    const type = typeWords[typeWord];
    if (!type) {
      throw usage('generation.unknown-type', `Unknown field type "${match[3]}" in ${match[0]}.`, `Use one of: ${Object.keys(typeWords).join(', ')}.`);
    }
    fields.push({ name: match[1] as string, type, optional: Boolean(match[2] ?? match[5]), list: Boolean(match[4]) });
  }
  return uniqueFields(fields);
}

function uniqueFields(fields: FieldSpec[]): FieldSpec[] {
  const seen = new Set<string>();
  return fields.filter((field) => !seen.has(field.name) && seen.add(field.name));
}

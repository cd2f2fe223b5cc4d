// The offline router: task text + project context → specialist, capability, confidence and a one-line reason.
import type { ProjectContext } from '../project/context.js';
import { documentationKindsOf } from './documentation/index.js';
import { endpointSupport } from './generation/endpoint.js';
import { generationKind, parseGenerationTask } from './generation/task.js';

export type Specialist = 'react' | 'frontend' | 'backend' | 'devops';

export type Route = { specialist: Specialist; capability: string | null; confidence: number; reason: string; needsModel: boolean };

/** The capabilities that run without a model, and the words that ask for them. */
export const offlineCapabilities: { name: string; summary: string; patterns: RegExp[] }[] = [
  { name: 'analyze-security', summary: 'security audit', patterns: [/\b(?:secur\w*|vulnerab\w*|audit|xss|csrf|inject\w*|secrets?|cve|owasp|exploit\w*|sanitiz\w*|crypto\w*)\b/] },
  { name: 'analyze-performance', summary: 'performance analysis', patterns: [/\b(?:perf\w*|slow\w*|fast\w*|speed\w*|optimi[sz]\w*|bottleneck\w*|memory|leaks?|n\+1|bundle size|re-?renders?|latency)\b/] },
  { name: 'analyze-quality', summary: 'quality assessment', patterns: [/\b(?:quality|complex\w*|smells?|duplicat\w*|clones?|lint\w*|maintainab\w*|tech(?:nical)? debt|code review|review (?:the|my) code|naming|unused|dead code|cycles?)\b/] },
  { name: 'analyze-project', summary: 'project context', patterns: [/\b(?:analy[sz]e (?:the )?(?:project|structure|repo\w*)|project structure|what (?:framework|stack)|detect (?:the )?(?:stack|framework)|index (?:the )?project)\b/] },
  { name: 'generate-component', summary: 'component generation', patterns: [/\b(?:create|add|generate|scaffold|make|build|write|new)\b.*\bcomponent\b/] },
  { name: 'generate-endpoint', summary: 'API endpoint generation', patterns: [/\b(?:create|add|generate|scaffold|make|build|write|new)\b.*\b(?:endpoint|route|(?:get|post|put|patch|delete) \/)/] },
  { name: 'generate-schema', summary: 'database schema generation', patterns: [/\b(?:create|add|generate|scaffold|make|design|write|new)\b.*\b(?:schema|model|table|migration|entity)\b/] },
  { name: 'generate-docs', summary: 'documentation', patterns: [/\b(?:readme|contributing|documentation|document|docs|doc comments|jsdoc|architecture diagram|usage examples)\b/] },
];

const analysisVerbs = /\b(?:analy[sz]\w*|audit\w*|check\w*|scan\w*|find\w*|review\w*|assess\w*|report\w*|detect\w*|look for|inspect\w*|measure\w*|score)\b/;
const createVerbs = /\b(?:add|create|generate|scaffold|make|build|write|new|design|draw|document|produce)\b/;
/** Verbs that ask to change existing code: they need a model even when the object is a component or an endpoint. */
const editVerbs = /\b(?:fix|refactor|rename|migrate|convert|update|upgrade|debug|change|modify|improve|optimi[sz]e|rewrite|remove|delete the|explain|deploy)\b/;
const changeVerbs = /\b(?:add|create|generate|build|implement|write|make|refactor|fix|migrate|rename|convert|update|upgrade|debug|explain|deploy|set ?up|configure|scaffold|document)\b/;

const specialistWords: Record<Specialist, RegExp> = {
  react: /\b(?:react|jsx|tsx|hooks?|use(?:State|Effect|Memo|Callback)|next\.?js|props?|re-?renders?|component\w*)\b/i,
  frontend: /\b(?:css|scss|sass|tailwind|theme|theming|styles?|styling|layout|responsive|vue|svelte|angular|html|dom|browser|accessib\w*|a11y|ui|ux|bundle\w*|webpack|vite)\b/i,
  backend: /\b(?:api|endpoints?|routes?|server|express|fastify|koa|nest\w*|database|db|sql|quer\w*|orm|prisma|drizzle|knex|sequelize|mongoose|schema|migrations?|auth\w*|jwt|sessions?|csrf|inject\w*|middleware|rest|graphql|n\+1)\b/i,
  devops: /\b(?:docker\w*|containers?|ci|cd|pipelines?|deploy\w*|kubernetes|k8s|helm|terraform|github actions|workflows?|nginx|infra\w*|monitoring|environment variables|env vars?|secrets? manager|release)\b/i,
};

export const modelHelp = 'This task needs a model: configure Anthropic, OpenAI or an OpenAI-compatible local server, then run it again. Offline, cadre can run the security, quality and performance analyses and /analyze-project, and generate components, API endpoints, database schemas and documentation from the project\'s conventions.';

/**
 * Routes a task offline. With no fitting capability, says plainly that the task needs a model. A generation route under
 * 0.5 confidence names its capability but needs a model: as stated, the generator would ask for a name, a path or fields.
 */
export function routeTask(text: string, context: ProjectContext | null): Route {
  const lower = text.toLowerCase();
  const specialist = chooseSpecialist(lower, context);
  const creation = routeCreation(text, lower, context, specialist);
  if (creation) return creation;
  const matches = offlineCapabilities
    .map((capability) => ({ capability, hits: capability.patterns.reduce((sum, pattern) => sum + (lower.match(new RegExp(pattern.source, 'g'))?.length ?? 0), 0) }))
    .filter((match) => match.hits > 0)
    .sort((left, right) => right.hits - left.hits);
  const wantsAnalysis = analysisVerbs.test(lower);
  const wantsChange = changeVerbs.test(lower) && !wantsAnalysis;
  const best = matches[0];
  if (!best || wantsChange) {
    return {
      specialist: specialist.name, capability: null, confidence: 0,
      reason: best ? `This asks to change code (${best.capability.summary} is read-only); ${modelHelp}` : `No offline capability fits this task; ${modelHelp}`,
      needsModel: true,
    };
  }
  const runnerUp = matches[1]?.hits ?? 0;
  const confidence = Math.min(0.95, 0.55 + 0.15 * best.hits - 0.1 * runnerUp + (wantsAnalysis ? 0.15 : 0));
  return {
    specialist: specialist.name,
    capability: best.capability.name,
    confidence: Number(Math.max(0.3, confidence).toFixed(2)),
    reason: `Asks for a ${best.capability.summary}${specialist.evidence ? ` (${specialist.name}: ${specialist.evidence})` : ''}.`,
    needsModel: false,
  };
}

/** Generation and documentation: a creation verb, no edit verb, and something the offline generators make. */
function routeCreation(text: string, lower: string, context: ProjectContext | null, specialist: { name: Specialist; evidence: string }): Route | null {
  if (!createVerbs.test(lower) || editVerbs.test(lower)) return null;
  const docs = documentationKindsOf(text);
  const kind = generationKind(text);
  if (docs && (!kind || /\b(?:readme|contributing|documentation|docs|doc comments|jsdoc|architecture|diagram)\b/.test(lower))) {
    return { specialist: specialist.name, capability: 'generate-docs', confidence: 0.85, reason: `Asks for documentation (${docs.join(', ')}), written offline from the project's scripts, code and import graph.`, needsModel: false };
  }
  if (!kind) return null;
  const frameworks = context?.frameworks ?? [];
  let confidence = 0.8;
  let reason: string;
  try {
    const task = parseGenerationTask(text);
    const detail = task.kind === 'component' ? `${task.name} with ${task.props.length} prop(s) and ${task.state.length} state value(s)`
      : task.kind === 'endpoint' ? `${task.method} ${task.path}${task.fields.length > 0 ? ` with ${task.fields.length} field(s)` : ''}` : `${task.name} with ${task.fields.length} field(s)`;
    reason = `Asks to generate ${task.kind === 'endpoint' ? 'an API endpoint' : task.kind === 'schema' ? 'a database schema' : 'a component'} (${detail}) from the project's conventions.`;
  } catch (error) {
    // "Add rate limiting to the API" names no endpoint to generate: that is a change for a model, not a failed generation.
    if (kind === 'endpoint' && !/\bendpoint\b/.test(lower)) return null;
    confidence = 0.45;
    reason = `Asks to generate ${kind === 'endpoint' ? 'an API endpoint' : kind === 'schema' ? 'a database schema' : 'a component'}, but ${error instanceof Error ? error.message.charAt(0).toLowerCase() + error.message.slice(1) : 'the task is incomplete'}`;
  }
  const endpoint = kind === 'endpoint' && context ? endpointSupport(context) : null;
  const fits = kind === 'component' ? frameworks.some((name) => ['React', 'Next.js', 'Preact', 'Remix', 'Vue', 'Nuxt'].includes(name)) || /\b(?:react|vue)\b/.test(lower)
    : kind === 'endpoint' ? endpoint !== null && endpoint.kind !== null : true;
  if (!fits) {
    confidence = Math.min(confidence, 0.35);
    // The real reason, which the engine says instead of a generic "needs a model".
    reason += kind === 'component' ? ' (no React or Vue detected)' : ` (${endpoint && endpoint.kind === null ? endpoint.reason : 'no server framework detected'})`;
  }
  const name: Specialist = kind === 'component' ? (frameworks.some((framework) => ['Vue', 'Nuxt'].includes(framework)) || /\bvue\b/.test(lower) ? 'frontend' : 'react') : 'backend';
  const mentions = [...new Set(lower.match(new RegExp(specialistWords[name].source, 'gi')) ?? [])].slice(0, 2).map((word) => `"${word}"`);
  const used = frameworks.filter((framework) => (name === 'backend' ? ['Express', 'Fastify', 'Koa', 'NestJS'] : ['React', 'Next.js', 'Preact', 'Vue', 'Nuxt']).includes(framework));
  const evidence = [mentions.length > 0 ? `the task mentions ${mentions.join(', ')}` : '', used.length > 0 ? `the project uses ${used.join(', ')}` : ''].filter(Boolean).join('; ');
  // Below 0.5 the generator would stop and ask for more: as stated, the task needs a model (or a rephrasing).
  return { specialist: name, capability: `generate-${kind}`, confidence, reason: `${reason.replace(/\.$/, '')}${evidence ? ` (${evidence})` : ''}.`, needsModel: confidence < 0.5 };
}

function chooseSpecialist(lower: string, context: ProjectContext | null): { name: Specialist; evidence: string } {
  const scores: Record<Specialist, number> = { react: 0, frontend: 0, backend: 0, devops: 0 };
  const evidence: Record<Specialist, string> = { react: '', frontend: '', backend: '', devops: '' };
  for (const [name, pattern] of Object.entries(specialistWords) as [Specialist, RegExp][]) {
    const hits = lower.match(new RegExp(pattern.source, 'gi')) ?? [];
    scores[name] += hits.length * 2;
    if (hits[0]) evidence[name] = `mentions "${hits[0]}"`;
  }
  const frameworks = context?.frameworks ?? [];
  if (frameworks.some((name) => name === 'React' || name === 'Next.js' || name === 'Preact')) scores.react += scores.frontend > 0 || /component|render|hook/.test(lower) ? 3 : 1;
  if (frameworks.some((name) => ['Vue', 'Nuxt', 'Svelte', 'SvelteKit', 'Angular', 'Solid'].includes(name))) scores.frontend += 1;
  if (frameworks.some((name) => ['Express', 'Fastify', 'Koa', 'NestJS', 'Hapi', 'Hono'].includes(name)) || (context?.orm.length ?? 0) > 0) scores.backend += 1;
  const ranked = (Object.entries(scores) as [Specialist, number][]).sort((left, right) => right[1] - left[1]);
  const [name, score] = ranked[0] as [Specialist, number];
  if (score === 0) return { name: 'backend', evidence: '' };
  return { name, evidence: evidence[name] || `the project uses ${frameworks.join(', ')}` };
}

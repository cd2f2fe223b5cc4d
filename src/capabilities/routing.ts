// The offline router: task text + project context → specialist, capability, confidence and a one-line reason.
import type { ProjectContext } from '../project/context.js';

export type Specialist = 'react' | 'frontend' | 'backend' | 'devops';

export type Route = { specialist: Specialist; capability: string | null; confidence: number; reason: string; needsModel: boolean };

/** The capabilities that run without a model, and the words that ask for them. */
export const offlineCapabilities: { name: string; summary: string; patterns: RegExp[] }[] = [
  { name: 'analyze-security', summary: 'security audit', patterns: [/\b(?:secur\w*|vulnerab\w*|audit|xss|csrf|inject\w*|secrets?|cve|owasp|exploit\w*|sanitiz\w*|crypto\w*)\b/] },
  { name: 'analyze-performance', summary: 'performance analysis', patterns: [/\b(?:perf\w*|slow\w*|fast\w*|speed\w*|optimi[sz]\w*|bottleneck\w*|memory|leaks?|n\+1|bundle size|re-?renders?|latency)\b/] },
  { name: 'analyze-quality', summary: 'quality assessment', patterns: [/\b(?:quality|complex\w*|smells?|duplicat\w*|clones?|lint\w*|maintainab\w*|tech(?:nical)? debt|code review|review (?:the|my) code|naming|unused|dead code|cycles?)\b/] },
  { name: 'analyze-project', summary: 'project context', patterns: [/\b(?:analy[sz]e (?:the )?(?:project|structure|repo\w*)|project structure|what (?:framework|stack)|detect (?:the )?(?:stack|framework)|index (?:the )?project)\b/] },
];

const analysisVerbs = /\b(?:analy[sz]\w*|audit\w*|check\w*|scan\w*|find\w*|review\w*|assess\w*|report\w*|detect\w*|look for|inspect\w*|measure\w*|score)\b/;
const changeVerbs = /\b(?:add|create|generate|build|implement|write|make|refactor|fix|migrate|rename|convert|update|upgrade|debug|explain|deploy|set ?up|configure|scaffold|document)\b/;

const specialistWords: Record<Specialist, RegExp> = {
  react: /\b(?:react|jsx|tsx|hooks?|use(?:State|Effect|Memo|Callback)|next\.?js|props?|re-?renders?|component\w*)\b/i,
  frontend: /\b(?:css|scss|sass|tailwind|theme|theming|styles?|styling|layout|responsive|vue|svelte|angular|html|dom|browser|accessib\w*|a11y|ui|ux|bundle\w*|webpack|vite)\b/i,
  backend: /\b(?:api|endpoints?|routes?|server|express|fastify|koa|nest\w*|database|db|sql|quer\w*|orm|prisma|drizzle|knex|sequelize|mongoose|schema|migrations?|auth\w*|jwt|sessions?|csrf|inject\w*|middleware|rest|graphql|n\+1)\b/i,
  devops: /\b(?:docker\w*|containers?|ci|cd|pipelines?|deploy\w*|kubernetes|k8s|helm|terraform|github actions|workflows?|nginx|infra\w*|monitoring|environment variables|env vars?|secrets? manager|release)\b/i,
};

export const modelHelp = 'This task needs a model: configure Anthropic, OpenAI or an OpenAI-compatible local server, then run it again. Offline, cadre can run the security, quality and performance analyses and /analyze-project.';

/** Routes a task offline. With no fitting capability, says plainly that the task needs a model. */
export function routeTask(text: string, context: ProjectContext | null): Route {
  const lower = text.toLowerCase();
  const specialist = chooseSpecialist(lower, context);
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

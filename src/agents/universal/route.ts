// A small local router from the task text and project context to an internal specialist, with its reason.
// (Used until src/capabilities/routing.ts offers routeTask; see the report.)
import { specialists, type SpecialistName } from './specialists.js';

export interface RouteContext {
  frameworks?: string[];
}

export interface Route {
  specialist: SpecialistName;
  reason: string;
}

export function routeToSpecialist(task: string, context: RouteContext | null): Route {
  const frameworks = context?.frameworks ?? [];
  const scored = specialists.map((specialist) => {
    const words = [...new Set((task.match(specialist.keywords) ?? []).map((word) => word.toLowerCase()))];
    const framework = frameworks.find((name) => specialist.frameworks.test(name));
    return { specialist, words, framework, score: words.length * 2 + (framework ? 1 : 0) };
  });
  scored.sort((a, b) => b.score - a.score);
  const best = scored[0];
  if (best && best.words.length > 0) {
    const because = `the task mentions ${best.words.map((w) => `"${w}"`).join(', ')}`;
    return { specialist: best.specialist.name, reason: best.framework ? `${because} and the project uses ${best.framework}` : because };
  }
  const byFramework = scored.find((entry) => entry.framework);
  if (byFramework) return { specialist: byFramework.specialist.name, reason: `the project uses ${byFramework.framework}` };
  return { specialist: 'backend', reason: 'no UI, infrastructure or framework signal: general code goes to the backend specialist' };
}

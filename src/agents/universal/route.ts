// Routing for universal-agent with a model: routeTask (src/capabilities/routing.ts) picks the specialist;
// when its reason is about the offline engine, the reason shown is the evidence for that specialist instead.
import { routeTask } from '../../capabilities/routing.js';
import type { ProjectContext } from '../../project/context.js';
import { specialists, type SpecialistName } from './specialists.js';

export interface Route {
  specialist: SpecialistName;
  reason: string;
}

function evidenceFor(name: SpecialistName, task: string, context: ProjectContext | null): string {
  const specialist = specialists.find((s) => s.name === name);
  const words = [...new Set((task.match(specialist?.keywords ?? /$^/g) ?? []).map((word) => word.toLowerCase()))];
  const framework = (context?.frameworks ?? []).find((f) => specialist?.frameworks.test(f));
  const uses = framework ? `the project uses ${framework}` : '';
  if (words.length) return `the task mentions ${words.map((w) => `"${w}"`).join(', ')}${uses ? ` and ${uses}` : ''}`;
  if (uses) return uses;
  return `no UI, infrastructure or framework signal: general code goes to the ${name} specialist`;
}

export function routeToSpecialist(task: string, context: ProjectContext | null): Route {
  const routed = routeTask(task, context);
  return { specialist: routed.specialist, reason: routed.needsModel ? evidenceFor(routed.specialist, task, context) : routed.reason };
}

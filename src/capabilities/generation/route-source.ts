// Canonical source of a generated route handler for Express or Fastify: validation, the query, error handling, the response.
import type { QueryPlan } from './data-access.js';
import type { EndpointTask } from './task.js';

export type Validation = { kind: 'zod'; schemaName: string; middleware: string | null } | { kind: 'json-schema'; schemaName: string } | { kind: 'hand'; middleware: string } | { kind: 'none' };

const hasBody = (task: EndpointTask): boolean => task.method === 'POST' || task.method === 'PUT' || task.method === 'PATCH';

/** An Express route on `router`: async handler with try/catch handing errors to the app's error middleware. */
export function expressRoute(task: EndpointTask, options: { router: string; validation: Validation; query: (notFound: string) => QueryPlan; inputType: string | null; typed: boolean }): string {
  const method = task.method.toLowerCase();
  const middleware = options.validation.kind === 'zod' && options.validation.middleware ? `${options.validation.middleware}(${options.validation.schemaName}), `
    : options.validation.kind === 'hand' ? `${options.validation.middleware}, ` : '';
  const plan = options.query(`{\n      res.status(404).json({ error: '${task.resource} not found' });\n      return;\n    }`);
  const lines = [`${options.router}.${method}('${task.path}', ${middleware}async (req, res, next) => {`, '  try {'];
  if (hasBody(task)) {
    if (options.validation.kind === 'zod' && !options.validation.middleware) {
      lines.push(`    const parsed = ${options.validation.schemaName}.safeParse(req.body);`, '    if (!parsed.success) {', '      res.status(400).json({ error: \'Invalid request body\', issues: parsed.error.issues });', '      return;', '    }', '    const input = parsed.data;');
    } else lines.push(`    const input = req.body${options.typed && options.inputType ? ` as ${options.inputType}` : ''};`);
  }
  lines.push(...plan.lines.map((line) => `    ${line}`));
  lines.push(plan.sendsResult ? `    res.status(${plan.status}).json(result);` : `    res.status(${plan.status}).end();`);
  lines.push('  } catch (error) {', '    next(error);', '  }', '});');
  return lines.join('\n');
}

/** A Fastify route inside a plugin function whose instance is `app`: async handler, errors go to Fastify's error handler. */
export function fastifyRoute(task: EndpointTask, options: { validation: Validation; query: (notFound: string) => QueryPlan; inputType: string | null; typed: boolean; params: string[] }): string {
  const method = task.method.toLowerCase();
  const generics: string[] = [];
  if (options.typed && options.params.length > 0) generics.push(`Params: { ${options.params.map((param) => `${param}: string`).join('; ')} }`);
  if (options.typed && hasBody(task) && options.validation.kind === 'json-schema' && options.inputType) generics.push(`Body: ${options.inputType}`);
  const routeOptions = hasBody(task) && options.validation.kind === 'json-schema' ? `{ schema: { body: ${options.validation.schemaName} } }, ` : '';
  const plan = options.query(`{\n      return reply.code(404).send({ error: '${task.resource} not found' });\n    }`);
  const lines = [`  app.${method}${generics.length > 0 ? `<{ ${generics.join('; ')} }>` : ''}('${task.path}', ${routeOptions}async (request, reply) => {`];
  if (hasBody(task)) {
    if (options.validation.kind === 'zod') {
      lines.push(`    const parsed = ${options.validation.schemaName}.safeParse(request.body);`, '    if (!parsed.success) {', '      return reply.code(400).send({ error: \'Invalid request body\', issues: parsed.error.issues });', '    }', '    const input = parsed.data;');
    } else lines.push('    const input = request.body;');
  }
  lines.push(...plan.lines.map((line) => `    ${line}`));
  lines.push(plan.sendsResult ? `    return reply.code(${plan.status}).send(result);` : `    return reply.code(${plan.status}).send();`, '  });');
  return lines.join('\n');
}

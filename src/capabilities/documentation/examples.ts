// Usage examples: how to call the HTTP routes (curl) and use the exported components and functions, from the code itself.
import type { ProjectContext } from '../../project/context.js';
import { exportsOf, projectName, type RouteDoc } from './facts.js';

export async function examplesMarkdown(context: ProjectContext, read: (path: string) => Promise<string | null>, baseUrl: string, routes: RouteDoc[]): Promise<string> {
  const lines = [`# ${projectName(context)}: usage examples`, ''];
  if (routes.length > 0) {
    lines.push('## HTTP', '', `With the server running on ${baseUrl}:`, '', '```sh');
    for (const route of routes) {
      const path = route.path.replace(/:(\w+)/g, '<$1>');
      const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? ` -H 'content-type: application/json' -d '${await bodyExample(route.file, read)}'` : '';
      lines.push(`# ${route.method} ${route.path} (${route.file}:${route.line})`, `curl -X ${route.method} '${baseUrl}${path}'${body}`);
    }
    lines.push('```', '');
  }
  const exported = exportsOf(context).filter((symbol) => symbol.kind === 'component' || symbol.kind === 'function');
  const components = exported.filter((symbol) => symbol.kind === 'component' && /\.[jt]sx$/.test(symbol.file));
  if (components.length > 0) {
    lines.push('## Components', '');
    for (const component of components) {
      const props = propsOf((await read(component.file)) ?? '', component.name);
      lines.push(`### ${component.name}`, '', '```tsx', `import { ${component.name} } from './${component.file.replace(/\.[jt]sx$/, '')}';`, '', `<${component.name}${props.map((prop) => ` ${prop.name}={${prop.sample}}`).join('')} />`, '```', '');
    }
  }
  const functions = exported.filter((symbol) => symbol.kind === 'function' && !/(?:^|\/)(?:routes|middleware)\//.test(symbol.file));
  if (functions.length > 0) {
    lines.push('## Functions', '', '```ts');
    for (const fn of functions) lines.push(`import { ${fn.name} } from './${fn.file.replace(/\.[cm]?[jt]sx?$/, '')}';`);
    lines.push('');
    for (const fn of functions) lines.push(`${fn.name}(${(fn.params ?? []).join(', ')});`);
    lines.push('```', '');
  }
  return lines.join('\n');
}

/** The members of `<Name>Props` in the component's file, with a sample value for each. */
function propsOf(text: string, name: string): { name: string; sample: string }[] {
  const body = new RegExp(`(?:interface ${name}Props|type ${name}Props\\s*=)\\s*\\{([^}]*)\\}`).exec(text)?.[1] ?? '';
  return [...body.matchAll(/^\s*(\w+)(\??):\s*([^;\n]+)/gm)].filter((match) => !match[2]).map((match) => ({ name: match[1] as string, sample: sampleFor(match[3]?.trim() ?? '') }));
}

function sampleFor(type: string): string {
  if (type === 'string') return '"text"';
  if (type === 'number') return '1';
  if (type === 'boolean') return 'true';
  if (type.endsWith('[]')) return '[]';
  if (type.includes('=>')) return '() => {}';
  return `{/* ${type} */}`;
}

/** A JSON body from the zod object the route file declares, when there is one. */
async function bodyExample(file: string, read: (path: string) => Promise<string | null>): Promise<string> {
  const text = (await read(file)) ?? '';
  const body = /z\.object\(\{([^;]*?)\}\)/.exec(text)?.[1] ?? '';
  const fields = [...body.matchAll(/(\w+):\s*z\.(\w+)/g)].map((match) => `"${match[1]}": ${match[2] === 'number' ? '1' : match[2] === 'boolean' ? 'true' : match[2] === 'array' ? '[]' : match[2] === 'object' ? '{}' : '"text"'}`);
  return `{${fields.join(', ')}}`;
}

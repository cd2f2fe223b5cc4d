// Taint across files: request input passed to a function of another file reaches the sinks its summary names (DAO layers, services, helpers), and views rendered with input turn raw template output into reflected XSS.
import { resolveImport } from '../../../project/resolve.js';
import type { Finding } from '../types.js';
import type { ProjectView } from '../view.js';
import type { FunctionFlows, SecurityFacts, Slot } from './flows.js';
import type { CallTarget } from './scope.js';
import { xssRules } from './sinks.js';
import type { TemplateOutput } from './templates.js';

type Entry = { file: string; key: string; arg: Slot; origin: string };

/** An argument slot reaches a parameter slot when they are the same, or one is the whole object the other is a field of. */
function reaches(arg: Slot, param: Slot): boolean {
  return arg === param || param.startsWith(`${arg}.`) || arg.startsWith(`${param}.`);
}

const templateExtensions = ['ejs', 'pug', 'jade', 'hbs', 'handlebars', 'njk', 'nunjucks', 'html', 'twig', 'swig', 'mustache'];

/** Findings that need more than one file. */
export function linkFlows(view: ProjectView): Finding[] {
  const facts = new Map<string, SecurityFacts>();
  for (const [path, file] of view.files) if (file.security) facts.set(path, file.security);
  const paths = new Set(view.files.keys());
  const resolve = (from: string, target: CallTarget): { file: string; flows: FunctionFlows; key: string } | null => {
    const file = resolveImport(from, target.module, paths, view.aliases);
    const exports = file ? facts.get(file)?.exports : undefined;
    if (!file || !exports) return null;
    for (const key of [target.key, target.key.replace(/^default\./, ''), target.key === 'default' ? '' : `default.${target.key}`]) {
      const flows = exports[key];
      if (flows) return { file, flows, key };
    }
    return null;
  };

  const findings = new Map<string, Finding>();
  const renders: { view: string; local: string; origin: string }[] = [];
  const queue: Entry[] = [];
  for (const [path, fileFacts] of facts) {
    // A helper of another file that hashes with MD5/SHA-1 (the hashing helper of a users module), called with a password.
    for (const call of fileFacts.passwordCalls ?? []) {
      const target = resolve(path, call.target);
      for (const { param, sink } of target?.flows.hashes ?? []) {
        if (!target || !reaches(call.arg, param)) continue;
        const key = `${target.file}:${sink.line}:${sink.ruleId}`;
        if (!findings.has(key)) findings.set(key, { ...sink, file: target.file, message: `${sink.message.replace(/\.$/, '')} (a password from ${path}:${call.line}).` });
      }
    }
    for (const call of fileFacts.inputCalls) {
      const target = resolve(path, call.target);
      if (target) queue.push({ file: target.file, key: target.key, arg: call.arg, origin: `${path}:${call.line}` });
    }
    for (const handler of fileFacts.handlers) {
      const target = resolve(path, handler);
      if (target) queue.push({ file: target.file, key: target.key, arg: String(handler.param), origin: `the route registered at ${path}:${handler.line}` });
    }
    for (const render of fileFacts.renders) renders.push({ view: render.view, local: render.local, origin: `${path}:${render.line}` });
  }
  const seen = new Set<string>();
  for (let entry = queue.shift(); entry; entry = queue.shift()) {
    const id = `${entry.file}#${entry.key}#${entry.arg}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const flows = facts.get(entry.file)?.exports[entry.key];
    if (!flows) continue;
    for (const { param, sink } of flows.sinks) {
      if (!reaches(entry.arg, param)) continue;
      const key = `${entry.file}:${sink.line}:${sink.ruleId}`;
      if (!findings.has(key)) findings.set(key, { ...sink, file: entry.file, message: `${sink.message.replace(/\.$/, '')} (the input comes from ${entry.origin}).` });
    }
    for (const call of flows.calls) {
      if (!reaches(entry.arg, call.param)) continue;
      const target = resolve(entry.file, call.target);
      if (target) queue.push({ file: target.file, key: target.key, arg: call.arg, origin: entry.origin });
    }
    for (const render of flows.renders) if (reaches(entry.arg, render.param)) renders.push({ view: render.view, local: render.local, origin: entry.origin });
  }
  return [...findings.values(), ...templateFindings(view, renders)];
}

/** Raw outputs of locals rendered with input are reflected XSS (High); the others are one Low finding per template. */
function templateFindings(view: ProjectView, renders: { view: string; local: string; origin: string }[]): Finding[] {
  const findings: Finding[] = [];
  for (const [path, file] of view.files) {
    const outputs: TemplateOutput[] = file.security?.outputs ?? [];
    if (outputs.length === 0) continue;
    const tainted = new Map<string, string>();
    for (const render of renders) if (viewMatches(path, render.view)) tainted.set(render.local, render.origin);
    const untraced: TemplateOutput[] = [];
    for (const output of outputs) {
      const origin = tainted.get(output.root);
      if (!origin) {
        // Escaped output in a URL or a script is only worth a finding when it is known to carry input.
        if (!output.context) untraced.push(output);
        continue;
      }
      findings.push({
        file: path, line: output.line, column: output.column, ruleId: xssRules.reflected.id, category: 'xss', severity: output.context ? 'Medium' : 'High',
        message: output.context === 'url' ? `"${output.expression.slice(0, 60)}" starts a URL attribute and holds request input (rendered at ${origin}): a javascript: URL runs.`
          : output.context === 'script' ? `"${output.expression.slice(0, 60)}" is output inside a <script> and holds request input (rendered at ${origin}): HTML escaping does not protect JavaScript.`
            : `${output.engine} outputs "${output.expression.slice(0, 60)}" without escaping, and it holds request input (rendered at ${origin}).`,
        fix: output.context ? `Use ${output.safeForm}.` : `Use ${output.safeForm}, or sanitise the HTML before it reaches the template.`,
      });
    }
    const first = untraced[0];
    if (!first) continue;
    const lines = [...new Set(untraced.map((output) => output.line))];
    findings.push({
      file: path, line: first.line, column: first.column, ruleId: xssRules.template.id, category: 'xss', severity: 'Low',
      message: `${first.engine} outputs ${untraced.length === 1 ? `"${first.expression.slice(0, 60)}"` : `${untraced.length} values`} without escaping (line${lines.length > 1 ? 's' : ''} ${lines.join(', ')}): stored XSS wherever such a value holds text users wrote.`,
      fix: `Use ${first.safeForm} unless the value is HTML you produced and sanitised.`,
    });
  }
  return findings;
}

/** `res.render('search')` renders views/search.ejs (or any template named search in a views folder). */
function viewMatches(path: string, view: string): boolean {
  const name = view.replace(/^\.?\//, '');
  const withExtension = /\.[a-z]+$/.test(name) ? [name] : templateExtensions.map((extension) => `${name}.${extension}`);
  return withExtension.some((candidate) => path === candidate || path.endsWith(`/${candidate}`));
}

// Mongoose models in the project's own shape: learned from an existing model (require or import, `mongoose.Schema(` or `new Schema(`, the plugins every model applies, how it is exported) and added to the models index.
import { posix } from 'node:path';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { afterStatement, applyEdits, lineStart, parseExisting } from './ast-edit.js';
import { busiestFolder, existsError, isConventionSource } from './conventions.js';
import { camelCase } from './names.js';
import { printSnippet, printSource } from './printer.js';
import type { FieldSpec } from './task.js';
import { children, staticString, child, identifierName, type AstNode } from '../../project/ast.js';

type Template = { commonjs: boolean; newSchema: string; plugins: string[]; pluginImport: string | null; fileName: (name: string) => string; exportStyle: 'module.exports' | 'default' | 'named' };

const mongooseType = (field: FieldSpec): string => {
  const base = { string: 'String', text: 'String', int: 'Number', number: 'Number', boolean: 'Boolean', date: 'Date', json: 'mongoose.Schema.Types.Mixed', handler: 'String' }[field.type];
  return field.list ? `[${base}]` : base;
};

/** The model file and the models index step, when the project has one. */
export async function mongooseModelSteps(context: ProjectContext, read: (path: string) => Promise<string | null>, name: string, fields: FieldSpec[], typescript: boolean): Promise<PlanStep[]> {
  const isModel = (path: string): boolean => /\.[cm]?[jt]s$/.test(path) && (context.files[path]?.facts?.imports.some((fact) => fact.source === 'mongoose') ?? false) && !/(?:^|\/)(?:plugins?|config|db|database)\//.test(path);
  const folder = busiestFolder(context, isModel, 'src/models');
  const templatePath = Object.keys(context.files).filter((path) => posix.dirname(path) === folder && isModel(path) && isConventionSource(context, path)).sort()[0];
  const template = learn(templatePath, templatePath ? (await read(templatePath)) ?? '' : '', typescript, context.style.importStyle === 'commonjs');
  const extension = templatePath ? posix.extname(templatePath) : typescript ? '.ts' : '.js';
  const path = posix.join(folder, template.fileName(name).replace(/\.[cm]?[jt]s$/, '') + extension);
  if (context.files[path]) throw existsError(`${path} already exists.`);
  const schema = `${camelCase(name)}Schema`;
  const lines: string[] = [];
  lines.push(template.commonjs ? 'const mongoose = require(\'mongoose\');' : 'import mongoose from \'mongoose\';');
  if (template.pluginImport) lines.push(template.pluginImport);
  lines.push('', `const ${schema} = ${template.newSchema}(`, '  {');
  for (const field of fields.filter((candidate) => candidate.name !== 'id')) {
    lines.push(`    ${field.name}: {`, `      type: ${mongooseType(field)},`, ...(field.optional ? [] : ['      required: true,']), ...(field.type === 'string' && !field.list ? ['      trim: true,'] : []), '    },');
  }
  lines.push('  },', '  {', '    timestamps: true,', '  }', ');', '');
  for (const plugin of template.plugins) lines.push(`${schema}.plugin(${plugin});`);
  if (template.plugins.length > 0) lines.push('');
  lines.push(`const ${name} = mongoose.model('${name}', ${schema});`, '');
  lines.push(template.exportStyle === 'module.exports' ? `module.exports = ${name};` : template.exportStyle === 'default' ? `export default ${name};` : `export { ${name} };`);
  const steps: PlanStep[] = [{ action: 'create-file', path, summary: `Mongoose model ${name} (${fields.length} fields${template.plugins.length > 0 ? `, plugins ${template.plugins.join(', ')}` : ''}), shaped like ${templatePath ?? 'the Mongoose docs'}`, content: await printSource(path, lines.join('\n'), context.style) }];
  const index = await indexStep(context, read, folder, path, name, template);
  if (index) steps.push(index);
  return steps;
}

function learn(path: string | undefined, text: string, typescript: boolean, commonjsProject: boolean): Template {
  const base = path ? posix.basename(path) : '';
  const templateName = base.split('.')[0] ?? '';
  const suffix = base.slice(templateName.length);
  const plugins = [...text.matchAll(/^\s*\w+Schema\.plugin\((\w+)\)/gm)].map((match) => match[1] as string);
  const pluginImport = plugins.length > 0 ? text.split('\n').find((line) => plugins.every((plugin) => line.includes(plugin)) && /require\(|\bfrom\b/.test(line)) ?? null : null;
  return {
    commonjs: text ? /require\(['"]mongoose['"]\)/.test(text) : commonjsProject && !typescript,
    newSchema: /new\s+mongoose\.Schema\(/.test(text) ? 'new mongoose.Schema' : /\bmongoose\.Schema\(/.test(text) ? 'mongoose.Schema' : 'new mongoose.Schema',
    plugins,
    pluginImport,
    fileName: (name) => (templateName ? `${/^[A-Z]/.test(templateName) ? name : camelCase(name)}${suffix}` : `${camelCase(name)}.model`),
    exportStyle: /module\.exports\s*=/.test(text) ? 'module.exports' : /export\s+default/.test(text) ? 'default' : text ? 'named' : commonjsProject ? 'module.exports' : 'default',
  };
}

/** `module.exports.Review = require('./review.model');` (or the ESM re-export) in the models index, in name order. */
async function indexStep(context: ProjectContext, read: (path: string) => Promise<string | null>, folder: string, modelPath: string, name: string, template: Template): Promise<PlanStep | null> {
  const indexPath = ['index.js', 'index.ts', 'index.mjs', 'index.cjs'].map((file) => posix.join(folder, file)).find((path) => context.files[path]);
  if (!indexPath) return null;
  const text = await read(indexPath);
  if (text === null) return null;
  const parsed = parseExisting(indexPath, text);
  const specifier = `./${posix.basename(modelPath).replace(/\.[cm]?[jt]s$/, '')}`;
  const line = template.commonjs ? `module.exports.${name} = require('${specifier}');` : template.exportStyle === 'default' ? `export { default as ${name} } from '${specifier}';` : `export { ${name} } from '${specifier}';`;
  const entries = children(parsed.program, 'body').map((statement) => ({ statement, exported: exportedName(statement) })).filter((entry): entry is { statement: AstNode; exported: string } => entry.exported !== null);
  const before = entries.filter((entry) => entry.exported.localeCompare(name) < 0).at(-1) ?? null;
  const printed = await printSnippet(indexPath, line, context.style, '');
  if (!before && entries[0]) {
    const first = entries[0].statement;
    const content = applyEdits(indexPath, text, [{ offset: lineStart(text, first.start + parsed.offset), text: printed }], `in ${indexPath}: ${line}`);
    return { action: 'update-exports', path: indexPath, summary: `export ${name} from the models index`, content };
  }
  const anchor = before?.statement ?? children(parsed.program, 'body').at(-1);
  if (!anchor) return { action: 'update-exports', path: indexPath, summary: `export ${name} from the models index`, content: `${text}${printed}` };
  const content = applyEdits(indexPath, text, [afterStatement(text, parsed, anchor, printed, { blankLine: false })], `in ${indexPath}: ${line}`);
  return { action: 'update-exports', path: indexPath, summary: `export ${name} from the models index`, content };
}

/** The name an index statement exports (`module.exports.X = …`, `export { default as X } from …`, `export { X } from …`). */
function exportedName(statement: AstNode): string | null {
  if (statement.type === 'ExpressionStatement') {
    const expression = child(statement, 'expression');
    const left = expression?.type === 'AssignmentExpression' ? child(expression, 'left') : null;
    return left?.type === 'MemberExpression' ? identifierName(child(left, 'property')) : null;
  }
  if (statement.type === 'ExportNamedDeclaration' && staticString(child(statement, 'source'))) {
    const specifier = children(statement, 'specifiers')[0];
    return specifier ? identifierName(child(specifier, 'exported')) : null;
  }
  return null;
}

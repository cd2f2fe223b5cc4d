// Sequelize models in the shape the project's models have: sequelize-cli's `(sequelize, DataTypes) => sequelize.define(…)` modules, or `Model.init` classes on the project's Sequelize instance.
import { posix } from 'node:path';
import type { ProjectContext } from '../../project/context.js';
import type { PlanStep } from '../plan-draft.js';
import { type AstNode, child, children, identifierName, walk } from '../../project/ast.js';
import { appendElement, applyEdits, parseExisting } from './ast-edit.js';
import { busiestFolder, existsError, findFile, importSpecifier, isConventionSource, type Conventions } from './conventions.js';
import { camelCase, fileBaseName, plural, snakeCase } from './names.js';
import { printSource } from './printer.js';
import type { FieldSpec } from './task.js';

const dataType: Record<FieldSpec['type'], string> = { string: 'STRING', text: 'TEXT', int: 'INTEGER', number: 'DOUBLE', boolean: 'BOOLEAN', date: 'DATE', json: 'JSON', handler: 'STRING' };
const tsType: Record<FieldSpec['type'], string> = { string: 'string', text: 'string', int: 'number', number: 'number', boolean: 'boolean', date: 'Date', json: 'Record<string, unknown>', handler: 'string' };

/** The model file, shaped like an existing model (or as a `Model.init` class when there is none), and the registration of a model definer where the project lists them. */
export async function sequelizeModelSteps(context: ProjectContext, read: (path: string) => Promise<string | null>, name: string, fields: FieldSpec[], conventions: Conventions): Promise<PlanStep[]> {
  const isModel = (path: string, text: string): boolean => /\bsequelize\.define\(|\.init\(\s*\{|extends\s+Model\b/.test(text) && !/(?:^|\/)index\.[cm]?[jt]s$/.test(path);
  const candidates = Object.entries(context.files).filter(([path, entry]) => isConventionSource(context, path) && /\.[cm]?[jt]s$/.test(path) && ((entry.facts?.imports.some((fact) => fact.source === 'sequelize' || fact.source === 'sequelize-typescript') ?? false) || /(?:^|\/)models\//.test(path)));
  let template: { path: string; text: string } | null = null;
  for (const [path] of candidates.sort(([left], [right]) => left.localeCompare(right))) {
    const text = (await read(path)) ?? '';
    if (isModel(path, text)) {
      template = { path, text };
      break;
    }
  }
  const folder = template ? posix.dirname(template.path) : busiestFolder(context, (path) => /(?:^|\/)models\//.test(path), 'src/models');
  const extension = template ? posix.extname(template.path) : conventions.typescript ? '.ts' : '.js';
  const templateBase = template ? posix.basename(template.path).split('.')[0] ?? '' : '';
  const base = templateBase && /^[A-Z]/.test(templateBase) ? name : templateBase.includes('-') ? fileBaseName(name, 'kebab-case') : templateBase ? camelCase(name) : fileBaseName(name, context.style.fileNaming);
  const path = posix.join(folder, `${base}${template ? posix.basename(template.path).slice(templateBase.length, -extension.length) : ''}${extension}`);
  if (context.files[path]) throw existsError(`${path} already exists.`);
  const attributes = fields.filter((field) => field.name !== 'id').map((field) => `  ${field.name}: { type: DataTypes.${field.list ? `JSON` : dataType[field.type]}, allowNull: ${field.optional} },`);
  const table = /underscored:\s*true/.test(template?.text ?? '') ? snakeCase(plural(name)) : plural(name);
  let source: string;
  const definer = template ? /module\.exports\s*=\s*(?:\(\s*sequelize\s*\)\s*=>|function\s*\(\s*sequelize\s*\))/.test(template.text) : false;
  if (template && definer) {
    // A definer module (`module.exports = (sequelize) => { sequelize.define('user', {...}) }`) that the project's index calls.
    const lower = /sequelize\.define\(\s*['"][a-z]/.test(template.text);
    const modelName = lower ? camelCase(name) : name;
    source = [
      'const { DataTypes } = require(\'sequelize\');',
      '',
      'module.exports = (sequelize) => {',
      `  sequelize.define('${modelName}', {`,
      '    id: { allowNull: false, autoIncrement: true, primaryKey: true, type: DataTypes.INTEGER },',
      ...fields.filter((field) => field.name !== 'id').map((field) => `    ${field.name}: { allowNull: ${field.optional}, type: DataTypes.${field.list ? 'JSON' : dataType[field.type]} },`),
      '  });',
      '};',
      '',
    ].join('\n');
    const step: PlanStep = { action: 'create-file', path, summary: `Sequelize model ${modelName}, a definer shaped like ${template.path}`, content: await printSource(path, source, context.style) };
    const registration = await registerDefiner(context, read, folder, path);
    return registration ? [step, registration] : [step];
  }
  if (template && /\(\s*sequelize\s*,\s*DataTypes\s*\)\s*=>|function\s*\(\s*sequelize\s*,\s*DataTypes\s*\)/.test(template.text)) {
    // sequelize-cli: models/index.js loads every file of the folder and calls it with (sequelize, DataTypes).
    const commonjs = /module\.exports\s*=/.test(template.text);
    source = [
      `${commonjs ? 'module.exports =' : 'export default'} (sequelize, DataTypes) => {`,
      `  const ${name} = sequelize.define('${name}', {`,
      ...attributes.map((line) => `  ${line}`),
      `  }, { tableName: '${table}' });`,
      `  return ${name};`,
      '};',
      '',
    ].join('\n');
  } else {
    const instanceFile = findFile(context, (_path, entry) => entry.facts?.imports.some((fact) => fact.source === 'sequelize') ?? false) ?? null;
    const instanceText = instanceFile ? (await read(instanceFile)) ?? '' : '';
    const instance = /export\s+(?:const|let)\s+(\w+)\s*=\s*new\s+Sequelize\(/.exec(instanceText)?.[1] ?? (/export\s+default\s+new\s+Sequelize\(|module\.exports\s*=\s*new\s+Sequelize\(/.test(instanceText) ? 'default' : null);
    if (!instanceFile || !instance) {
      throw existsError('cadre found no Sequelize instance to attach the model to (a file exporting `new Sequelize(…)`).');
    }
    const typed = conventions.typescript;
    const commonjs = !conventions.esm;
    const instanceName = instance === 'default' ? 'sequelize' : instance;
    const specifier = importSpecifier(path, instanceFile, conventions);
    const imports = commonjs
      ? [`const { DataTypes, Model } = require('sequelize');`, `const ${instance === 'default' ? instanceName : `{ ${instanceName} }`} = require('${specifier}');`]
      : [`import { DataTypes, Model${typed ? ', type CreationOptional, type InferAttributes, type InferCreationAttributes' : ''} } from 'sequelize';`, `import ${instance === 'default' ? instanceName : `{ ${instanceName} }`} from '${specifier}';`];
    const declarations = typed ? [
      `  declare id: CreationOptional<number>;`,
      ...fields.filter((field) => field.name !== 'id').map((field) => `  declare ${field.name}: ${field.optional ? `CreationOptional<${tsType[field.type]}${field.list ? '[]' : ''} | null>` : `${tsType[field.type]}${field.list ? '[]' : ''}`};`),
    ] : [];
    source = [
      ...imports,
      '',
      `${commonjs ? '' : 'export '}class ${name} extends Model${typed ? `<InferAttributes<${name}>, InferCreationAttributes<${name}>>` : ''} {`,
      ...declarations,
      '}',
      '',
      `${name}.init(`,
      '  {',
      '    id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },',
      ...attributes.map((line) => `  ${line}`),
      '  },',
      `  { sequelize: ${instanceName}, tableName: '${table}' },`,
      ');',
      ...(commonjs ? ['', `module.exports = { ${name} };`] : []),
      '',
    ].join('\n');
  }
  return [{ action: 'create-file', path, summary: `Sequelize model ${name} (table ${table})${template ? `, shaped like ${template.path}` : ''}`, content: await printSource(path, source, context.style) }];
}

/** `require('./models/review.model')` appended to the array of model definers the project's Sequelize set-up calls. */
async function registerDefiner(context: ProjectContext, read: (path: string) => Promise<string | null>, folder: string, modelPath: string): Promise<PlanStep | null> {
  for (const [path, entry] of Object.entries(context.files)) {
    if (!isConventionSource(context, path) || !entry.facts?.imports.some((fact) => fact.kind === 'require' && posix.join(posix.dirname(path), fact.source).startsWith(folder))) continue;
    const text = await read(path);
    if (!text) continue;
    const parsed = parseExisting(path, text);
    let array: AstNode | null = null;
    walk(parsed.program, (node) => {
      if (array || node.type !== 'ArrayExpression') return;
      const elements = children(node, 'elements');
      if (elements.length > 0 && elements.every((element) => element.type === 'CallExpression' && identifierName(child(element, 'callee')) === 'require')) array = node;
    });
    if (!array) continue;
    const specifier = `./${posix.relative(posix.dirname(path), modelPath).replace(/\.[cm]?js$/, '')}`.replace(/^\.\/\.\./, '..');
    const quote = context.style.quotes === 'double' ? '"' : "'";
    const content = applyEdits(path, text, [appendElement(text, parsed, array, `require(${quote}${specifier}${quote})`)], `to the model definers in ${path}`);
    return { action: 'modify-file', path, summary: `register the model's definer in ${path}`, content };
  }
  return null;
}

// Quality rules inside one file: complexity, long functions, deep nesting, long parameter lists, god files, naming.
import { type AstNode, child, identifierName, walk } from '../../../project/ast.js';
import { isTestPath } from '../code-paths.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';
import { functionMetrics } from './functions.js';

const rule = (id: string, category: string, title: string, help: string): RuleMeta => ({ id, kind: 'quality', category, title, help });

export const smellRules = {
  cyclomatic: rule('quality/cyclomatic-complexity', 'complexity', 'Function with high cyclomatic complexity', 'Split the function: extract each branch or case into a named helper, or replace conditionals with a lookup table.'),
  cognitive: rule('quality/cognitive-complexity', 'complexity', 'Function that is hard to follow', 'Flatten it: return early, extract nested blocks into functions, and avoid mixing && and || in one condition.'),
  longFunction: rule('quality/long-function', 'smells', 'Long function', 'Extract coherent steps into named functions.'),
  deepNesting: rule('quality/deep-nesting', 'smells', 'Deeply nested code', 'Use guard clauses (return early) and extract the inner blocks.'),
  longParameters: rule('quality/long-parameter-list', 'smells', 'Long parameter list', 'Pass an options object, or group the related parameters into a type.'),
  godFile: rule('quality/god-file', 'smells', 'File that does too much', 'Split the file by responsibility; keep one module per concern.'),
  naming: rule('quality/naming-convention', 'naming', 'Name that breaks the naming convention', 'camelCase for functions and variables, PascalCase for classes, types and components, UPPER_CASE for module constants.'),
};

export const thresholds = { cyclomatic: 10, cognitive: 15, functionLines: 60, nesting: 4, params: 5, fileLines: 500, fileFunctions: 30 };

export function checkSmells(file: SourceFile): Finding[] {
  if (!file.parsed) return [];
  const findings: Finding[] = [];
  const lineOf = (offset: number): number => file.position(offset + (file.parsed?.offset ?? 0)).line;
  const metrics = functionMetrics(file.parsed.program, lineOf);
  for (const metric of metrics) {
    const at = metric.node;
    if (metric.cyclomatic > thresholds.cyclomatic) {
      findings.push(findingAt(file, at, smellRules.cyclomatic, { severity: metric.cyclomatic > 2 * thresholds.cyclomatic ? 'High' : 'Medium', message: `${metric.name} has a cyclomatic complexity of ${metric.cyclomatic} (limit ${thresholds.cyclomatic}).`, fix: smellRules.cyclomatic.help }));
    }
    if (metric.cognitive > thresholds.cognitive) {
      findings.push(findingAt(file, at, smellRules.cognitive, { severity: metric.cognitive > 2 * thresholds.cognitive ? 'High' : 'Medium', message: `${metric.name} has a cognitive complexity of ${metric.cognitive} (limit ${thresholds.cognitive}).`, fix: smellRules.cognitive.help }));
    }
    if (metric.lines > thresholds.functionLines && !isTestPath(file.path) && !isMostlyMarkup(metric.node, metric.lines, lineOf)) {
      findings.push(findingAt(file, at, smellRules.longFunction, { severity: metric.lines > 2 * thresholds.functionLines ? 'Medium' : 'Low', message: `${metric.name} is ${metric.lines} lines long (limit ${thresholds.functionLines}).`, fix: smellRules.longFunction.help }));
    }
    if (metric.maxNesting > thresholds.nesting) {
      findings.push(findingAt(file, at, smellRules.deepNesting, { severity: 'Medium', message: `${metric.name} nests blocks ${metric.maxNesting} deep (limit ${thresholds.nesting}).`, fix: smellRules.deepNesting.help }));
    }
    if (metric.params > thresholds.params) {
      findings.push(findingAt(file, at, smellRules.longParameters, { severity: 'Low', message: `${metric.name} takes ${metric.params} parameters (limit ${thresholds.params}).`, fix: smellRules.longParameters.help }));
    }
  }
  const lines = file.text.split('\n').length;
  const topLevelFunctions = metrics.length;
  if ((lines > thresholds.fileLines || topLevelFunctions > thresholds.fileFunctions) && !isTestPath(file.path)) {
    findings.push(findingAt(file, 0, smellRules.godFile, { severity: 'Medium', message: `This file has ${lines} lines and ${topLevelFunctions} functions (limits ${thresholds.fileLines} lines, ${thresholds.fileFunctions} functions).`, fix: smellRules.godFile.help }));
  }
  findings.push(...checkNaming(file));
  return findings;
}

/** A component whose length is its markup (an SVG logo, a landing page): long, but not a function to split. */
function isMostlyMarkup(fn: AstNode, lines: number, lineOf: (offset: number) => number): boolean {
  let markup = 0;
  walk(fn, (node) => {
    if (node.type !== 'JSXElement' && node.type !== 'JSXFragment') return undefined;
    markup += lineOf(node.end) - lineOf(node.start) + 1;
    return false;
  });
  return markup / lines >= 0.7;
}

function checkNaming(file: SourceFile): Finding[] {
  if (!file.parsed) return [];
  const findings: Finding[] = [];
  const report = (node: AstNode, message: string): void => {
    findings.push(findingAt(file, node, smellRules.naming, { severity: 'Low', message, fix: smellRules.naming.help }));
  };
  walk(file.parsed.program, (node, ancestors) => {
    const name = identifierName(child(node, 'id'));
    if (!name) return;
    if (node.type === 'ClassDeclaration' || node.type === 'TSInterfaceDeclaration' || node.type === 'TSTypeAliasDeclaration' || node.type === 'TSEnumDeclaration') {
      if (!/^[A-Z][A-Za-z0-9]*$/.test(name)) report(node, `${name} should be PascalCase.`);
    } else if (node.type === 'FunctionDeclaration') {
      if (!/^[a-zA-Z][A-Za-z0-9]*$/.test(name)) report(node, `The function ${name} should be camelCase.`);
    } else if (node.type === 'VariableDeclarator') {
      const declaration = ancestors.at(-1);
      const moduleConstant = declaration?.kind === 'const' && ancestors.length <= 3;
      const valid = /^[a-z$_][A-Za-z0-9$]*$/.test(name) || /^[A-Z][A-Za-z0-9]*$/.test(name) || (moduleConstant && /^[A-Z][A-Z0-9_]*$/.test(name)) || /^_+$/.test(name);
      if (!valid) report(node, `The variable ${name} should be camelCase${moduleConstant ? ' (or UPPER_CASE for a module constant)' : ''}.`);
    }
  });
  return findings;
}

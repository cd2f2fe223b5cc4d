// XSS in scripts: dangerouslySetInnerHTML, innerHTML and friends, document.write, request input sent back as HTML.
import { type AstNode, calleePath, child, children, identifierName, memberPath, staticString, walk } from '../../../project/ast.js';
import { findingAt } from '../source.js';
import type { Finding, RuleMeta, SourceFile } from '../types.js';
import { analyseTaint } from './taint.js';

const rule = (id: string, title: string, help: string): RuleMeta => ({ id, kind: 'security', category: 'xss', title, help });

export const xssRules = {
  dangerouslySetInnerHTML: rule('security/react-dangerous-html', 'dangerouslySetInnerHTML with unsanitised HTML', 'Render text as children, or sanitise the HTML first (DOMPurify.sanitize(html)).'),
  domSink: rule('security/dom-xss', 'HTML written into the DOM from a dynamic value', 'Use textContent (or createElement) for text; sanitise HTML with DOMPurify before innerHTML.'),
  reflected: rule('security/reflected-xss', 'Request input sent back as HTML', 'Escape the value for HTML (e.g. with a template engine that escapes, or he.encode), or send JSON with res.json().'),
  template: rule('security/template-xss', 'Unescaped output in a template', 'Use the escaping form of the template syntax, or sanitise the HTML before it reaches the template.'),
};

const sanitized = /(?:^|\.)(?:sanitize\w*|purify|escape\w*|encode\w*|xss|filterXSS|sanitizeHtml|renderToStaticMarkup)$/i;
const domSinkProperties = new Set(['innerHTML', 'outerHTML']);
const htmlResponseCalls = /^(?:res|response|reply|ctx)(?:\.(?:status|type|set|code|header))?\.(?:send|write|end)$/;

export function checkXss(file: SourceFile): Finding[] {
  if (!file.parsed) return [];
  const taint = analyseTaint(file.parsed.program);
  const findings: Finding[] = [];
  const isSafe = (value: AstNode | null): boolean => {
    if (!value) return true;
    if (staticString(value) !== null) return true;
    if (value.type === 'CallExpression' && sanitized.test(calleePath(value) ?? '')) return true;
    return false;
  };
  walk(file.parsed.program, (node, ancestors) => {
    if (node.type === 'JSXAttribute' && identifierName(child(node, 'name')) === 'dangerouslySetInnerHTML') {
      const html = htmlValue(node);
      if (!isSafe(html)) {
        const fromRequest = taint.isTainted(html, ancestors);
        findings.push(findingAt(file, node, xssRules.dangerouslySetInnerHTML, {
          severity: fromRequest ? 'High' : 'Medium',
          message: fromRequest ? 'dangerouslySetInnerHTML renders request input as HTML.' : 'dangerouslySetInnerHTML renders HTML that is not sanitised here.',
          fix: xssRules.dangerouslySetInnerHTML.help,
        }));
      }
      return;
    }
    if (node.type === 'AssignmentExpression') {
      const left = child(node, 'left');
      const property = left?.type === 'MemberExpression' ? identifierName(child(left, 'property')) : null;
      if (property && domSinkProperties.has(property) && !isSafe(child(node, 'right'))) {
        findings.push(findingAt(file, node, xssRules.domSink, { severity: 'High', message: `${property} is set from a dynamic value; any markup in it runs.`, fix: xssRules.domSink.help }));
      }
      return;
    }
    if (node.type !== 'CallExpression') return;
    const callee = calleePath(node) ?? '';
    const args = children(node, 'arguments');
    if (/(?:^|\.)(?:document\.write|document\.writeln)$/.test(callee) && !isSafe(args[0] ?? null)) {
      findings.push(findingAt(file, node, xssRules.domSink, { severity: 'High', message: `${callee}() writes a dynamic value as HTML.`, fix: xssRules.domSink.help }));
    } else if (/\.insertAdjacentHTML$/.test(callee) && !isSafe(args[1] ?? null)) {
      findings.push(findingAt(file, node, xssRules.domSink, { severity: 'High', message: 'insertAdjacentHTML() inserts a dynamic value as HTML.', fix: xssRules.domSink.help }));
    } else if (htmlResponseCalls.test(callee) && args[0] && !isSafe(args[0]) && taint.isTainted(args[0], ancestors) && !isJsonResponse(ancestors)) {
      findings.push(findingAt(file, node, xssRules.reflected, { severity: 'High', message: `${callee}() sends request input back; Express serves strings as text/html.`, fix: xssRules.reflected.help }));
    }
  });
  return findings;
}

function htmlValue(attribute: AstNode): AstNode | null {
  const container = child(attribute, 'value');
  const expression = container ? child(container, 'expression') : null;
  if (expression?.type !== 'ObjectExpression') return expression;
  const html = children(expression, 'properties').find((property) => identifierName(child(property, 'key')) === '__html');
  return html ? child(html, 'value') : null;
}

/** `res.type('json')`, `res.set('Content-Type', 'application/json')` or text/plain earlier in the same handler. */
function isJsonResponse(ancestors: readonly AstNode[]): boolean {
  const handler = [...ancestors].reverse().find((node) => node.type.includes('Function'));
  if (!handler) return false;
  let plain = false;
  walk(handler, (node) => {
    if (node.type !== 'CallExpression') return;
    const callee = memberPath(child(node, 'callee')) ?? '';
    if (!/\.(?:type|set|setHeader|header|contentType)$/.test(callee)) return;
    const values = children(node, 'arguments').map(staticString).join(' ');
    if (/json|text\/plain|^text$/i.test(values)) plain = true;
  });
  return plain;
}

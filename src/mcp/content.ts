// An MCP tool result as text for the model: text blocks as they are, other content named, never a secret the config gave the server.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { redactText } from '../store/redact.js';

type Block = CallToolResult['content'][number];

function blockText(block: Block): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.round((block.data.length * 3) / 4 / 1024)} KB, not shown]`;
    case 'resource': {
      const resource = block.resource as { uri: string; text?: string; mimeType?: string };
      return typeof resource.text === 'string' ? `[resource ${resource.uri}]\n${resource.text}` : `[resource ${resource.uri}${resource.mimeType ? `, ${resource.mimeType}` : ''}, binary, not shown]`;
    }
    case 'resource_link':
      return `[link to resource ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    default:
      return `[${(block as { type: string }).type} content, not shown]`;
  }
}

/** The result's text (structured content as JSON when there is no text); secrets registered from the config are redacted. */
export function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map(blockText);
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  return redactText(parts.join('\n') || '(the tool returned nothing)');
}

// The request-shape check names the field it refuses by its path in the body, however deep, as the audit trail records it.
import { describe, expect, it } from 'vitest';
import { checkRequestShape } from '../../src/gateway/request-shape.js';

const anthropic = { kind: 'anthropic' as const, endpoint: 'messages' as const, serverTools: [] };

describe('request shape', () => {
  it('names a refused field by its path', () => {
    const image = { type: 'image', source: { type: 'url', url: 'https://attacker.example/a.png' } };
    expect(checkRequestShape({ model: 'm', messages: [{ role: 'user', content: 'hi' }, { role: 'user', content: [{ type: 'text', text: 'x' }, image] }] }, anthropic))
      .toMatchObject({ ok: false, refusal: 'url-source', field: 'messages[1].content[1].source' });
    expect(checkRequestShape({ model: 'm', messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x'.repeat(300) }] }] }, anthropic))
      .toMatchObject({ ok: false, refusal: 'field-size', field: 'messages[0].content[0].tool_use_id' });
    const longKey = `k${'e'.repeat(60)}`;
    expect(checkRequestShape({ model: 'm', tools: [{ name: 't', input_schema: { properties: { [longKey]: { type: 'x'.repeat(300) } } } }] }, anthropic))
      .toMatchObject({ ok: false, refusal: 'field-size', field: `tools[0].input_schema.properties.${longKey.slice(0, 40)}….type` });
    let deep: unknown = 'bottom';
    for (let level = 0; level < 70; level += 1) deep = [deep];
    expect(checkRequestShape({ model: 'm', messages: deep }, anthropic)).toMatchObject({ ok: false, refusal: 'depth', field: `messages${'[0]'.repeat(64)}` });
  });

  it('counts the keys of every object and collects the texts', () => {
    const shape = checkRequestShape({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, anthropic);
    expect(shape).toMatchObject({ ok: true, attachments: 0, attachmentChars: 0, keys: 5 });
    expect(shape.ok && [...shape.texts].sort()).toEqual(['content', 'hi', 'm', 'max_tokens', 'messages', 'model', 'role', 'user']);
  });
});

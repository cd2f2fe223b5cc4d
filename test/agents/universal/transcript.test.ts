// Earlier turns' long tool outputs are shortened before a follow-up resends the conversation.
import { describe, expect, it } from 'vitest';
import { compactTranscript } from '../../../src/agents/universal/transcript.js';

describe('compactTranscript', () => {
  it('shortens long tool outputs of earlier turns and keeps everything else', () => {
    const long = 'x'.repeat(5000);
    const compacted = compactTranscript([
      { role: 'user', content: long },
      { role: 'tool', results: [{ id: '1', name: 'read-file', output: long, isError: false }, { id: '2', name: 'search', output: 'short', isError: false }] },
    ]);
    expect(compacted[0]).toEqual({ role: 'user', content: long });
    const results = compacted[1]?.role === 'tool' ? compacted[1].results : [];
    expect(results[0]?.output).toMatch(/^x{600}\n\[… 4400 characters of this earlier output omitted/);
    expect(results[1]?.output).toBe('short');
  });
});

// Keeps follow-ups affordable: long tool outputs from earlier tasks are shortened before they are sent again.

import type { ChatMessage } from '../../model/types.js';

/** Earlier turns' tool outputs over `keepChars` keep their start and say they were shortened; the rest is unchanged. */
export function compactTranscript(transcript: ChatMessage[], keepChars = 600): ChatMessage[] {
  return transcript.map((message) => {
    if (message.role !== 'tool') return message;
    return {
      role: 'tool',
      results: message.results.map((result) => result.output.length <= keepChars ? result : {
        ...result,
        output: `${result.output.slice(0, keepChars)}\n[… ${result.output.length - keepChars} characters of this earlier output omitted; use the tools again if you need it]`,
      }),
    };
  });
}

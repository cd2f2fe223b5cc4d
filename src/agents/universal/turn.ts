// One model turn as the person sees it: the waiting line while the model works, its text streamed as it arrives.
import type { OutputSink } from '../../output.js';
import type { ModelClient, ModelRequest, TokenUsage, ToolCall } from '../../model/types.js';
import { addUsage, zeroUsage } from '../../model/types.js';
import { startWaitingLine } from './waiting.js';

export interface TurnReply {
  text: string;
  calls: ToolCall[];
  usage: TokenUsage;
}

/** Streams one turn. A failure (stall, provider error, cancellation) is thrown after the waiting line is closed. */
export async function streamTurn(model: ModelClient, request: ModelRequest, emit: OutputSink): Promise<TurnReply> {
  const waiting = startWaitingLine(emit);
  let text = '';
  const calls: ToolCall[] = [];
  let usage = zeroUsage();
  try {
    for await (const part of model.stream({ ...request, onOutput: (chars) => waiting.addOutput(chars) })) {
      if (part.type === 'text-delta') {
        text += part.text;
        emit({ type: 'output.model-text', text: part.text });
      } else if (part.type === 'tool-call') calls.push(part.call);
      else usage = addUsage(usage, part.usage);
    }
  } finally {
    waiting.stop();
  }
  // A turn that failed leaves its line to the next output (the renderer ends it), so a cancelled one adds nothing.
  if (text && !text.endsWith('\n')) emit({ type: 'output.model-text', text: '\n' });
  return { text, calls, usage };
}

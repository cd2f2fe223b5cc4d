// Test helper: a valid session payload.
import type { SessionData } from '../../src/store/session-file.js';

export function sessionData(marker = 'hello'): SessionData {
  return {
    cadreVersion: '0.1.0',
    snapshot: { status: 'active', value: { idle: 'ready' }, context: { marker } },
    transcript: [{ role: 'user', text: marker, at: 1 }],
    usage: { inputTokens: 10, outputTokens: 5 },
    mode: 'approve',
    agent: 'universal-agent',
  };
}

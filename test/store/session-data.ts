// Test helper: a valid session payload.
import type { SessionData } from '../../src/store/session-file.js';

export function sessionData(marker = 'hello'): SessionData {
  return {
    cadreVersion: '0.1.0',
    snapshot: { status: 'active', value: { active: 'idle' }, context: { name: marker, transcript: [{ role: 'user', text: marker, at: 1 }] } },
  };
}

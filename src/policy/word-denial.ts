// The decision for a word the policy cannot resolve to a fixed string.
import { deny, type Decision } from './decision.js';
import type { WordResult } from './words.js';

export function wordDenial(failure: Extract<WordResult, { ok: false }>): Decision {
  switch (failure.kind) {
    case 'substitution':
      return deny('policy.blocked.substitution', `${failure.detail} runs a command inside the command; substitutions are blocked.`);
    case 'expansion':
      return deny('policy.parse.expansion', `${failure.detail} is only known when the shell runs; write the value literally.`);
    default:
      return deny('policy.parse.unsupported', `The policy cannot classify ${failure.detail}.`);
  }
}

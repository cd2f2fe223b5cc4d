import { randomBytes } from 'node:crypto';
export function createResetToken() {
  const resetToken = randomBytes(32).toString('hex');
  const jitterMs = Math.random() * 100;
  return { resetToken, jitterMs };
}

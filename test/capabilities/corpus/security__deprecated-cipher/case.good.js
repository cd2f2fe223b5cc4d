const crypto = require('crypto');
function encrypt(text, key) {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
  return [iv.toString('hex'), cipher.update(text, 'utf8', 'hex') + cipher.final('hex'), cipher.getAuthTag().toString('hex')];
}
module.exports = { encrypt };

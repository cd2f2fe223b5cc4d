const crypto = require('crypto');
function encrypt(text, key) {
  const cipher = crypto.createCipher('aes-256-cbc', key);
  return cipher.update(text, 'utf8', 'hex') + cipher.final('hex');
}
module.exports = { encrypt };

const crypto = require('crypto');
const bcrypt = require('bcrypt');
function hashPassword(password) {
  return bcrypt.hash(password, 12);
}
function etag(body) {
  return crypto.createHash('md5').update(body).digest('hex');
}
module.exports = { hashPassword, etag };

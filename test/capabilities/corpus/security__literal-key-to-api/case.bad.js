const jwt = require('jsonwebtoken');
function issue(user) {
  return jwt.sign({ sub: user.id }, 'my-signing-key', { expiresIn: '1h' });
}
module.exports = { issue };

const jwt = require('jsonwebtoken');
function issue(user) {
  return jwt.sign({ sub: user.id }, process.env.JWT_SIGNING_KEY, { expiresIn: '1h' });
}
module.exports = { issue };

const express = require('express');
const jwt = require('jsonwebtoken');
const app = express();
app.use(express.urlencoded({ extended: false }));
function authenticate(req, res, next) {
  const token = (req.headers.authorization || '').replace(/^Bearer /, '');
  try {
    req.user = jwt.verify(token, process.env.JWT_SECRET, { algorithms: ['HS256'] });
    next();
  } catch {
    res.sendStatus(401);
  }
}
app.post('/notes/:id/archive', authenticate, (req, res) => {
  res.sendStatus(204);
});

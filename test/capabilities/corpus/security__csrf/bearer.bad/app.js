const express = require('express');
const cookieSession = require('cookie-session');
const app = express();
app.use(express.urlencoded({ extended: false }));
app.use(cookieSession({ keys: [process.env.COOKIE_KEY] }));
app.post('/notes/:id/archive', (req, res) => {
  if (!req.session.user) return res.sendStatus(401);
  res.sendStatus(204);
});

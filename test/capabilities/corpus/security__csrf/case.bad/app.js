const express = require('express');
const session = require('express-session');
const app = express();
app.use(express.urlencoded({ extended: false }));
app.use(session({ secret: process.env.SESSION_SECRET, resave: false, saveUninitialized: false }));
app.post('/transfer', (req, res) => {
  if (!req.session.userId) return res.sendStatus(401);
  res.json({ ok: true, from: req.session.userId });
});

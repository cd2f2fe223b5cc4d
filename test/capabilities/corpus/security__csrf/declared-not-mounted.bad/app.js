const express = require('express');
const session = require('express-session');
const requireLogin = require('./require-login');
const app = express();
app.use(express.urlencoded({ extended: false }));
app.use(session({ secret: process.env.SESSION_SECRET, resave: false, saveUninitialized: false }));
app.post('/orders', requireLogin, (req, res) => {
  res.status(201).json({ owner: req.session.userId });
});

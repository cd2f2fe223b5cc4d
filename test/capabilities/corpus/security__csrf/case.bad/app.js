const express = require('express');
const cookieParser = require('cookie-parser');
const app = express();
app.use(cookieParser());
app.post('/transfer', (req, res) => {
  res.json({ ok: true });
});

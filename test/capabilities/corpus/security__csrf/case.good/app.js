const express = require('express');
const cookieParser = require('cookie-parser');
const { doubleCsrf } = require('csrf-csrf');
const app = express();
const { doubleCsrfProtection } = doubleCsrf({ getSecret: () => process.env.CSRF_SECRET });
app.use(cookieParser());
app.use(doubleCsrfProtection);
app.post('/transfer', (req, res) => {
  res.json({ ok: true });
});

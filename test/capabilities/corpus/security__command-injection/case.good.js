const { execFile } = require('child_process');
function thumbnail(req, res) {
  const file = req.query.file;
  execFile('convert', [file, '-resize', '64x64', 'thumb.png'], () => res.sendStatus(204));
}
module.exports = { thumbnail };

const { exec } = require('child_process');
function thumbnail(req, res) {
  const file = req.query.file;
  exec(`convert ${file} -resize 64x64 thumb.png`, () => res.sendStatus(204));
}
module.exports = { thumbnail };

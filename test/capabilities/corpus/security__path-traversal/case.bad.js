const fs = require('fs');
const path = require('path');
function download(req, res) {
  const file = path.join(__dirname, 'uploads', req.params.name);
  fs.readFile(file, (error, data) => res.send(data));
}
module.exports = { download };

const { generateKeyPairSync } = require('crypto');
module.exports = generateKeyPairSync('rsa', { modulusLength: 1024 });

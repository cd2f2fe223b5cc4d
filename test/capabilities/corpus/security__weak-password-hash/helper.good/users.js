const bcrypt = require('bcrypt');
const security = require('./security');
module.exports.register = async (db, email, password) => db.users.insert({ email, password: await bcrypt.hash(password, 12), avatar: security.hash(email) });

const security = require('./security');
module.exports.register = async (db, email, password) => db.users.insert({ email, password: security.hash(password) });

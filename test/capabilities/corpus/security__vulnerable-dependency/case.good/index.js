const _ = require('lodash');
const marked = require('marked');
module.exports = (text) => marked(_.trim(text));

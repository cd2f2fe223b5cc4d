const swig = require('swig');
swig.setDefaults({ autoescape: false, cache: 'memory' });
module.exports = (view, locals) => swig.renderFile(view, locals);

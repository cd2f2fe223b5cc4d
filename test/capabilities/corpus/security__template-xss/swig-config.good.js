const swig = require('swig');
swig.setDefaults({ autoescape: true, cache: 'memory' });
module.exports = (view, locals) => swig.renderFile(view, locals);

// Would leave a mark if it were run.
require('fs').writeFileSync(require('path').join(__dirname, 'MARK_JS'), 'executed');
process.exit(3);

#!/usr/bin/env node
const path = require('path');
if (require.main !== module) {
  return; // CommonJS allows a top-level return
}
module.exports = path.basename(__filename);

#!/usr/bin/env node
// `catalogd`: checks the Node version (bin/launch.cjs), then runs dist/src/cmd/catalogd.js.
'use strict';
require('./launch.cjs').launch('catalogd', '../dist/src/cmd/catalogd.js');

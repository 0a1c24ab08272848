#!/usr/bin/env node
// `kubectl-catalog` (`kubectl catalog`): checks the Node version (bin/launch.cjs), then runs
// dist/src/plugin/kubectl-catalog.js.
'use strict';
require('./launch.cjs').launch('kubectl-catalog', '../dist/src/plugin/kubectl-catalog.js');

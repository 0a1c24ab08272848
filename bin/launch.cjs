// The installed commands start here. This file and the bin/*.cjs launchers are plain
// CommonJS in ES2015 syntax (plus import()), so that an old Node can parse them and say what is
// wrong, where the compiled entry points (ES2023, top-level await) would fail with a syntax
// error or crash further in. The minimum is package.json's "engines".
'use strict';

var MIN_MAJOR = 22;
var MIN_MINOR = 19;

/** Whether Node `version` ("major.minor.patch") is at least MIN_MAJOR.MIN_MINOR. */
function newEnough(version) {
  var parts = version.split('.');
  var major = Number(parts[0]);
  var minor = Number(parts[1]);
  return major > MIN_MAJOR || (major === MIN_MAJOR && minor >= MIN_MINOR);
}

/**
 * Runs the compiled entry point `entry` (relative to this directory) of `command`, or says
 * which Node it needs and exits 1.
 */
function launch(command, entry) {
  var version = process.versions.node;
  if (!newEnough(version)) {
    process.stderr.write(
      command +
        ' needs Node.js ' +
        MIN_MAJOR +
        '.' +
        MIN_MINOR +
        ' or newer; this is Node ' +
        version +
        '. Install a newer Node (https://nodejs.org)\n',
    );
    process.exit(1);
  }
  import(entry).catch(function (err) {
    // A failure to load the entry point is a bug or a broken install: keep Node's report of it.
    process.nextTick(function () {
      throw err;
    });
  });
}

module.exports = { launch: launch, newEnough: newEnough };

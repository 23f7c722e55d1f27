#!/bin/sh
':' //; if [ -n "${NODE_EXTRA_CA_CERTS+set}" ]; then export SEALGATE_NODE_EXTRA_CA_CERTS="$NODE_EXTRA_CA_CERTS"; unset NODE_EXTRA_CA_CERTS; else unset SEALGATE_NODE_EXTRA_CA_CERTS; fi; exec node "$0" "$@"
'use strict';
// The line above is the launcher, for a shell (the file is both a POSIX shell script and
// CommonJS: to Node it is a string and a comment). Run as a program (`sealgate`, `npx
// sealgate`, node_modules/.bin/sealgate), it starts Node without NODE_EXTRA_CA_CERTS: Node
// parses that file and its whole bundled CA store at every start, before any of our code
// runs (about 75 ms per start on the development machine, more than the whole `gate`), and
// sealgate opens no network connection, so it has no use for it. The value is set aside in
// SEALGATE_NODE_EXTRA_CA_CERTS and restored below, before anything else, so every process
// sealgate starts (the test command of `run`, git) gets the environment exactly as it was.
// `node bin/sealgate.js` skips the launcher and works the same, only slower where the
// variable is set.
if (process.env.SEALGATE_NODE_EXTRA_CA_CERTS !== undefined) {
  if (process.env.NODE_EXTRA_CA_CERTS === undefined) process.env.NODE_EXTRA_CA_CERTS = process.env.SEALGATE_NODE_EXTRA_CA_CERTS;
  delete process.env.SEALGATE_NODE_EXTRA_CA_CERTS;
}
// The CLI's entry. A CommonJS file (bin/package.json), because Node starts a CommonJS entry
// faster than an ES module one. It loads one bundle (dist/bundle/<command>.cjs for the
// commands that have one of their own: gate, run, seal; dist/bundle/all.cjs for the others)
// and compiles it from its source bytes. No V8 code cache is read: a cache cannot be checked
// against the bundle without compiling the bundle (V8 checks only the source length, and a
// hash of the bundle in the cache proves nothing about the bytecode after it), so a cache
// written by a test would run the test's code under an honest-looking bundle. The cost is
// the compile time the cache saved (docs/decisions.md).
const { readFileSync } = require('node:fs');
const { isAscii } = require('node:buffer');
const { dirname, join } = require('node:path');
const { createRequire, wrap } = require('node:module');
const vm = require('node:vm');

const BUNDLES = join(__dirname, '..', 'dist', 'bundle');
/** Commands with a bundle of their own (scripts/bundle.mjs). */
const OWN_BUNDLE = new Set(['gate', 'run', 'seal']);

/** Compile and run one bundle as a CommonJS module; returns its exports and the compiled script. */
function loadBundle(name) {
  const file = join(BUNDLES, `${name}.cjs`);
  const bytes = readFileSync(file);
  // esbuild writes ASCII (non-ASCII characters escaped), which decodes fastest as latin1.
  const source = typeof isAscii === 'function' && isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.toString('utf8');
  // No importModuleDynamically: a bundle holds no import() (scripts/bundle.mjs checks). No cachedData (above).
  const script = new vm.Script(wrap(source), { filename: file });
  const module = { exports: {}, id: file, filename: file, loaded: false };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  module.loaded = true;
  return { exports: module.exports, script, bytes };
}

if (require.main === module) {
  let start;
  try {
    ({ start } = loadBundle(OWN_BUNDLE.has(process.argv[2]) ? process.argv[2] : 'all').exports);
  } catch (err) {
    process.stdout.write('E_INTERNAL\n');
    process.stderr.write(`sealgate: E_INTERNAL: cannot load the CLI bundle from ${BUNDLES} (${err && err.message}); build it with \`npm run build\`\n`);
    process.exitCode = 3;
  }
  // start() prints one code and sets the exit status itself; it never rejects.
  if (start) void start(process.argv.slice(2));
}

module.exports = { loadBundle, BUNDLES, OWN_BUNDLE };

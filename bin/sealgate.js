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
// and reads no other file. The bundle's end may hold its V8 code cache, made by the build
// (scripts/code-cache.cjs): the bytecode of the functions a command calls, so a start skips
// compiling them. The cache is in the bundle file, never beside it: V8 checks a cache only
// against the source's length, so a separate cache file could be forged under an honest
// bundle, while a forged cache in the bundle is a changed bundle, and whoever can change the
// bundle can write code of their own into it anyway. A cache V8 refuses (another Node, other
// flags) is ignored, and the bundle compiles from its source bytes (docs/decisions.md, "Code
// cache").
const { readFileSync } = require('node:fs');
const { isAscii } = require('node:buffer');
const { dirname, join } = require('node:path');
const { createRequire, wrap } = require('node:module');
const vm = require('node:vm');

const BUNDLES = join(__dirname, '..', 'dist', 'bundle');
/** Commands with a bundle of their own (scripts/bundle.mjs). */
const OWN_BUNDLE = new Set(['gate', 'run', 'seal']);

/**
 * The code cache's place in a bundle file, after the source (which ends with a newline):
 *   `//# sealgate-code-cache v1 <V8 version> <length>\n`, the cache's bytes as they are, then
 *   the footer, `\n//# sealgate-code-cache-at <offset of that first line, 10 digits>\n`.
 * The cache is binary, not base64: decoding it would cost a start a millisecond.
 */
const CACHE_MARK = '//# sealgate-code-cache v1 ';
const FOOT_MARK = '\n//# sealgate-code-cache-at ';
const FOOT_LENGTH = FOOT_MARK.length + 10 + 1;

/**
 * A bundle file's source and its code cache (none when the file has no footer: all of it is
 * the source). A cache made by another V8 is left out (V8 would refuse it). A footer that does
 * not describe the file exactly is an error, never a guess at where the source ends.
 */
function splitBundle(bytes) {
  const n = bytes.length;
  const foot = n >= FOOT_LENGTH ? bytes.latin1Slice(n - FOOT_LENGTH, n) : '';
  if (!foot.startsWith(FOOT_MARK)) return { source: bytes, cachedData: undefined, cacheVersion: null };
  const digits = foot.slice(FOOT_MARK.length, -1);
  const at = /^[0-9]{10}$/.test(digits) && foot.endsWith('\n') ? Number(digits) : -1;
  const eol = at > 0 && bytes[at - 1] === 0x0a ? bytes.indexOf(0x0a, at) : -1;
  const head = eol > at ? bytes.latin1Slice(at, eol) : '';
  const m = /^\/\/# sealgate-code-cache v1 ([0-9A-Za-z._-]+) ([0-9]{1,10})$/.exec(head);
  if (m === null || eol + 1 + Number(m[2]) !== n - FOOT_LENGTH) throw new Error('the code cache at the end of the bundle does not match its footer (a damaged build: run npm run build)');
  const cachedData = m[1] === process.versions.v8 ? bytes.subarray(eol + 1, n - FOOT_LENGTH) : undefined;
  return { source: bytes.subarray(0, at), cachedData, cacheVersion: m[1] };
}

/** The bundle file for `source` with `cachedData` made by this V8 (scripts/code-cache.cjs). */
function withCache(source, cachedData) {
  if (source.length === 0 || source[source.length - 1] !== 0x0a) throw new Error('a bundle must end with a newline before its code cache');
  if (source.length > 9999999999) throw new Error('bundle too large for the code cache footer');
  const head = Buffer.from(`${CACHE_MARK}${process.versions.v8} ${cachedData.length}\n`, 'latin1');
  const foot = Buffer.from(`${FOOT_MARK}${String(source.length).padStart(10, '0')}\n`, 'latin1');
  return Buffer.concat([source, head, cachedData, foot]);
}

/** Compile and run one bundle as a CommonJS module; returns its exports and the compiled script. */
function loadBundle(name) {
  const file = join(BUNDLES, `${name}.cjs`);
  const { source: bytes, cachedData } = splitBundle(readFileSync(file));
  // esbuild writes ASCII (non-ASCII characters escaped), which decodes fastest as latin1.
  const source = typeof isAscii === 'function' && isAscii(bytes) ? bytes.latin1Slice(0, bytes.length) : bytes.toString('utf8');
  // No importModuleDynamically: a bundle holds no import() (scripts/bundle.mjs checks).
  const script = new vm.Script(wrap(source), { filename: file, cachedData });
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

module.exports = { loadBundle, splitBundle, withCache, BUNDLES, OWN_BUNDLE };

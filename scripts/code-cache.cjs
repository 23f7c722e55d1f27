'use strict';
// Makes the V8 code cache of one CLI bundle and writes it into the bundle file itself, at its
// end (scripts/bundle.mjs runs this once per bundle, in a child process of its own).
//
//   node scripts/code-cache.cjs dist/bundle/gate.cjs '[["gate", "--help"], ...]'
//
// The bundle is compiled exactly as bin/sealgate.js compiles it, its top level run, and then
// each argument list given is run through its start(), as a user's command would be, with
// this process's output thrown away by the caller. Only then is the cache made, so it holds
// the bytecode of every function those commands called, not only the top level: that is the
// compile work a command's start would otherwise repeat. A code cache holds bytecode, never
// the heap: nothing these runs left behind (a path, a pid, a memo) reaches a later process.
//
// Why the cache lives inside the bundle file (docs/decisions.md, "Code cache"): bin/sealgate.js
// then reads no file but the bundle, so whoever could forge the cache could write the bundle's
// own code just as well; a separate cache file could be forged under an honest bundle.
const { readFileSync, writeFileSync, writeSync } = require('node:fs');
const { dirname, resolve } = require('node:path');
const { createRequire, wrap } = require('node:module');
const vm = require('node:vm');
const { splitBundle, withCache } = require('../bin/sealgate.js');

/** This script's own report goes to descriptor 3 when the caller opened it: 1 and 2 carry the warm-up commands' output. */
function report(text) {
  try {
    writeSync(3, text);
  } catch {
    process.stderr.write(text);
  }
}

async function main() {
  const file = resolve(process.argv[2]);
  const runs = JSON.parse(process.argv[3] ?? '[]');
  const bytes = readFileSync(file);
  // A bundle carries at most one cache: one already there (a second run of this script) is replaced.
  const { source: src } = splitBundle(bytes);
  const source = src.latin1Slice(0, src.length);
  if (!src.equals(Buffer.from(source, 'latin1')))
    throw new Error(`${file}: not ASCII (esbuild writes ASCII; the loader would decode it otherwise)`);
  const script = new vm.Script(wrap(source), { filename: file });
  const module = { exports: {}, id: file, filename: file, loaded: false };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  for (const argv of runs) {
    await module.exports.start(argv);
    // A warm-up that fails ran another path than the one it stands for (the acceptance inputs
    // moved, a command changed): the cache would be colder than it says, so the build stops.
    if ((process.exitCode ?? 0) !== 0)
      throw new Error(`${file}: the warm-up run ${JSON.stringify(argv)} exited ${process.exitCode}`);
  }
  const data = script.createCachedData();
  writeFileSync(file, withCache(src, data));
  report(`code cache: ${file}: ${data.length} bytes (V8 ${process.versions.v8}, ${runs.length} warm-up run(s))\n`);
}

main().catch((err) => {
  report(`code cache: ${err && err.stack ? err.stack : err}\n`);
  process.exitCode = 1;
});

#!/usr/bin/env node
// `gate` has a bundle of its own (see scripts/bundle.mjs); every other command is in run.js.
const bundle = process.argv[2] === 'gate' ? '../dist/bundle/gate.js' : '../dist/bundle/run.js';
const { start } = await import(bundle);
await start(process.argv.slice(2));

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { Script } from 'node:vm';
import { fileURLToPath } from 'node:url';
import { tempDir } from '../helpers/git.js';

// Attack: a test (run unsandboxed, or a sandbox gone wrong) writes a V8 code cache beside
// sealgate's bundle whose first 32 bytes are the real bundle's SHA-256 and whose bytecode is
// the attacker's, compiled from a source of the same length (V8 itself checks only the
// length). The next sealgate step would run the attacker's code while its bundle on disk
// looks honest. sealgate reads no file beside the bundle: the only code cache it uses is the
// one at the end of the bundle file itself (test/cli/bundle.test.ts), so a forgery must change
// the bundle, and whoever can do that can write code of their own into it anyway.
const root = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLES = join(root, 'dist', 'bundle');
const { wrap } = createRequire(import.meta.url)('node:module') as { wrap: (s: string) => string };
const skip = existsSync(join(BUNDLES, 'all.cjs')) ? false : 'no build in dist/ (run npm run build first)';

test("a forged code cache with the bundle's hash and other bytecode is never run", { skip }, () => {
  const t = tempDir('sealgate-forged-cache-');
  try {
    // A private copy of the install to tamper with; the real one is never touched.
    cpSync(join(root, 'bin'), join(t.dir, 'bin'), { recursive: true });
    cpSync(BUNDLES, join(t.dir, 'dist', 'bundle'), { recursive: true });
    cpSync(join(root, 'package.json'), join(t.dir, 'package.json'));
    symlinkSync(join(root, 'node_modules'), join(t.dir, 'node_modules'), 'dir');
    const file = join(t.dir, 'dist', 'bundle', 'all.cjs');
    const whole = readFileSync(file);
    // The bundle's JavaScript: the file up to the cache the build put at its end.
    const { splitBundle } = createRequire(import.meta.url)('../../bin/sealgate.js') as {
      splitBundle: (b: Buffer) => { source: Buffer };
    };
    const bytes = splitBundle(whole).source;
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const text = bytes.toString('latin1');
    // The attacker's source: the same length, its first statement (top-level code, compiled
    // eagerly, so it is in the cache) replaced by one that shows it ran. Its bytecode, under the honest bundle's hash.
    assert.ok(text.startsWith('"use strict";'));
    const evil = new Script(wrap(`throw"FORGE";${text.slice('"use strict";'.length)}`), { filename: file });
    const data = evil.createCachedData();
    writeFileSync(`${file}.cache`, Buffer.concat([createHash('sha256').update(whole).digest(), data]));
    // V8 would take it: the same flags, the same source length (the control for this test).
    const taken = new Script(wrap(text), { filename: file, cachedData: data });
    assert.equal(taken.cachedDataRejected, false, 'V8 accepts the forged cache for the honest source');
    const r = spawnSync(process.execPath, [join(t.dir, 'bin', 'sealgate.js'), '--version'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    });
    assert.doesNotMatch(r.stderr, /FORGE/, 'the forged bytecode ran');
    assert.equal(r.stdout, `${version}\n`, r.stderr);
    assert.equal(r.status, 0);
    // And the build ships no cache file beside a bundle to forge.
    assert.deepEqual(
      readdirSync(BUNDLES).filter((f) => f.endsWith('.cache')),
      [],
    );
  } finally {
    t.dispose();
  }
});

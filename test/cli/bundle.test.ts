import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bindRecord, git, makeRepo, tempDir } from '../helpers/git.js';

// The built CLI as users run it: bin/sealgate.js compiling the CommonJS bundles in dist/bundle
// from their source bytes (no code cache: test/adversarial/code-cache-forgery.test.ts). These
// need the build (npm test builds first).
const root = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLES = join(root, 'dist', 'bundle');
const built = existsSync(join(BUNDLES, 'all.cjs'));
const skip = built ? false : 'no build in dist/ (run npm run build first)';
const require = createRequire(import.meta.url);
const { OWN_BUNDLE, loadBundle } = require('../../bin/sealgate.js') as {
  OWN_BUNDLE: Set<string>;
  loadBundle: (name: string) => { script: { cachedDataRejected?: boolean } };
};
const NAMES = ['all', ...OWN_BUNDLE];

/** A private copy of bin/ and dist/bundle/ (node_modules linked), to tamper with. */
function copyOfCli(): { bin: string; bundles: string; dispose: () => void } {
  const t = tempDir('sealgate-bundle-');
  cpSync(join(root, 'bin'), join(t.dir, 'bin'), { recursive: true });
  cpSync(BUNDLES, join(t.dir, 'dist', 'bundle'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(t.dir, 'node_modules'), 'dir');
  return { bin: join(t.dir, 'bin', 'sealgate.js'), bundles: join(t.dir, 'dist', 'bundle'), dispose: t.dispose };
}

const cli = (bin: string, args: string[], cwd = root) => spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' } });

test('no bundle ships a code cache, and bin/sealgate.js compiles each one from its source bytes alone', { skip }, () => {
  for (const name of NAMES) {
    assert.equal(existsSync(join(BUNDLES, `${name}.cjs.cache`)), false, `${name}: a code cache was built`);
    // Loaded as the CLI loads it: `cachedDataRejected` is undefined exactly when no cache was given to V8.
    assert.equal(loadBundle(name).script.cachedDataRejected, undefined, `${name}: compiled with a code cache`);
  }
});

test('a cache made from other bytes of the same length is not used: the bundle as it is now runs', { skip }, () => {
  const c = copyOfCli();
  try {
    const file = join(c.bundles, 'all.cjs');
    const text = readFileSync(file, 'latin1');
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const other = version.replace(/\d/g, (d) => String((Number(d) + 1) % 10));
    assert.ok(text.includes(`"${version}"`), 'the version literal is in the bundle');
    // Same length, one literal changed: V8's own check (the source length) cannot see it.
    writeFileSync(file, text.replace(`"${version}"`, `"${other}"`), 'latin1');
    const r = cli(c.bin, ['--version']);
    assert.equal(r.stdout, `${other}\n`, r.stderr);
    assert.equal(r.status, 0);
  } finally {
    c.dispose();
  }
});

test('a missing bundle is E_INTERNAL with exit 3 and a reason, never a silent success', { skip }, () => {
  const c = copyOfCli();
  try {
    rmSync(join(c.bundles, 'gate.cjs'));
    const r = cli(c.bin, ['gate', '--help']);
    assert.equal(r.stdout, 'E_INTERNAL\n');
    assert.equal(r.status, 3);
    assert.match(r.stderr, /cannot load the CLI bundle .*npm run build/);
  } finally {
    c.dispose();
  }
});

test('the built CLI loads tree-sitter (a Python patch) and hashes on worker threads (a 100-file seal)', { skip }, () => {
  const bin = join(root, 'bin', 'sealgate.js');
  const repo = makeRepo({ 'a.py': 'def f(x):\n    return x\n' });
  const t = tempDir();
  try {
    writeFileSync(join(repo.dir, 'a.py'), 'def f(x):\n    return x + 1\n');
    writeFileSync(join(t.dir, 'p.diff'), git(repo.dir, 'diff'));
    git(repo.dir, 'checkout', '--', 'a.py');
    const sym = cli(bin, ['symbols', '--repo', repo.dir, '--patch', join(t.dir, 'p.diff'), '--out', join(t.dir, 'changed.json')]);
    assert.equal(sym.status, 0, sym.stdout + sym.stderr);
    assert.deepEqual((JSON.parse(readFileSync(join(t.dir, 'changed.json'), 'utf8')) as { changed: string[] }).changed, ['a.py::f']);

    mkdirSync(join(repo.dir, 'fixtures'));
    for (let i = 0; i < 100; i++) writeFileSync(join(repo.dir, 'fixtures', `f${String(i).padStart(3, '0')}.txt`), `fixture ${i}\n`.repeat(i + 1));
    mkdirSync(join(repo.dir, 'review'));
    // The fixtures arrive through the recorded patch: the runner hashes its own tree.
    const record = { proposal_id: 'p-1', author_job: 'author-1', runner_job: 'runner-1', patch_path: 'patches/p.diff', digest_status: 'open', logs_present: false, logs_after_seal: true, log_visibility: 'hidden' };
    writeFileSync(join(repo.dir, 'review', 'proposal.json'), JSON.stringify(record, null, 2) + '\n');
    bindRecord(repo.dir, 'review/proposal.json', 'patches/p.diff');
    const seal = cli(bin, ['seal', '--repo', repo.dir, '--runner-job', 'runner-1', '--fixtures', 'fixtures/**', '--seed', '7', '--clock', 'live', '--locale', 'C']);
    assert.equal(seal.status, 0, seal.stdout + seal.stderr);
    // The spec's recipe, with coreutils alone, gives the same inputs file.
    const expected = execFileSync('sh', ['-c', 'find fixtures -type f | LC_ALL=C sort | xargs sha256sum; printf "seed=7\\nclock=live\\nlocale=C\\n"'], { cwd: repo.dir, encoding: 'utf8' });
    const inputs = readFileSync(join(repo.dir, 'review', 'runner', 'inputs.sha256'), 'utf8');
    assert.equal(inputs.replace(/tree=[0-9a-f]{40}\npolicy=default\n$/, ''), expected);
  } finally {
    repo.dispose();
    t.dispose();
  }
});

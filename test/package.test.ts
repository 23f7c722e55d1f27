import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir, writeFiles } from './helpers/git.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = (args: string[], cwd: string) =>
  spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' },
  });

test('the package ships the CLI bundle, the library, the schemas, the docs and the acceptance cases; not the tests', () => {
  const r = npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root);
  assert.equal(r.status, 0, r.stderr);
  const files = ((JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]?.files ?? []).map((f) => f.path);
  for (const f of [
    'bin/sealgate.js',
    'bin/package.json',
    'dist/bundle/all.cjs',
    'dist/bundle/gate.cjs',
    'dist/bundle/run.cjs',
    'dist/bundle/seal.cjs',
    'dist/bundle/parse-worker.cjs',
    'dist/bundle/valid-worker.cjs',
    'dist/index.js',
    'dist/index.d.ts',
    'schema/record.schema.json',
    'docs/codes/ALLOW.md',
    'README.md',
    'package.json',
  ])
    assert.ok(files.includes(f), f);
  assert.ok(files.filter((f) => /^acceptance\/[^/]+\/expected$/.test(f)).length >= 60, 'acceptance cases');
  assert.ok(!files.some((f) => f.startsWith('test/') || f.startsWith('src/')), 'no tests or sources');
  assert.ok(!files.some((f) => f.endsWith('.cache')), 'no V8 code cache (bin/sealgate.js reads none)');
  // Source maps are not read at run time and would carry every source file (and the bundled dependencies') along.
  assert.ok(!files.some((f) => f.endsWith('.map')), 'no source maps');
  for (const f of ['dist/reporters/node-test.js', 'schema/sealgate.config.schema.json', 'docs/runners.md'])
    assert.ok(files.includes(f), f);
  // The license comments esbuild kept from bundled code, if any (external dependencies ship their own).
  for (const f of readdirSync(join(root, 'dist', 'bundle')).filter((n) => n.endsWith('.LEGAL.txt')))
    assert.ok(files.includes(`dist/bundle/${f}`), f);
});

interface LockEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly dev?: boolean;
  readonly [k: string]: unknown;
}

/** The cacache file that holds a tarball with this integrity (npm's cache is content-addressed). */
const cachedContent = (cache: string, integrity: string): string => {
  const [algo, b64] = integrity.split('-', 2) as [string, string];
  const hex = Buffer.from(b64, 'base64').toString('hex');
  return join(cache, '_cacache', 'content-v2', algo, hex.slice(0, 2), hex.slice(2, 4), hex.slice(4));
};

/**
 * The empty project's lockfile: sealgate from the tarball, and every runtime dependency at the
 * place and version sealgate's own lockfile gives it, with its registry URL and integrity. So
 * the install needs only the tarballs (what `npm ci` leaves in the cache, which `.ci/run` runs
 * first), not the registry's package metadata, which `npm ci` never fetches and a plain
 * `npm install --offline ./sealgate.tgz` would need.
 */
function consumerLock(tgz: string, integrity: string): { lock: object; deps: [string, LockEntry][] } {
  const own = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const top = own.packages[''] as LockEntry;
  const deps = Object.entries(own.packages).filter(([k, v]) => k !== '' && v.dev !== true);
  const packages: Record<string, unknown> = {
    '': { name: 'consumer', version: '1.0.0', dependencies: { sealgate: `file:${tgz}` } },
    'node_modules/sealgate': {
      version: top.version,
      resolved: `file:${tgz}`,
      integrity,
      license: top['license'],
      dependencies: top['dependencies'],
      bin: top['bin'],
      engines: top['engines'],
    },
    ...Object.fromEntries(deps),
  };
  return { lock: { name: 'consumer', version: '1.0.0', lockfileVersion: 3, requires: true, packages }, deps };
}

test('the packed package installs offline into an empty project, and `sealgate init` and `sealgate selftest` run there', (t) => {
  const tmp = tempDir('sealgate-install-');
  try {
    const packed = npm(['pack', '--ignore-scripts', '--pack-destination', tmp.dir], root);
    assert.equal(packed.status, 0, packed.stderr);
    const tgz = readdirSync(tmp.dir).find((f) => f.endsWith('.tgz'));
    assert.ok(tgz);
    const integrity = `sha512-${createHash('sha512')
      .update(readFileSync(join(tmp.dir, tgz)))
      .digest('base64')}`;
    const { lock, deps } = consumerLock(tgz, integrity);
    const cache = npm(['config', 'get', 'cache'], root).stdout.trim();
    const absent = deps
      .filter(([, v]) => v.integrity === undefined || !existsSync(cachedContent(cache, v.integrity)))
      .map(([k, v]) => `${k.replace(/^.*node_modules\//, '')}@${v.version ?? '?'}`);
    if (absent.length > 0) {
      t.skip(`the npm cache (${cache}) lacks ${absent.join(', ')}: run \`npm ci\` first; cannot install offline`);
      return;
    }
    writeFileSync(
      join(tmp.dir, 'package.json'),
      JSON.stringify(
        { name: 'consumer', version: '1.0.0', private: true, dependencies: { sealgate: `file:${tgz}` } },
        null,
        2,
      ) + '\n',
    );
    writeFileSync(join(tmp.dir, 'package-lock.json'), JSON.stringify(lock, null, 2) + '\n');
    // As the CI template installs it: no install scripts (sealgate's parsers are WebAssembly).
    const inst = npm(['ci', '--offline', '--ignore-scripts'], tmp.dir);
    assert.equal(inst.status, 0, inst.stderr);
    const bin = join(tmp.dir, 'node_modules/.bin/sealgate');
    const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/tmp' };
    const selftest = spawnSync(bin, ['selftest'], { cwd: tmp.dir, encoding: 'utf8', env });
    assert.equal(selftest.status, 0, selftest.stderr);
    assert.match(selftest.stdout, /^selftest: (\d+) passed, 0 failed\n$/);
    assert.ok(Number(/(\d+) passed/.exec(selftest.stdout)?.[1]) >= 60);
    // A tiny node:test project beside the install (the tests may not see sealgate's own files, so it is not installed inside the project).
    const demo = join(tmp.dir, 'demo');
    writeFiles(demo, {
      'package.json':
        JSON.stringify(
          { name: 'demo', version: '1.0.0', private: true, type: 'module', scripts: { test: 'node --test' } },
          null,
          2,
        ) + '\n',
      'src/price.js': 'export function clampPercent(p) {\n  return Math.min(100, Math.max(0, p));\n}\n',
      'test/price.test.js':
        "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clampPercent } from '../src/price.js';\n\ntest('clamps into 0..100', () => {\n  assert.equal(clampPercent(-5), 0);\n  assert.equal(clampPercent(150), 100);\n});\n",
    });
    const init = spawnSync(bin, ['init'], { cwd: demo, encoding: 'utf8', env });
    assert.equal(init.status, 0, init.stdout + init.stderr);
    assert.match(init.stderr, /init: stack: node-test/);
    assert.match(init.stderr, /1 test\(s\) ran: 1 passed, 0 failed/);
    assert.match(init.stderr, /every test id names its file \(1 test file\(s\)\)/);
    const config = JSON.parse(readFileSync(join(demo, 'sealgate.config.json'), 'utf8')) as {
      test: { command: string[] };
    };
    assert.ok(
      config.test.command.includes('--test-reporter=./.sealgate/node-test-reporter.mjs'),
      JSON.stringify(config.test.command),
    );
    assert.ok(existsSync(join(demo, '.github/workflows/sealgate.yml')));
    // Installed inside the project under test instead, its node_modules holds sealgate's own files: refused, with the way out.
    writeFiles(tmp.dir, { 'test/a.test.js': "import { test } from 'node:test';\ntest('a', () => {});\n" });
    const inside = spawnSync(bin, ['init'], { cwd: tmp.dir, encoding: 'utf8', env });
    assert.deepEqual([inside.status, inside.stdout.trim().split('\n').pop()], [1, 'E_INPUT_INVALID'], inside.stderr);
    assert.match(
      inside.stderr,
      /node_modules: \S+ holds sealgate's own install \(\S+\/node_modules\/sealgate\), which the tests may not see; install sealgate outside the repository/,
    );
  } finally {
    tmp.dispose();
  }
});

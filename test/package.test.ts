import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './helpers/git.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = (args: string[], cwd: string) => spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false' } });

test('the package ships the CLI bundle, the library, the schemas, the docs and the acceptance cases; not the tests', () => {
  const r = npm(['pack', '--dry-run', '--json', '--ignore-scripts'], root);
  assert.equal(r.status, 0, r.stderr);
  const files = ((JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]?.files ?? []).map((f) => f.path);
  for (const f of ['bin/sealgate.js', 'bin/package.json', 'dist/bundle/all.cjs', 'dist/bundle/gate.cjs', 'dist/bundle/run.cjs', 'dist/bundle/seal.cjs', 'dist/bundle/parse-worker.cjs', 'dist/index.js', 'dist/index.d.ts', 'schema/record.schema.json', 'docs/codes/ALLOW.md', 'README.md', 'package.json']) assert.ok(files.includes(f), f);
  assert.ok(files.filter((f) => /^acceptance\/[^/]+\/expected$/.test(f)).length >= 60, 'acceptance cases');
  assert.ok(!files.some((f) => f.startsWith('test/') || f.startsWith('src/')), 'no tests or sources');
  assert.ok(!files.some((f) => f.endsWith('.cache')), 'no V8 code cache (bin/sealgate.js reads none)');
});

test('selftest passes from the installed package (packed, installed offline into an empty project)', (t) => {
  const tmp = tempDir('sealgate-install-');
  try {
    const packed = npm(['pack', '--ignore-scripts', '--pack-destination', tmp.dir], root);
    assert.equal(packed.status, 0, packed.stderr);
    const tgz = readdirSync(tmp.dir).find((f) => f.endsWith('.tgz'));
    assert.ok(tgz);
    writeFileSync(join(tmp.dir, 'package.json'), '{"name":"consumer","version":"1.0.0","private":true}\n');
    const inst = npm(['install', '--offline', '--no-package-lock', `./${tgz}`], tmp.dir);
    if (inst.status !== 0 && inst.stderr.includes('ENOTCACHED')) {
      t.skip('the npm cache lacks a dependency (run npm ci first); cannot install offline');
      return;
    }
    assert.equal(inst.status, 0, inst.stderr);
    const out = execFileSync(join(tmp.dir, 'node_modules/.bin/sealgate'), ['selftest'], { encoding: 'utf8' });
    assert.match(out, /^selftest: (\d+) passed, 0 failed\n$/);
    assert.ok(Number(/(\d+) passed/.exec(out)?.[1]) >= 60);
  } finally {
    tmp.dispose();
  }
});

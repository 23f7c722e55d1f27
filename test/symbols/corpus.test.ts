// The calibration corpus: each scenario's base tree, patch and hand-written expected result.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readConfig } from '../../src/config/read.js';
import { extractChanged } from '../../src/symbols/extract.js';
import { makeRepo } from '../helpers/git.js';

const corpus = fileURLToPath(new URL('./corpus/', import.meta.url));

/** base/ holds the files with an extra ".txt" suffix; strip it. */
function baseFiles(dir: string, prefix = ''): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) Object.assign(out, baseFiles(p, `${prefix}${e}/`));
    else out[`${prefix}${e.replace(/\.txt$/, '')}`] = readFileSync(p);
  }
  return out;
}

const scenarios = readdirSync(corpus)
  .filter((n) => statSync(join(corpus, n)).isDirectory())
  .sort();

test('the corpus has at least 40 scenarios across five languages', () => {
  assert.ok(scenarios.length >= 40, `${scenarios.length} scenarios`);
  const langs = new Set<string>();
  for (const s of scenarios) {
    const exp = JSON.parse(readFileSync(join(corpus, s, 'expected.json'), 'utf8')) as {
      files: { language: string | null }[];
    };
    for (const f of exp.files) if (f.language) langs.add(f.language);
  }
  for (const l of ['typescript', 'javascript', 'python', 'go', 'java', 'rust'])
    assert.ok(langs.has(l), `no scenario in ${l}`);
});

for (const name of scenarios) {
  test(`corpus: ${name}`, async () => {
    const dir = join(corpus, name);
    const repo = makeRepo(existsSync(join(dir, 'base')) ? baseFiles(join(dir, 'base')) : {});
    try {
      const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Record<string, unknown>;
      const got = await extractChanged({
        repo: repo.dir,
        patchBytes: readFileSync(join(dir, 'patch.diff')),
        config: readConfig(repo.dir),
      });
      const actual: Record<string, unknown> = { ...got };
      for (const key of Object.keys(expected)) assert.deepEqual(actual[key], expected[key], `${name}: ${key}`);
      for (const key of ['files', 'changed', 'moved', 'deleted', 'typeOnly', 'uncreditable'])
        assert.ok(key in expected, `${name}: expected.json lacks ${key}`);
    } finally {
      repo.dispose();
    }
  });
}

test('worker threads give the same result as one thread', async () => {
  const names = ['py-rename-with-edit', 'ts-move-class-new-file', 'go-new-file', 'java-deleted-file'];
  for (const name of names) {
    const dir = join(corpus, name);
    const repo = makeRepo(baseFiles(join(dir, 'base')));
    try {
      const patchBytes = readFileSync(join(dir, 'patch.diff'));
      const config = readConfig(repo.dir);
      const one = await extractChanged({ repo: repo.dir, patchBytes, config });
      const two = await extractChanged({ repo: repo.dir, patchBytes, config, workers: 2, parallelMinBytes: 0 });
      assert.deepEqual(two, one, name);
    } finally {
      repo.dispose();
    }
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findBwrap, installRoot, probeSandbox, readSecrets } from '../../src/sandbox/host.js';
import { openBox, runInFreshCopy } from '../../src/sandbox/run.js';

// A `sealgate run` that built its tree for itself moves that tree into the run's folder
// instead of copying it. The run must see exactly what a copy gives: no .git, review/ or
// dependency folder of the tree, the sealgate helper files, and a working directory that
// nothing ran in before.

const bwrap = findBwrap();
const kinds = [
  ['none', false],
  ['bwrap', probeSandbox(bwrap) !== null ? 'bubblewrap cannot run here' : false],
] as const;

function makeSource(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-move-src-'));
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src', 'a.js'), 'export const a = 1;\n');
  // What a committed tree may hold and a run must not see (the evidence folder, VCS data, a dependency folder).
  for (const d of ['review/runner', '.git', 'node_modules/x']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'review', 'runner', 'credit.json'), '{"forged":true}\n');
  writeFileSync(join(dir, '.git', 'config'), '[credential]\n');
  writeFileSync(join(dir, 'node_modules', 'x', 'index.js'), 'planted\n');
  return dir;
}

for (const [isolation, skip] of kinds) {
  for (const moveSource of [true, false]) {
    test(
      `${isolation}: a run in a ${moveSource ? 'moved' : 'copied'} tree sees the tree without .git, review/ or node_modules, plus the helper files`,
      { skip },
      async () => {
        const source = makeSource();
        const out = mkdtempSync(join(tmpdir(), 'sealgate-move-out-'));
        try {
          const box = openBox({
            isolation,
            bwrap,
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
            secrets: readSecrets(source, {}, installRoot()),
            path: 'test',
          });
          const listing = await runInFreshCopy(
            box,
            {
              source,
              deps: [],
              command: ['sh', '-c', 'find . -mindepth 1 | LC_ALL=C sort; touch left-behind'],
              env: { PATH: '/usr/bin:/bin' },
              limits: { timeoutMs: 30_000, capBytes: 1 << 20 },
              output: { stdoutPath: join(out, 'stdout'), stderrPath: join(out, 'stderr') },
              ...(moveSource ? { moveSource } : {}),
            },
            (outcome) => {
              assert.equal(outcome.exit_code, 0, readFileSync(join(out, 'stderr'), 'utf8'));
              return readFileSync(join(out, 'stdout'), 'utf8').trim().split('\n');
            },
          );
          assert.deepEqual(listing, ['./.sealgate', './.sealgate/node-test-reporter.mjs', './src', './src/a.js']);
          // A copy leaves its source as it was; a move uses it up. The run's own file is nowhere after.
          assert.equal(existsSync(source), !moveSource);
          if (!moveSource) assert.equal(existsSync(join(source, 'left-behind')), false);
        } finally {
          rmSync(source, { recursive: true, force: true });
          rmSync(out, { recursive: true, force: true });
        }
      },
    );
  }
}

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keepRunnerCaches, MAX_RUNNER_CACHE_ENTRIES, RUNNER_CACHE, seedRunnerCaches } from '../../src/sandbox/run.js';
import { TREE_TIME } from '../../src/core/times.js';

function scratch(): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-caches-'));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('runner caches: what the first control leaves in its TMPDIR for the runs after it', () => {
  it("keeps jest's and tsx's cache folders, nothing else, and seeds a later run with them, every file at the tree's one time", () => {
    const s = scratch();
    try {
      const tmp = join(s.dir, 'tmp');
      mkdirSync(join(tmp, 'jest_rs', 'haste'), { recursive: true });
      writeFileSync(join(tmp, 'jest_rs', 'haste', 'a.map'), 'transformed');
      mkdirSync(join(tmp, 'tsx-1000'));
      writeFileSync(join(tmp, 'tsx-1000', '1-abc'), '{}');
      writeFileSync(join(tmp, 'marker'), 'first run');
      mkdirSync(join(tmp, 'other'));
      const kept = join(s.dir, 'kept');
      keepRunnerCaches(tmp, kept);
      assert.deepEqual(readdirSync(kept).sort(), ['jest_rs', 'tsx-1000']);
      const next = join(s.dir, 'next');
      mkdirSync(next);
      seedRunnerCaches(kept, next);
      assert.equal(readFileSync(join(next, 'jest_rs', 'haste', 'a.map'), 'utf8'), 'transformed');
      assert.ok(!existsSync(join(next, 'marker')) && !existsSync(join(next, 'other')));
      for (const p of [
        next,
        join(next, 'jest_rs'),
        join(next, 'jest_rs', 'haste'),
        join(next, 'jest_rs', 'haste', 'a.map'),
        join(next, 'tsx-1000', '1-abc'),
      ]) {
        assert.equal(lstatSync(p).mtime.getTime(), TREE_TIME.getTime(), p);
      }
      // A second keep replaces what the first kept.
      rmSync(join(tmp, 'tsx-1000'), { recursive: true });
      keepRunnerCaches(tmp, kept);
      assert.deepEqual(readdirSync(kept), ['jest_rs']);
    } finally {
      s.dispose();
    }
  });

  it('keeps nothing where a test left a link, a pipe or too much in the cache folder (the next runs start cold)', () => {
    const s = scratch();
    try {
      const cases: [string, (cache: string) => void][] = [
        ['a link in it', (c) => symlinkSync('/etc/passwd', join(c, 'x'))],
        [
          'a link for the folder',
          (c) => {
            rmSync(c, { recursive: true });
            symlinkSync('/etc', c);
          },
        ],
        ['a pipe', (c) => execFileSync('mkfifo', [join(c, 'p')])],
        [
          'too many entries',
          (c) => {
            for (let i = 0; i <= MAX_RUNNER_CACHE_ENTRIES; i++) writeFileSync(join(c, `f${i}`), '');
          },
        ],
      ];
      for (const [what, plant] of cases) {
        const tmp = join(s.dir, `tmp-${what.replace(/\W/g, '-')}`);
        const cache = join(tmp, 'jest_rs');
        mkdirSync(cache, { recursive: true });
        writeFileSync(join(cache, 'ok'), 'fine');
        plant(cache);
        const kept = join(s.dir, `kept-${what.replace(/\W/g, '-')}`);
        mkdirSync(kept);
        writeFileSync(join(kept, 'stale'), 'from before');
        keepRunnerCaches(tmp, kept);
        assert.equal(existsSync(kept), false, what);
      }
    } finally {
      s.dispose();
    }
  });

  it("the names kept are exactly the runners' own cache folders", () => {
    for (const n of ['jest_rs', 'jest_0', 'tsx-1000', 'tsx-0']) assert.ok(RUNNER_CACHE.test(n), n);
    for (const n of [
      'jest_',
      'jest_RS',
      'tsx-',
      'tsx-abc',
      'jest_rs/..',
      '../jest_rs',
      'x-jest_rs',
      'jest_rs2 ',
      'tsx',
    ])
      assert.ok(!RUNNER_CACHE.test(n), n);
  });
});

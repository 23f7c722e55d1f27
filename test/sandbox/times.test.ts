import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { TREE_TIME, stampTree } from '../../src/core/times.js';
import { findBwrap, installRoot, probeSandbox, readSecrets } from '../../src/sandbox/host.js';
import { openBox, removeInCopy, runInFreshCopy } from '../../src/sandbox/run.js';

// Every judging run must look like every other one but for the bytes a mutant changed. A
// checkout stamps its files with the moment it was made and a mutant written into a copy with
// the moment of its run, so a test could read from the clock when in the credit step it ran
// (the controls first, then the probes, then the mutants) and guess which run is which. The
// runner's tree carries one fixed time, and what a run writes into its copy gets it back.

const bwrap = findBwrap();
const kinds = [
  ['none', false],
  ['bwrap', probeSandbox(bwrap) !== null ? 'bubblewrap cannot run here' : false],
] as const;
const T = TREE_TIME.getTime() / 1000;

function makeSource(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-times-src-'));
  mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.py'), 'A = 1\n');
  writeFileSync(join(dir, 'src', 'deep', 'b.py'), 'B = 2\n');
  writeFileSync(join(dir, 'junit.xml'), '<testsuite/>\n');
  symlinkSync('a.py', join(dir, 'src', 'link.py'));
  stampTree(dir);
  return dir;
}

test('stampTree: every file, folder and link (the link itself) below a root carries the one tree time', () => {
  const dir = makeSource();
  try {
    utimesSync(join(dir, 'src', 'a.py'), new Date(), new Date());
    // A link to a file and one to a folder outside the tree: stamped as links, their targets untouched.
    const outside = mkdtempSync(join(tmpdir(), 'sealgate-times-outside-'));
    writeFileSync(join(outside, 'host.txt'), 'x\n');
    const before = [lstatSync(outside).mtimeMs, lstatSync(join(outside, 'host.txt')).mtimeMs];
    symlinkSync(join(outside, 'host.txt'), join(dir, 'to-file'));
    symlinkSync(outside, join(dir, 'to-folder'));
    stampTree(dir);
    const r = listTimes(dir);
    assert.ok(r.length >= 8);
    for (const [p, t] of r) assert.equal(t, T, p);
    assert.deepEqual(
      [lstatSync(outside).mtimeMs, lstatSync(join(outside, 'host.txt')).mtimeMs],
      before,
      'a link target outside the tree was stamped',
    );
    rmSync(outside, { recursive: true, force: true });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('stampTree walks names as bytes: a file whose name is not valid UTF-8 is stamped too', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sealgate-times-bytes-'));
  try {
    const name = Buffer.concat([Buffer.from(`${dir}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.json')]);
    writeFileSync(name, '{}\n');
    stampTree(dir);
    assert.equal(lstatSync(name).mtimeMs, TREE_TIME.getTime());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Every entry below `dir` (itself too) with its modification time in seconds, links not followed, as a test in a run would see them. */
function listTimes(dir: string, rel = '.'): [string, number][] {
  const here: [string, number][] = [[rel, lstatSync(dir).mtimeMs / 1000]];
  for (const n of readdirSync(dir).sort()) {
    const p = join(dir, n);
    if (lstatSync(p).isDirectory()) here.push(...listTimes(p, `${rel}/${n}`));
    else here.push([`${rel}/${n}`, lstatSync(p).mtimeMs / 1000]);
  }
  return here;
}

for (const [isolation, skip] of kinds) {
  test(
    `${isolation}: in a control and in a mutant run alike, every file and folder the run sees carries the tree time (the written file and its folders too)`,
    { skip },
    async () => {
      const source = makeSource();
      const out = mkdtempSync(join(tmpdir(), 'sealgate-times-out-'));
      try {
        const box = openBox({
          isolation,
          bwrap,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
          secrets: readSecrets(source, {}, installRoot()),
          path: 'test',
        });
        const seen = async (files?: ReadonlyMap<string, string>): Promise<string[]> =>
          runInFreshCopy(
            box,
            {
              source,
              deps: [],
              clean: ['junit.xml'],
              command: ['sh', '-c', "find . -mindepth 0 -printf '%p %T@\\n' | LC_ALL=C sort"],
              env: { PATH: '/usr/bin:/bin' },
              limits: { timeoutMs: 30_000, capBytes: 1 << 20 },
              output: { stdoutPath: join(out, 'stdout'), stderrPath: join(out, 'stderr') },
              ...(files ? { files } : {}),
            },
            (outcome) => {
              assert.equal(outcome.exit_code, 0, readFileSync(join(out, 'stderr'), 'utf8'));
              return readFileSync(join(out, 'stdout'), 'utf8').trim().split('\n');
            },
          );
        const control = await seen();
        const mutant = await seen(
          new Map([
            ['src/deep/b.py', 'B = 3  # a mutant\n'],
            ['src/new/c.py', 'C = 1\n'],
          ]),
        );
        for (const listing of [control, mutant]) {
          assert.ok(listing.length >= 6, listing.join('\n'));
          for (const line of listing) assert.equal(Number(line.slice(line.lastIndexOf(' ') + 1)), T, line);
        }
        // The report the source left was removed before the run.
        assert.equal(
          control.some((l) => l.startsWith('./junit.xml ')),
          false,
        );
        assert.ok(mutant.some((l) => l.startsWith('./src/new/c.py ')));
      } finally {
        rmSync(source, { recursive: true, force: true });
        rmSync(out, { recursive: true, force: true });
      }
    },
  );
}

test('removeInCopy never follows a link in place of a folder: a report path through a link out of the copy removes nothing outside', () => {
  const work = mkdtempSync(join(tmpdir(), 'sealgate-times-work-'));
  const outside = mkdtempSync(join(tmpdir(), 'sealgate-times-outside-'));
  try {
    writeFileSync(join(outside, 'junit.xml'), 'keep\n');
    mkdirSync(join(outside, 'sub'));
    writeFileSync(join(outside, 'sub', 'junit.xml'), 'keep\n');
    symlinkSync(outside, join(work, 'reports'));
    mkdirSync(join(work, 'real'));
    writeFileSync(join(work, 'real', 'junit.xml'), 'old\n');
    assert.equal(removeInCopy(work, 'reports/junit.xml'), null);
    assert.equal(removeInCopy(work, 'reports/sub/junit.xml'), null);
    assert.equal(removeInCopy(work, '../' + outside.split('/').pop() + '/junit.xml'), null);
    assert.equal(readFileSync(join(outside, 'junit.xml'), 'utf8'), 'keep\n');
    assert.equal(readFileSync(join(outside, 'sub', 'junit.xml'), 'utf8'), 'keep\n');
    // A real folder's report goes; a link at the last place goes as a link, its target stays.
    assert.equal(removeInCopy(work, 'real/junit.xml'), join(work, 'real'));
    assert.equal(existsSync(join(work, 'real', 'junit.xml')), false);
    assert.equal(removeInCopy(work, 'reports'), work);
    assert.equal(existsSync(join(outside, 'junit.xml')), true);
    assert.equal(removeInCopy(work, 'missing/junit.xml'), null);
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

test('property: removeInCopy removes only what lies in the copy through real folders, whatever the relative path', () => {
  const work = mkdtempSync(join(tmpdir(), 'sealgate-times-prop-'));
  const outside = mkdtempSync(join(tmpdir(), 'sealgate-times-prop-out-'));
  try {
    writeFileSync(join(outside, 'x'), 'keep\n');
    symlinkSync(outside, join(work, 'l'));
    const part = fc.constantFrom('l', 'x', '..', '.', '', 'a', 'l/..');
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), (parts) => {
        removeInCopy(work, parts.join('/'));
        assert.equal(readFileSync(join(outside, 'x'), 'utf8'), 'keep\n');
        if (!existsSync(join(work, 'l'))) symlinkSync(outside, join(work, 'l'));
      }),
      { seed: 77, numRuns: 200 },
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  }
});

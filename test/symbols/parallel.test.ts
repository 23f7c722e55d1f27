// Parsing in worker threads: the shared two-ended queue, and the same changed.json as in one thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { readConfig } from '../../src/config/read.js';
import { extractChanged, languagesNamed } from '../../src/symbols/extract.js';
import { finishComparison, newComparison } from '../../src/symbols/compare.js';
import { compareJob, JobQueue, mergeComparison, queueOrder, type FileJob } from '../../src/symbols/jobs.js';
import { ParseWorkers } from '../../src/symbols/workers.js';
import { languageOf } from '../../src/diff/classify.js';
import { git, makeRepo, writeFiles } from '../helpers/git.js';

const corpus = fileURLToPath(new URL('./corpus/', import.meta.url));
const scenarios = readdirSync(corpus)
  .filter((n) => statSync(join(corpus, n)).isDirectory())
  .sort();

/** A scenario tree (files carry an extra ".txt" suffix), under `prefix`. */
function treeFiles(dir: string, prefix: string): Record<string, Uint8Array> {
  const out: Record<string, Uint8Array> = {};
  if (!existsSync(dir)) return out;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) Object.assign(out, treeFiles(p, `${prefix}${e}/`));
    else out[`${prefix}${e.replace(/\.txt$/, '')}`] = readFileSync(p);
  }
  return out;
}

test('the queue hands out every job exactly once, whichever ends take them', () => {
  fc.assert(
    fc.property(fc.nat(40), fc.array(fc.boolean(), { maxLength: 60 }), (length, ends) => {
      const queue = JobQueue.create(length);
      const other = new JobQueue(queue.shared);
      const taken: number[] = [];
      let front = 0;
      let back = length;
      for (const fromFront of ends) {
        const k = (taken.length % 2 === 0 ? queue : other).take(fromFront ? 'front' : 'back');
        if (k < 0) {
          assert.equal(taken.length, length);
          continue;
        }
        assert.equal(k, fromFront ? front++ : --back);
        taken.push(k);
      }
      for (let k = queue.take('front'); k >= 0; k = queue.take('front')) taken.push(k);
      assert.deepEqual(
        [...taken].sort((a, b) => a - b),
        Array.from({ length }, (_, k) => k),
      );
      assert.equal(queue.take('back'), -1);
    }),
  );
});

test('queue order: tree-sitter languages at the front, TS/JS at the back, largest at each end', () => {
  const job = (path: string, language: string, size: number): FileJob => ({
    path,
    oldPath: null,
    language,
    oldName: path,
    newName: path,
    oldBytes: new Uint8Array(size),
    newBytes: new Uint8Array(size),
    touched: [],
  });
  const jobs = [
    job('a.ts', 'typescript', 5),
    job('b.py', 'python', 1),
    job('c.js', 'javascript', 9),
    job('d.go', 'go', 7),
    job('e.py', 'python', 3),
  ];
  assert.deepEqual(
    queueOrder(jobs).map((j) => j.path),
    ['d.go', 'e.py', 'b.py', 'a.ts', 'c.js'],
  );
});

test('languagesNamed reads the diff --git lines only', () => {
  const patch = Buffer.from(
    'diff --git a/x.py b/x.py\n+diff --git a/y.go b/y.go\ndiff --git a/z.ts b/z.ts\ndiff --git a/README b/README\n',
  );
  assert.deepEqual([...languagesNamed(patch)].sort(), ['python', 'typescript']);
});

test(
  'worker threads give the same changed.json as one thread, on every corpus scenario at once',
  { timeout: 120_000 },
  async () => {
    const base: Record<string, Uint8Array> = {};
    for (const s of scenarios) Object.assign(base, treeFiles(join(corpus, s, 'base'), `${s}/`));
    const repo = makeRepo(base);
    try {
      for (const s of scenarios) {
        rmSync(join(repo.dir, s), { recursive: true, force: true });
        writeFiles(repo.dir, treeFiles(join(corpus, s, 'after'), `${s}/`));
        const modes = join(corpus, s, 'modes.json');
        if (existsSync(modes))
          for (const [p, m] of Object.entries(JSON.parse(readFileSync(modes, 'utf8')) as Record<string, string>))
            chmodSync(join(repo.dir, s, p), Number.parseInt(m, 8));
      }
      git(repo.dir, 'add', '-A');
      const patchBytes = execFileSync('git', ['diff', '--cached', '--binary', '-M', 'HEAD'], {
        cwd: repo.dir,
        maxBuffer: 1 << 28,
      });
      git(repo.dir, 'reset', '-q', '--hard');
      const config = readConfig(repo.dir);
      const one = await extractChanged({ repo: repo.dir, patchBytes, config });
      assert.ok(
        one.changed.length > 30 && one.files.length > 50,
        `${one.files.length} files, ${one.changed.length} changed`,
      );
      for (const workers of [2, 3]) {
        const many = await extractChanged({ repo: repo.dir, patchBytes, config, workers, parallelMinBytes: 0 });
        assert.deepEqual(many, one, `${workers} threads`);
      }
      // Workers started early for a large patch, then left unused when its source is small: every
      // source file in both trees (more than the jobs hold) weighs less than the threshold used.
      let sourceBytes = 0;
      for (const s of scenarios) {
        for (const side of ['base', 'after']) {
          for (const [path, bytes] of Object.entries(treeFiles(join(corpus, s, side), `${s}/`)))
            if (languageOf(path) !== null) sourceBytes += bytes.length;
        }
      }
      assert.ok(
        sourceBytes < 4 * patchBytes.length,
        `the source (${sourceBytes} bytes) must stay under the threshold (${4 * patchBytes.length})`,
      );
      assert.deepEqual(
        await extractChanged({
          repo: repo.dir,
          patchBytes,
          config,
          workers: 2,
          parallelMinBytes: 4 * patchBytes.length,
        }),
        one,
      );
    } finally {
      repo.dispose();
    }
  },
);

test('jobs compared in worker threads alone merge to what this thread finds', { timeout: 120_000 }, async () => {
  const jobs: FileJob[] = [];
  for (const s of scenarios) {
    const before = treeFiles(join(corpus, s, 'base'), `${s}/`);
    const after = treeFiles(join(corpus, s, 'after'), `${s}/`);
    for (const path of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const language = languageOf(path);
      if (language === null) continue;
      const oldBytes = before[path] ?? null;
      const newBytes = after[path] ?? null;
      jobs.push({
        path,
        oldPath: null,
        language,
        oldName: oldBytes && path,
        newName: newBytes && path,
        oldBytes,
        newBytes,
        touched: [1, 2, 3],
      });
    }
  }
  const options = { docstringChanges: false };
  const alone = newComparison();
  for (const job of jobs) await compareJob(job, options, alone);
  const workers = new ParseWorkers(2, options);
  try {
    workers.start();
    const ordered = queueOrder(jobs);
    // This thread takes nothing: the two workers share the whole queue from its back.
    const parts = await workers.run(ordered, JobQueue.create(ordered.length));
    assert.equal(parts.length, 2);
    const merged = newComparison();
    for (const part of parts) mergeComparison(merged, part);
    const expected = finishComparison(alone);
    assert.ok(
      expected.changed.length > 30 && expected.moved.length > 0,
      `${expected.changed.length} changed, ${expected.moved.length} moved`,
    );
    assert.deepEqual(finishComparison(merged), expected);
  } finally {
    workers.stop();
  }
});

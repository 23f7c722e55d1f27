import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs, { cpSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { git, tempDir, writeFiles } from '../helpers/git.js';
import { NOW } from '../workflow/review.js';
import { FOLLOW_UP_PATCH, agentPatch, exampleRepo, propose, runAndVerify, writePatch } from './helpers.js';

/**
 * The record's base commit decides the policy the gate judges under and is what
 * `--expect-base` checks. The gate used to read the record twice: once for its base, once to
 * judge it. A record replaced in between (here: right after the first read, naming another
 * base and an open digest) was then judged under the policy and the base check of the bytes
 * it no longer holds. The gate now reads the record once and judges those bytes.
 */
const trace = fileURLToPath(new URL('../../acceptance/trace-3-freeze-other-test-allows/', import.meta.url));
const policy = fileURLToPath(new URL('../../acceptance/policy.json', import.meta.url));

const realOpen = fs.openSync;

/**
 * Counts every open of `path`, and replaces the file right after the first one, as a
 * concurrent writer would: a new file renamed over it (the open one keeps its bytes), or made
 * where the first open found none. Node's
 * ES module view of node:fs is synced, so sealgate's own imports see the hook.
 */
function swapAfterFirstOpen(path: string, text: string): { opens: () => number; restore: () => void } {
  let opens = 0;
  const swap = (): void => {
    writeFileSync(`${path}.new`, text);
    renameSync(`${path}.new`, path);
  };
  (fs as { openSync: typeof fs.openSync }).openSync = (p: fs.PathLike, ...rest: unknown[]) => {
    const mine = String(p) === path && ++opens === 1;
    let fd: number;
    try {
      fd = (realOpen as (...a: unknown[]) => number)(p, ...rest);
    } catch (err) {
      // The first open found no file: the file appears right after.
      if (mine) swap();
      throw err;
    }
    if (mine) swap();
    return fd;
  };
  syncBuiltinESMExports();
  return {
    opens: () => opens,
    restore: () => {
      (fs as { openSync: typeof fs.openSync }).openSync = realOpen;
      syncBuiltinESMExports();
    },
  };
}

test('adversarial: a record swapped after the gate read its base is not what gets judged: one read, one set of bytes', async () => {
  const t = tempDir('sealgate-record-swap-');
  let hook: { opens: () => number; restore: () => void } | null = null;
  try {
    cpSync(trace, t.dir, { recursive: true });
    const record = join(t.dir, 'record.json');
    const honest = JSON.parse(readFileSync(record, 'utf8')) as Record<string, unknown>;
    const swapped = `${JSON.stringify({ ...honest, base_commit: 'e'.repeat(40), digest_status: 'open' }, null, 2)}\n`;
    hook = swapAfterFirstOpen(record, swapped);
    const args = [
      'gate',
      '--repo',
      t.dir,
      '--record',
      record,
      '--credit',
      join(t.dir, 'credit.json'),
      '--freeze',
      join(t.dir, 'freeze.json'),
      '--policy',
      policy,
      '--now',
      '2026-10-12T12:00:00Z',
      '--expect-base',
      honest.base_commit as string,
    ];
    const r = await runCli(args);
    assert.equal(hook.opens(), 1, 'the gate opened the record more than once');
    // The bytes read first (an ALLOW on the expected base), not the file as it is now.
    assert.equal(r.stdout, 'ALLOW\n', r.stderr);
    // The control: the swapped record, read as it is now, is refused (its digest is open, its base another).
    hook.restore();
    const now = await runCli(args);
    assert.notEqual(now.stdout, 'ALLOW\n');
    assert.match(now.stderr, /--expect-base asks for/);
  } finally {
    hook?.restore();
    t.dispose();
  }
});

test("adversarial: a record missing at the gate's first read and there at its second is refused, not judged under the policy chosen without it", async () => {
  const t = tempDir('sealgate-record-appears-');
  let hook: { opens: () => number; restore: () => void } | null = null;
  try {
    cpSync(trace, t.dir, { recursive: true });
    const record = join(t.dir, 'record.json');
    const text = readFileSync(record, 'utf8');
    rmSync(record);
    hook = swapAfterFirstOpen(record, text);
    const r = await runCli([
      'gate',
      '--repo',
      t.dir,
      '--record',
      record,
      '--credit',
      join(t.dir, 'credit.json'),
      '--freeze',
      join(t.dir, 'freeze.json'),
      '--policy',
      policy,
      '--now',
      '2026-10-12T12:00:00Z',
    ]);
    assert.equal(hook.opens(), 2);
    assert.equal(r.stdout, 'E_INPUT_INVALID\n', r.stderr);
    assert.match(
      r.stderr,
      /the record changed while it was read: it named base \(none\) when the policy was read, 3f1c9d2e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d when it was judged/,
    );
    // The control: the same files, the record there from the start, are an ALLOW.
    hook.restore();
    const same = await runCli([
      'gate',
      '--repo',
      t.dir,
      '--record',
      record,
      '--credit',
      join(t.dir, 'credit.json'),
      '--freeze',
      join(t.dir, 'freeze.json'),
      '--policy',
      policy,
      '--now',
      '2026-10-12T12:00:00Z',
    ]);
    assert.equal(same.stdout, 'ALLOW\n', same.stderr);
  } finally {
    hook?.restore();
    t.dispose();
  }
});

test(
  'adversarial: verify refuses a record that names another base when judged than when its policy was read',
  { timeout: 300_000 },
  async () => {
    const r = exampleRepo();
    let hook: { opens: () => number; restore: () => void } | null = null;
    try {
      const patch = writePatch(r.dir, '002.diff', agentPatch(r.dir, FOLLOW_UP_PATCH));
      assert.equal((await propose(r.dir, patch)).exit, 0);
      const out = await runAndVerify(r.dir);
      assert.equal(out.verify.stdout.trim(), 'ALLOW', out.verify.stderr);
      // The branch moves on with the same policy; the record is swapped for one naming that commit
      // right after verify first reads it (for the policy), before the audit reads it.
      writeFiles(r.dir, { 'NOTES.md': 'later\n' });
      git(r.dir, 'add', 'NOTES.md');
      git(r.dir, 'commit', '-q', '-m', 'notes');
      const later = git(r.dir, 'rev-parse', 'HEAD').trim();
      const record = join(r.dir, 'review', 'proposal.json');
      const text = readFileSync(record, 'utf8');
      const swapped = text.replace(r.base, later);
      assert.notEqual(swapped, text);
      hook = swapAfterFirstOpen(record, swapped);
      const v = await runCli(['verify', '--now', NOW, '--expect-base', r.base], { cwd: r.dir, now: new Date(NOW) });
      // Its tree (the later base and the patch) is not the sealed one either, which decides the
      // code; the replaced record is named among the reasons.
      assert.equal(hook.opens() >= 2, true, 'verify read the record again after the policy');
      assert.notEqual(v.stdout.trim(), 'ALLOW');
      assert.match(
        v.stderr,
        new RegExp(
          `the record changed while it was read: it named base ${r.base} when the policy was read, ${later} when it was judged`,
        ),
      );
    } finally {
      hook?.restore();
      r.dispose();
    }
  },
);

// An author job that owns review/ (as in the bundled example) tries to own review/runner
// too: a link to a folder it controls, a folder it made before the seal, or a swap after
// the runner. Each ends in a reject.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { toJsonText } from '../../src/core/json.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, tempDir } from '../helpers/git.js';
import { AGENT_PATCH, AUTHOR, EXAMPLE_DIR, NOW, RUNNER, exampleFiles, verify } from '../workflow/review.js';
import { allowed, signedAllowed } from '../attest/helpers.js';

async function proposed(): Promise<{ dir: string; dispose: () => void }> {
  const r = makeRepo(exampleFiles());
  writeFileSync(join(r.dir, 'p.diff'), readFileSync(join(EXAMPLE_DIR, AGENT_PATCH)));
  const p = await runCli(
    ['propose', '--repo', r.dir, '--author-job', AUTHOR, '--runner-job', RUNNER, '--patch', 'p.diff'],
    { cwd: r.dir },
  );
  assert.equal(p.exit, 0, p.stderr);
  return r;
}

const seal = (dir: string) => runCli(['seal', '--repo', dir, '--runner-job', RUNNER, '--seed', '42'], { cwd: dir });

test('adversarial: a symlinked review/runner (to a folder the author fills) is refused at the seal', async () => {
  const r = await proposed();
  const evil = tempDir();
  try {
    writeFileSync(join(evil.dir, 'credit.json'), '{}\n');
    symlinkSync(evil.dir, join(r.dir, LAYOUT.runnerDir), 'dir');
    const s = await seal(r.dir);
    assert.deepEqual([s.stdout, s.exit], ['E_INPUT_INVALID\n', 1]);
    assert.match(s.stderr, /review\/runner: is a symbolic link: sealgate's seal did not create it/);
    assert.equal(existsSync(join(evil.dir, 'digest.txt')), false, 'nothing was written through the link');
  } finally {
    r.dispose();
    evil.dispose();
  }
});

test("adversarial: a pre-created review/runner (empty, planted, group-writable, or another user's) is refused at the seal", async () => {
  const r = await proposed();
  try {
    const dir = join(r.dir, LAYOUT.runnerDir);
    mkdirSync(dir);
    const empty = await seal(r.dir);
    assert.equal(empty.stdout, 'E_INPUT_INVALID\n');
    assert.match(empty.stderr, /exists without the journal a seal writes/);
    writeFileSync(join(dir, 'journal.jsonl'), '');
    chmodSync(dir, 0o777);
    const loose = await seal(r.dir);
    assert.equal(loose.stdout, 'E_INPUT_INVALID\n');
    assert.match(loose.stderr, /writable by group or others/);
    chmodSync(dir, 0o755);
    if (process.getuid?.() === 0) {
      chownSync(dir, 65534, 65534);
      const foreign = await seal(r.dir);
      assert.equal(foreign.stdout, 'E_INPUT_INVALID\n');
      assert.match(foreign.stderr, /belongs to uid 65534/);
    }
    rmSync(dir, { recursive: true });
    const clean = await seal(r.dir);
    assert.equal(clean.exit, 0, clean.stderr);
    // The seal made it itself, and a reseal of the same folder is fine.
    assert.equal((await seal(r.dir)).exit, 0);
  } finally {
    r.dispose();
  }
});

test('adversarial: review/runner swapped after the runner, for a link or a copy with forged files, is a reject', async () => {
  const { r, dispose } = await signedAllowed();
  const t = tempDir();
  try {
    const dir = join(r.dir, LAYOUT.runnerDir);
    // 1. A link to a copy: refused as a link, whatever the copy says.
    const copy = join(t.dir, 'copy');
    cpSync(dir, copy, { recursive: true });
    renameSync(dir, join(t.dir, 'orig'));
    symlinkSync(copy, dir, 'dir');
    const linked = await verify(r.dir);
    assert.equal(linked.code, 'E_INPUT_INVALID');
    assert.match(linked.stderr, /review\/runner: an evidence folder must not be a symbolic link/);
    // 2. A real folder with forged files that agree with each other (and the genuine envelope).
    rmSync(dir);
    cpSync(copy, dir, { recursive: true });
    const cases = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8')) as { cases: { id: string }[] };
    writeFileSync(
      join(dir, 'cases.json'),
      toJsonText({ ...cases, cases: cases.cases.map((c) => ({ ...c, id: `${c.id} (forged)` })) }),
    );
    const credit = JSON.parse(readFileSync(join(dir, 'credit.json'), 'utf8')) as { test_ids: string[] };
    writeFileSync(
      join(dir, 'credit.json'),
      toJsonText({ ...credit, test_ids: credit.test_ids.map((x) => `${x} (forged)`) }),
    );
    const forged = await verify(r.dir);
    assert.equal(forged.code, 'E_SIGNATURE_INVALID');
    assert.match(forged.stderr, /cases\.json|credit\.json/);
  } finally {
    dispose();
    t.dispose();
  }
});

test('adversarial: a linked evidence file (credit.json pointing at an author file) is refused by verify, signed or not', async () => {
  const r = await allowed();
  const t = tempDir();
  try {
    const credit = join(r.dir, LAYOUT.credit);
    cpSync(credit, join(t.dir, 'credit.json'));
    rmSync(credit);
    symlinkSync(join(t.dir, 'credit.json'), credit);
    const v = await runCli(['verify', '--repo', r.dir, '--now', NOW], { cwd: r.dir });
    assert.equal(v.stdout, 'E_INPUT_INVALID\n');
    assert.match(v.stderr, /credit\.json: evidence must be a regular file/);
  } finally {
    r.dispose();
    t.dispose();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { tempDir } from '../helpers/git.js';
import { allowed, attest, keygen } from './helpers.js';

/** The shell block of docs/attest.md between its recipe markers: what a reviewer runs. */
export function recipeFromDocs(): string {
  const doc = readFileSync('docs/attest.md', 'utf8');
  const m = /<!-- recipe:start -->\n```sh\n([\s\S]*?)```\n<!-- recipe:end -->/.exec(doc);
  assert.ok(m?.[1], 'docs/attest.md has its recipe block');
  return m[1];
}

function runRecipe(cwd: string, env: Record<string, string>): { status: number | null; out: string } {
  const r = spawnSync('bash', ['-c', recipeFromDocs()], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', ...env },
    encoding: 'utf8',
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

test('the openssl recipe in docs/attest.md accepts a genuine envelope and rejects edits, other keys and extra files', async () => {
  const r = await allowed();
  const t = tempDir();
  try {
    const k = await keygen(join(t.dir, 'runner'));
    const other = await keygen(join(t.dir, 'other'));
    assert.equal((await attest(r.dir, k.priv)).exit, 0);
    const good = runRecipe(r.dir, { PUBKEY: k.pub });
    assert.equal(good.status, 0, good.out);
    assert.match(good.out, /Signature Verified Successfully/);
    assert.match(good.out, new RegExp(`envelope OK: signed by ${k.keyId}`));

    assert.notEqual(runRecipe(r.dir, { PUBKEY: other.pub }).status, 0, 'another key does not verify');

    const extra = join(r.dir, LAYOUT.runnerDir, 'planted.json');
    writeFileSync(extra, '{}\n');
    assert.notEqual(runRecipe(r.dir, { PUBKEY: k.pub }).status, 0, 'a file the signature does not cover');
    spawnSync('rm', [extra]);

    const credit = join(r.dir, LAYOUT.credit);
    const bytes = readFileSync(credit);
    writeFileSync(credit, Buffer.concat([bytes, Buffer.from(' ')]));
    const edited = runRecipe(r.dir, { PUBKEY: k.pub });
    assert.notEqual(edited.status, 0);
    assert.match(edited.out, /credit\.json: FAILED/);
    writeFileSync(credit, bytes);

    const envPath = join(r.dir, 'review/runner/attestation.dsse.json');
    const env = JSON.parse(readFileSync(envPath, 'utf8')) as {
      payload: string;
      payloadType: string;
      signatures: { keyid: string; sig: string }[];
    };
    const payload = Buffer.from(env.payload, 'base64').toString('utf8').replace('"server-job-88"', '"server-job-99"');
    writeFileSync(
      envPath,
      `${JSON.stringify({ ...env, payload: Buffer.from(payload).toString('base64') }, null, 2)}\n`,
    );
    assert.notEqual(runRecipe(r.dir, { PUBKEY: k.pub }).status, 0, 'an edited predicate fails the signature');
  } finally {
    r.dispose();
    t.dispose();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AGENT_PATCH,
  agentPatch,
  assertHonest,
  exampleRepo,
  propose,
  runAndVerify,
  taxCaseKind,
  writePatch,
} from './helpers.js';

/**
 * The tautology rewrites itself into a real test while the sealed run executes it, so that a
 * classifier reading the tree afterwards would see a real bound. Tests run only in fresh
 * copies of the runner's tree; the classifier reads the pristine tree.
 */
const REWRITE = `
import { readFileSync as readSelf, writeFileSync as writeSelf } from 'node:fs';
import { fileURLToPath } from 'node:url';
{
  const self = fileURLToPath(import.meta.url);
  const text = readSelf(self, 'utf8');
  const fake = 'assert.equal(tax, ' + 'tax);';
  if (text.includes(fake)) writeSelf(self, text.replace(fake, 'assert.ok(tax >= 0 && tax <= 1999);'));
}
`;

test('adversarial: a sealed-run test that rewrites its own tautology in its cwd does not change what the classifier reads -> E_CREDIT_MISSING', async () => {
  const r = exampleRepo();
  try {
    const patch = writePatch(
      r.dir,
      'self.diff',
      agentPatch(r.dir, AGENT_PATCH, { 'test/pricing.test.ts': (old) => old + REWRITE }),
    );
    assert.equal((await propose(r.dir, patch)).exit, 0);
    const out = await runAndVerify(r.dir);
    assertHonest(out.runner, 'E_CREDIT_MISSING', /taxCents: reached only by tautologies: pricing::tax is computed/);
    assertHonest(out.verify, 'E_CREDIT_MISSING', /pass is false/);
    assert.equal(taxCaseKind(r.dir), 'tautology');
  } finally {
    r.dispose();
  }
});

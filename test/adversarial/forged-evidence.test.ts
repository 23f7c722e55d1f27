// The author job rewrites the runner's credit and case files so that they agree with each
// other: the audit that recomputes credit from cases cannot tell. The signature can.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { toJsonText } from '../../src/core/json.js';
import { propertyCredit } from '../../src/credit/score/rule.js';
import { tempDir } from '../helpers/git.js';
import { PROP_TAX, TAUTOLOGY_TAX, proposedAndSealed, verify, writeScoring } from '../workflow/review.js';
import { attest, keygen, trustedProposedAndSealed } from '../attest/helpers.js';

interface Cases {
  changed: string[];
  digest: string;
  cases: {
    id: string;
    digest: string;
    kind: 'property' | 'tautology';
    status: 'passed' | 'failed';
    symbols: string[];
  }[];
}

/** Turn the tautology into a "property" in cases.json and recompute credit.json from it: consistent forgeries. */
function forge(dir: string): void {
  const cases = JSON.parse(readFileSync(join(dir, LAYOUT.cases), 'utf8')) as Cases;
  const forged = cases.cases.map((c) =>
    c.id === TAUTOLOGY_TAX
      ? { id: PROP_TAX, digest: c.digest, kind: 'property' as const, status: 'passed' as const, symbols: c.symbols }
      : c,
  );
  writeFileSync(join(dir, LAYOUT.cases), toJsonText({ ...cases, cases: forged }));
  const credit = JSON.parse(readFileSync(join(dir, LAYOUT.credit), 'utf8')) as Record<string, unknown> & {
    credit_id: string;
  };
  const recomputed = propertyCredit(credit.credit_id, cases.changed, forged, cases.digest);
  writeFileSync(join(dir, LAYOUT.credit), toJsonText({ ...credit, ...recomputed }));
}

test('adversarial: forged credit and case files that agree pass the unsigned audit, and are E_SIGNATURE_INVALID with trust', async () => {
  const t = tempDir();
  const k = await keygen(join(t.dir, 'runner'));
  // The policy is read at the record's base commit (and sealed): the trusting review has its
  // trust section committed before the proposal, the open one has none.
  const r = await trustedProposedAndSealed({ runnerKeys: [k.pem] });
  const u = await proposedAndSealed();
  try {
    writeScoring(u, 'tautology');
    assert.equal((await verify(u.dir)).code, 'E_CREDIT_MISSING', 'the honest result: taxCents has only a tautology');
    writeScoring(r, 'tautology');
    assert.equal((await attest(r.dir, k.priv)).exit, 0, 'the runner signs the honest result');
    assert.equal((await verify(r.dir)).code, 'E_CREDIT_MISSING', 'the signed honest result: still only a tautology');
    forge(r.dir);
    const bad = await verify(r.dir);
    assert.equal(bad.code, 'E_SIGNATURE_INVALID');
    assert.match(bad.stderr, /review\/runner\/(cases|credit)\.json: its SHA-256 [0-9a-f]{64} is not the signed/);
    // The same forgery without a trust section: the gap this code closes (reported as unsigned).
    forge(u.dir);
    const open = await verify(u.dir);
    assert.equal(open.code, 'ALLOW', 'without trust the forgery is undetectable: hence the trust section');
  } finally {
    r.dispose();
    u.dispose();
    t.dispose();
  }
});

// The author job rewrites the runner's credit and case files so that they agree with each
// other: the audit that recomputes credit from cases cannot tell. The signature can.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LAYOUT } from '../../src/core/layout.js';
import { toJsonText } from '../../src/core/json.js';
import { propertyCredit } from '../../src/credit/rule.js';
import { tempDir } from '../helpers/git.js';
import { PROP_TAX, TAUTOLOGY_TAX, proposedAndSealed, verify, writeScoring } from '../workflow/review.js';
import { attest, keygen, trust } from '../attest/helpers.js';

interface Cases { changed: string[]; digest: string; cases: { id: string; digest: string; kind: 'property' | 'tautology'; status: 'passed' | 'failed'; symbols: string[] }[] }

/** Turn the tautology into a "property" in cases.json and recompute credit.json from it: consistent forgeries. */
function forge(dir: string): void {
  const cases = JSON.parse(readFileSync(join(dir, LAYOUT.cases), 'utf8')) as Cases;
  const forged = cases.cases.map((c) => (c.id === TAUTOLOGY_TAX ? { id: PROP_TAX, digest: c.digest, kind: 'property' as const, status: 'passed' as const, symbols: c.symbols } : c));
  writeFileSync(join(dir, LAYOUT.cases), toJsonText({ ...cases, cases: forged }));
  const credit = JSON.parse(readFileSync(join(dir, LAYOUT.credit), 'utf8')) as Record<string, unknown> & { credit_id: string };
  const recomputed = propertyCredit(credit.credit_id, cases.changed, forged, cases.digest);
  writeFileSync(join(dir, LAYOUT.credit), toJsonText({ ...credit, ...recomputed }));
}

test('adversarial: forged credit and case files that agree pass the unsigned audit, and are E_SIGNATURE_INVALID with trust', async () => {
  const r = await proposedAndSealed();
  const t = tempDir();
  try {
    writeScoring(r, 'tautology');
    assert.equal((await verify(r.dir)).code, 'E_CREDIT_MISSING', 'the honest result: taxCents has only a tautology');
    const k = await keygen(join(t.dir, 'runner'));
    trust(r.dir, [k.pem]);
    assert.equal((await attest(r.dir, k.priv)).exit, 0, 'the runner signs the honest result');
    forge(r.dir);
    const bad = await verify(r.dir);
    assert.equal(bad.code, 'E_SIGNATURE_INVALID');
    assert.match(bad.stderr, /review\/runner\/(cases|credit)\.json: its SHA-256 [0-9a-f]{64} is not the signed/);
    // The same forgery without a trust section: the gap this code closes (reported as unsigned).
    const config = JSON.parse(readFileSync(join(r.dir, 'sealgate.config.json'), 'utf8')) as Record<string, unknown>;
    delete config.trust;
    writeFileSync(join(r.dir, 'sealgate.config.json'), toJsonText(config));
    const open = await verify(r.dir);
    assert.equal(open.code, 'ALLOW', 'without trust the forgery is undetectable: hence the trust section');
  } finally {
    r.dispose();
    t.dispose();
  }
});

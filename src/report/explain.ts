import { CODE_INFO } from '../core/codes.js';
import type { Decision, GateInputs } from '../gate/decide.js';
import { describeSignatures, type SignatureState } from '../attest/read.js';
import { visible } from '../core/text.js';

/** The full human account of one gate decision: the spec's four reviewer questions, then every finding. */
export function explainDecision(x: GateInputs, d: Decision, signatures?: SignatureState): string {
  const r = x.record;
  const c = x.credit;
  const z = x.freeze;
  const lines: string[] = [];
  lines.push(`decision: ${d.code}  (${CODE_INFO[d.code].spec || 'sealgate rule'})`);
  if (d.decisive) lines.push(`because:  ${d.decisive.path ? `${d.decisive.path}: ` : ''}${d.decisive.detail}`);
  if (d.code !== 'ALLOW') lines.push(`next:     ${CODE_INFO[d.code].nextStep}`);
  lines.push('');
  lines.push(
    `1. patch written by:   ${r.author_job || '(missing)'}  (proposal ${r.proposal_id}, ${r.patch_path}, sha256 ${x.patchSha256})`,
  );
  lines.push(
    `2. digest sealed by:   ${r.runner_job || '(missing)'}  status ${r.digest_status}${x.runnerFiles.status !== null ? ` (digest.status: ${x.runnerFiles.status})` : ''}, digest ${r.digest ?? x.runnerFiles.digest ?? '(none)'}`,
  );
  lines.push(
    `   logs:               present ${String(r.logs_present)}, after seal ${String(r.logs_after_seal)}, visibility ${r.log_visibility}`,
  );
  const files = x.patchFiles.map((p) => `${p.path} [${p.class}]`).join(', ');
  lines.push(`   files:              ${files || '(none)'}`);
  if (c) {
    lines.push(`3. credit ${c.credit_id} on digest ${c.digest}: pass ${String(c.pass)}`);
    lines.push(`   credited:           ${c.credited.join(', ') || '(none)'}`);
    lines.push(`   by tests:           ${c.test_ids.join(', ') || '(none)'}`);
    lines.push(`   missing:            ${c.missing.join(', ') || '(none)'}`);
    lines.push(`   tautologies:        ${c.tautologies.join(', ') || '(none)'}`);
  } else lines.push('3. credit:             no credit file (no property run)');
  if (z) {
    const yes = (b: boolean): string => (b ? 'yes' : 'NO');
    lines.push(`4. freeze ${z.freeze_id} by ${z.author_job} on test ${z.test_id}:`);
    lines.push(`   cites this digest:       ${c ? yes(z.runner_digest === c.digest) : 'no credit to compare'}`);
    lines.push(
      `   cites a passing credit:  ${c ? yes(z.credit_id === c.credit_id && d.findings.every((f) => f.code !== 'E_CREDIT_MISSING')) : 'no credit'}`,
    );
    lines.push(`   names another test:      ${c ? yes(!c.test_ids.includes(z.test_id)) : 'no credit'}`);
    lines.push(
      `   expires in the future:   ${yes(d.findings.every((f) => f.code !== 'E_FREEZE_EXPIRED'))} (${z.expires_at}, now ${x.now.text})`,
    );
    lines.push(
      `   from a third job:        ${yes(d.findings.every((f) => f.path !== 'freeze#author_job' && f.path !== 'freeze'))}`,
    );
  } else lines.push('4. freeze:             none');
  if (signatures !== undefined) lines.push(`   signatures:         ${describeSignatures(signatures)}`);
  if (d.findings.length > 0) {
    lines.push('');
    lines.push('all findings, in precedence order:');
    for (const f of d.findings) lines.push(`  ${f.code}  ${f.path ? `${f.path}: ` : ''}${f.detail}`);
  }
  // Names come from the patch and its tests: no terminal control or bidi override gets through raw.
  return lines.map((l) => visible(l)).join('\n') + '\n';
}

import type { Finding } from '../core/errors.js';
import { groupKills, isolationText, type ReviewReport } from './model.js';

const where = (f: Finding): string => (f.path ? `${f.path}: ` : '');
const yes = (b: boolean): string => (b ? 'yes' : 'NO');
const list = (xs: readonly string[]): string => (xs.length > 0 ? xs.join(', ') : '(none)');

/** The report as plain text, for a terminal. */
export function toTextReport(r: ReviewReport): string {
  const d = r.decision;
  const out: string[] = [];
  out.push(`decision: ${d.code}  (${d.row})`);
  if (d.decisive) out.push(`because:  ${where(d.decisive)}${d.decisive.detail}`);
  if (d.nextStep) out.push(`next:     ${d.nextStep}`);
  out.push(`clock:    ${r.now}`);
  out.push(`sandbox:  ${isolationText(r.isolation)}`);
  out.push('');
  out.push(`1. Which job wrote the patch?      ${r.patch.authorJob ?? '(missing)'}`);
  out.push(`   proposal ${r.patch.proposalId}, ${r.patch.path}, sha256 ${r.patch.sha256} (${r.patch.matchesRecord ? 'matches the record' : 'DOES NOT match the record'})`);
  out.push(`   files: ${r.patch.files.map((f) => `${f.path} [${f.class}]`).join(', ') || '(none)'}`);
  out.push(`2. Which job wrote digest.status?  ${r.seal.sealedBy ?? '(no seal in the journal)'}  (record's runner: ${r.seal.runnerJob ?? '(missing)'})`);
  out.push(`   status: record ${r.seal.recordStatus}, digest.status ${r.seal.fileStatus ?? '(absent)'}; digest ${r.seal.digest ?? '(none)'}${r.seal.sealedAt ? `, sealed at ${r.seal.sealedAt}` : ''}`);
  out.push(`   recomputed: ${r.seal.recomputed}`);
  out.push(`   tested: base ${r.seal.baseCommit ?? '(none)'}, tree ${r.seal.treeSealed ?? '(not sealed)'}${r.seal.treeRebuilt !== null && r.seal.treeRebuilt !== r.seal.treeSealed ? ` (rebuilt now: ${r.seal.treeRebuilt})` : ''}`);
  out.push(`   policy: ${r.seal.policyDigest} (${r.seal.policySource}); test command ${JSON.stringify(r.seal.testCommand)}`);
  for (const f of r.seal.drift) out.push(`   drift: ${where(f)}${f.detail}`);
  out.push(`   logs: present ${String(r.seal.logs.present)}, after seal ${String(r.seal.logs.afterSeal)}, ${r.seal.logs.visibility}`);
  out.push('3. Which changed symbols have non-tautological credit on that digest?');
  if (r.credit) out.push(`   credit ${r.credit.creditId} on ${r.credit.digest}: pass ${String(r.credit.pass)}`, `   recomputed: ${r.credit.recomputed}`);
  else out.push('   no credit file (no property run)');
  for (const s of r.symbols) {
    out.push(`   ${s.status === 'missing' ? 'MISSING ' : 'credited'} ${s.id}${s.location ? `  (${s.location})` : ''}`);
    if (s.tests.length > 0) out.push(`            tests: ${s.tests.join(', ')}`);
    for (const [t, ms] of groupKills(s)) out.push(`            ${t} killed ${ms.length}: ${ms.join(' ')}`);
    if (s.insensitive.length > 0) out.push(`            insensitive (reached, killed nothing): ${s.insensitive.join(', ')}`);
    if (s.tautologies.length > 0) out.push(`            tautologies (no credit): ${s.tautologies.join(', ')}`);
    if (s.status === 'missing' && s.reason) out.push(`            why: ${s.reason}`);
  }
  if (r.symbols.length === 0) out.push('   changed symbols: (none)');
  if (r.moved.length > 0) out.push(`   moved (no credit needed): ${r.moved.map((m) => `${m.from} -> ${m.to}`).join(', ')}`);
  if (r.deleted.length > 0) out.push(`   deleted: ${list(r.deleted)}`);
  if (r.typeOnly.length > 0) out.push(`   type-only: ${list(r.typeOnly)}`);
  if (r.uncreditable.length > 0) out.push(`   uncreditable files: ${list(r.uncreditable)}`);
  if (r.importedTests.length > 0) out.push(`   test-path files production imports (need credit): ${r.importedTests.map((t) => `${t.path} (imported by ${t.importedBy})`).join(', ')}`);
  if (r.undefinedTests.length > 0) out.push(`   undefined tests (no test file defines them; no credit): ${list(r.undefinedTests)}`);
  if (r.tautologies.length > 0) out.push(`   tautologies: ${r.tautologies.map((t) => `${t.id}${t.rule ? ` [${t.rule}]` : ''}`).join(', ')}`);
  if (r.freeze) {
    out.push(`4. Freeze ${r.freeze.freezeId} by ${r.freeze.authorJob} on test ${r.freeze.testId}, expires ${r.freeze.expiresAt}:`);
    for (const c of r.freeze.checks) out.push(`   ${yes(c.ok).padEnd(3)} ${c.name}: ${c.actual} (expected ${c.expected})`);
  } else out.push('4. Freeze: none');
  out.push('');
  out.push('audit:');
  for (const s of r.steps) out.push(`  ${s.ok ? (s.warn ? 'WARN' : 'ok  ') : 'FAIL'} ${s.stage.padEnd(7)} ${s.summary}`);
  if (d.findings.length > 0) {
    out.push('');
    out.push('all findings, in the order that decided:');
    for (const f of d.findings) out.push(`  ${f.code}  ${where(f)}${f.detail}`);
  }
  return out.join('\n') + '\n';
}

import type { Finding } from '../core/errors.js';
import { visible } from '../core/text.js';
import { FEW, few, isolationText, revertText, type ReviewReport } from './model.js';

const where = (f: Finding): string => (f.path ? `${f.path}: ` : '');
/** A finding's detail can list every symbol: cut long ones (the JSON report has them whole). */
const MAX_DETAIL = 400;
const detail = (f: Finding): string =>
  f.detail.length > MAX_DETAIL
    ? `${f.detail.slice(0, MAX_DETAIL)}... (${f.detail.length} characters; explain --format json)`
    : f.detail;
const yes = (b: boolean): string => (b ? 'yes' : 'NO');
const list = (xs: readonly string[]): string => few(xs);
/** Findings shown in the text report; the rest are counted (all are in --format json). */
const MAX_FINDINGS = 20;
const MANY_SYMBOLS = 20;

/** The report as plain text, for a terminal. */
export function toTextReport(r: ReviewReport): string {
  const d = r.decision;
  const out: string[] = [];
  out.push(`decision: ${d.code}  (${d.row})`);
  if (d.decisive) out.push(`because:  ${where(d.decisive)}${detail(d.decisive)}`);
  if (d.nextStep) out.push(`next:     ${d.nextStep}`);
  out.push(`clock:    ${r.now}`);
  out.push(`sandbox:  ${isolationText(r.isolation)}`);
  out.push('');
  out.push(`1. Which job wrote the patch?      ${r.patch.authorJob ?? '(missing)'}`);
  out.push(
    `   proposal ${r.patch.proposalId}, ${r.patch.path}, sha256 ${r.patch.sha256} (${r.patch.matchesRecord ? 'matches the record' : 'DOES NOT match the record'})`,
  );
  out.push(
    `   files (${r.patch.files.length}): ${few(
      r.patch.files.map((f) => `${f.path} [${f.class}]`),
      5,
    )}`,
  );
  out.push(
    `2. Which job wrote digest.status?  ${r.seal.sealedBy ?? '(no seal in the journal)'}  (record's runner: ${r.seal.runnerJob ?? '(missing)'})`,
  );
  out.push(
    `   status: record ${r.seal.recordStatus}, digest.status ${r.seal.fileStatus ?? '(absent)'}; digest ${r.seal.digest ?? '(none)'}${r.seal.sealedAt ? `, sealed at ${r.seal.sealedAt}` : ''}`,
  );
  out.push(`   recomputed: ${r.seal.recomputed}`);
  out.push(
    `   tested: base ${r.seal.baseCommit ?? '(none)'}, tree ${r.seal.treeSealed ?? '(not sealed)'}${r.seal.treeRebuilt !== null && r.seal.treeRebuilt !== r.seal.treeSealed ? ` (rebuilt now: ${r.seal.treeRebuilt})` : ''}`,
  );
  out.push(
    `   policy: ${r.seal.policyDigest} (${r.seal.policySource}); test command ${JSON.stringify(r.seal.testCommand)}`,
  );
  for (const f of r.seal.drift) out.push(`   drift: ${where(f)}${detail(f)}`);
  out.push(
    `   logs: present ${String(r.seal.logs.present)}, after seal ${String(r.seal.logs.afterSeal)}, ${r.seal.logs.visibility}`,
  );
  out.push('3. Which changed symbols have non-tautological credit on that digest?');
  if (r.credit)
    out.push(
      `   credit ${r.credit.creditId} on ${r.credit.digest}: pass ${String(r.credit.pass)}`,
      `   recomputed: ${r.credit.recomputed}`,
    );
  else out.push('   no credit file (no property run)');
  // Many symbols: one name per list keeps the report readable (and under 50 KB on large projects).
  const n = r.symbols.length > MANY_SYMBOLS ? 1 : FEW;
  for (const s of r.symbols) {
    out.push(`   ${s.status === 'missing' ? 'MISSING ' : 'credited'} ${s.id}${s.location ? `  (${s.location})` : ''}`);
    if (s.decisive)
      out.push(
        `            decisive: mutant ${s.decisive.mutant.startsWith(`${s.id}#`) ? s.decisive.mutant.slice(s.id.length + 1) : s.decisive.mutant}${s.decisive.description ? ` (${s.decisive.description})` : ''} killed by ${s.decisive.test}`,
      );
    else if (s.tests.length > 0) out.push(`            credited by: ${few(s.tests)}`);
    if (s.revert) out.push(`            revert: ${revertText(s.revert)}`);
    // A credited symbol's decisive kill is its evidence: the rest is counted. A missing one names a few of the tests that reached it.
    const named = s.status === 'missing';
    const allInsensitive = s.insensitive.length > 0 && s.insensitive.length === s.reached.length;
    out.push(
      `            reached by ${s.reached.length} test(s)${named && s.reached.length > 0 ? `: ${few(s.reached, n)}` : ''}${allInsensitive ? ', all insensitive (killed nothing)' : ''}${s.killed.length > 0 ? `; ${s.killed.length} mutant kill(s) by ${s.tests.length} test(s)` : ''}${!named && !allInsensitive && s.insensitive.length > 0 ? `; ${s.insensitive.length} insensitive` : ''}`,
    );
    if (named && !allInsensitive && s.insensitive.length > 0)
      out.push(`            insensitive (reached, killed nothing): ${few(s.insensitive, n)}`);
    if (s.tautologies.length > 0)
      out.push(`            tautologies (no credit): ${named ? few(s.tautologies, n) : s.tautologies.length}`);
    if (s.status === 'missing' && s.reason) out.push(`            why: ${s.reason}`);
  }
  if (r.symbols.length === 0) out.push('   changed symbols: (none)');
  if (r.moved.length > 0)
    out.push(`   moved (no credit needed): ${r.moved.map((m) => `${m.from} -> ${m.to}`).join(', ')}`);
  if (r.deleted.length > 0) out.push(`   deleted: ${list(r.deleted)}`);
  if (r.typeOnly.length > 0) out.push(`   type-only: ${list(r.typeOnly)}`);
  if (r.uncreditable.length > 0) out.push(`   uncreditable files: ${list(r.uncreditable)}`);
  if (r.importedTests.length > 0)
    out.push(
      `   test-path files production imports (need credit): ${few(r.importedTests.map((t) => `${t.path} (imported by ${t.importedBy})`))}`,
    );
  if (r.undefinedTests.length > 0)
    out.push(`   undefined tests (no test file defines them; no credit): ${list(r.undefinedTests)}`);
  if (r.tautologies.length > 0)
    out.push(
      `   tautologies (${r.tautologies.length}): ${few(r.tautologies.map((t) => `${t.id}${t.rule ? ` [${t.rule}]` : ''}`))}`,
    );
  if (r.freeze) {
    out.push(
      `4. Freeze ${r.freeze.freezeId} by ${r.freeze.authorJob} on test ${r.freeze.testId}, expires ${r.freeze.expiresAt}:`,
    );
    for (const c of r.freeze.checks)
      out.push(`   ${yes(c.ok).padEnd(3)} ${c.name}: ${c.actual} (expected ${c.expected})`);
  } else out.push('4. Freeze: none');
  out.push('');
  out.push('audit:');
  for (const s of r.steps)
    out.push(`  ${s.ok ? (s.warn ? 'WARN' : 'ok  ') : 'FAIL'} ${s.stage.padEnd(7)} ${s.summary}`);
  if (d.findings.length > 0) {
    out.push('');
    out.push('all findings, in the order that decided:');
    for (const f of d.findings.slice(0, MAX_FINDINGS)) out.push(`  ${f.code}  ${where(f)}${detail(f)}`);
    if (d.findings.length > MAX_FINDINGS)
      out.push(`  and ${d.findings.length - MAX_FINDINGS} more (explain --format json lists them all)`);
  }
  out.push('');
  out.push(`(at most ${FEW} names per list; explain --format json has every test, mutant and finding)`);
  // Names come from the patch and its tests: no terminal control or bidi override gets through raw.
  return out.map((l) => visible(l)).join('\n') + '\n';
}

import type { Finding } from '../core/errors.js';
import { visible } from '../core/text.js';
import { FEW, isolationText, revertShowsNothing, type ReviewReport } from './model.js';

/**
 * Inline text from the evidence (finding details, reasons, step summaries name files and
 * tests the patch chose): one line, shown as written. Backslash escapes keep its link,
 * image, HTML, code-span and table syntax from acting: a test named
 * `![x](https://host/t.png)` would otherwise load a remote image in the job summary.
 */
const cell = (s: string): string => visible(s.replace(/\r?\n/g, ' ')).replace(/[\\`[\]<>|]/g, '\\$&');
/**
 * A code span: backticks cannot close it, a line break (shown as its escape) cannot end
 * the table row, and `|` is escaped (inside a table, GFM splits cells at a bare pipe even
 * in a code span).
 */
const code = (s: string): string => (s === '' ? '' : `\`${visible(s).replace(/`/g, "'").replace(/\|/g, '\\|')}\``);
const where = (f: Finding): string => (f.path ? `${code(f.path)}: ` : '');
const mark = (ok: boolean): string => (ok ? '✅' : '❌');
/** At most FEW code spans, the rest counted. */
const fewCode = (xs: readonly string[]): string =>
  xs.length <= FEW ? xs.map(code).join(', ') : `${xs.slice(0, FEW).map(code).join(', ')} and ${xs.length - FEW} more`;
const MAX_FINDINGS = 20;
const MAX_DETAIL = 400;
const detail = (f: Finding): string =>
  cell(
    f.detail.length > MAX_DETAIL
      ? `${f.detail.slice(0, MAX_DETAIL)}... (${f.detail.length} characters; explain --format json)`
      : f.detail,
  );

/** The report as GitHub-flavoured Markdown, for a CI job summary. */
export function toMarkdownReport(r: ReviewReport): string {
  const d = r.decision;
  const out: string[] = [];
  out.push(`## sealgate: ${d.code === 'ALLOW' ? '✅' : '❌'} \`${d.code}\``);
  out.push('');
  // One item per line: consecutive lines would run together into one paragraph.
  out.push(`- **Rule:** ${cell(d.row)}. ${cell(d.condition)}`);
  if (d.decisive) out.push(`- **Because:** ${where(d.decisive)}${detail(d.decisive)}`);
  if (d.nextStep) out.push(`- **Next step:** ${cell(d.nextStep)}`);
  out.push(`- **Review clock:** ${code(r.now)}`);
  out.push(
    `- **Tested:** base ${code(r.seal.baseCommit ?? '(none)')}, tree ${code(r.seal.treeSealed ?? '(not sealed)')}${r.seal.treeRebuilt !== null && r.seal.treeRebuilt !== r.seal.treeSealed ? ` (**rebuilt now: ${code(r.seal.treeRebuilt)}**)` : ''}`,
  );
  out.push(
    `- **Policy:** ${code(r.seal.policyDigest)} (${code(r.seal.policySource)}); test command ${code(JSON.stringify(r.seal.testCommand))}`,
  );
  out.push(`- **Sandbox:** ${cell(isolationText(r.isolation))}`);
  out.push('');
  out.push('| Question | Answer |');
  out.push('|---|---|');
  out.push(
    `| 1. Which job wrote the patch? | ${code(r.patch.authorJob ?? '(missing)')} (proposal ${code(r.patch.proposalId)}, ${code(r.patch.path)}, hash ${r.patch.matchesRecord ? 'matches the record' : '**does not match the record**'}) |`,
  );
  out.push(
    `| 2. Which job wrote digest.status? | ${code(r.seal.sealedBy ?? '(no seal in the journal)')} (record's runner ${code(r.seal.runnerJob ?? '(missing)')}; status ${code(r.seal.recordStatus)}; digest ${code(r.seal.digest ?? '(none)')}) |`,
  );
  const credited = r.symbols.filter((s) => s.status !== 'missing').map((s) => s.id);
  out.push(
    `| 3. Which changed symbols have non-tautological credit? | ${credited.length} of ${r.symbols.length}${credited.length > 0 ? `: ${fewCode(credited)}` : ''}${r.credit ? ` (credit ${code(r.credit.creditId)}, pass ${String(r.credit.pass)})` : ' (no credit file)'} |`,
  );
  out.push(
    `| 4. Does the freeze cite that digest, a passing credit, another test and a future expiry? | ${
      r.freeze
        ? r.freeze.checks.every((c) => c.ok)
          ? 'yes, every field'
          : `**no**: ${r.freeze.checks
              .filter((c) => !c.ok)
              .map((c) => c.name)
              .join('; ')}`
        : 'no freeze'
    } |`,
  );
  out.push('');
  out.push('### Symbols');
  out.push('');
  if (r.symbols.length === 0) out.push('No changed production symbols.');
  else {
    out.push('| Symbol | Credit | Decisive evidence | Reaching tests |');
    out.push('|---|---|---|---|');
    for (const s of r.symbols) {
      const short = (m: string): string => (m.startsWith(`${s.id}#`) ? m.slice(s.id.length + 1) : m);
      const decisive =
        (s.decisive
          ? `mutant ${code(short(s.decisive.mutant))}${s.decisive.description ? ` (${cell(s.decisive.description)})` : ''} killed by ${code(s.decisive.test)}`
          : s.tests.length > 0
            ? `credited by ${fewCode(s.tests)}`
            : '') +
        (s.revert
          ? `${s.decisive || s.tests.length > 0 ? '; ' : ''}revert ${revertShowsNothing(s.revert.outcome) ? `**${cell(s.revert.outcome)}**` : cell(s.revert.outcome)}`
          : '');
      out.push(
        `| ${code(s.id)} | ${s.status === 'missing' ? `❌ missing${s.reason ? `: ${cell(s.reason)}` : ''}` : `✅ ${s.status}`} | ${decisive} | ${s.reached.length}${s.status === 'missing' && s.reached.length > 0 ? `: ${r.symbols.length > 20 ? fewCode(s.reached.slice(0, 1)) + (s.reached.length > 1 ? ` and ${s.reached.length - 1} more` : '') : fewCode(s.reached)}` : ''} |`,
      );
    }
  }
  const extra: [string, readonly string[]][] = [
    ['Moved (no credit needed)', r.moved.map((m) => `${code(m.from)} → ${code(m.to)}`)],
    ['Deleted', r.deleted.map(code)],
    ['Type-only', r.typeOnly.map(code)],
    ['Uncreditable files', r.uncreditable.map(code)],
    [
      'Test-path files production imports (need credit)',
      r.importedTests.map((t) => `${code(t.path)} (imported by ${code(t.importedBy)})`),
    ],
    ['Undefined tests (no test file defines them; no credit)', r.undefinedTests.map(code)],
    ['Tautologies', r.tautologies.map((t) => `${code(t.id)}${t.rule ? ` (${cell(t.rule)})` : ''}`)],
  ];
  const shown = (xs: readonly string[]): string =>
    xs.length <= FEW ? xs.join(', ') : `${xs.slice(0, FEW).join(', ')} and ${xs.length - FEW} more`;
  for (const [title, xs] of extra) if (xs.length > 0) out.push('', `**${title} (${xs.length}):** ${shown(xs)}`);
  out.push('');
  out.push('### Freeze');
  out.push('');
  if (!r.freeze) out.push('No freeze file.');
  else {
    out.push(`Freeze ${code(r.freeze.freezeId)} by ${code(r.freeze.authorJob)} on test ${code(r.freeze.testId)}.`);
    out.push('');
    out.push('| Check | OK | Freeze says | Expected |');
    out.push('|---|---|---|---|');
    for (const c of r.freeze.checks)
      out.push(`| ${cell(c.name)} | ${mark(c.ok)} | ${code(c.actual)} | ${cell(c.expected)} |`);
  }
  out.push('');
  out.push('### Audit');
  out.push('');
  for (const s of r.steps) out.push(`- ${s.ok && s.warn ? '⚠️' : mark(s.ok)} **${s.stage}**: ${cell(s.summary)}`);
  if (d.findings.length > 0) {
    out.push('');
    out.push('<details><summary>All findings</summary>');
    out.push('');
    for (const f of d.findings.slice(0, MAX_FINDINGS)) out.push(`- ${code(f.code)} ${where(f)}${detail(f)}`);
    if (d.findings.length > MAX_FINDINGS)
      out.push(`- and ${d.findings.length - MAX_FINDINGS} more (\`explain --format json\`)`);
    out.push('');
    out.push('</details>');
  }
  out.push('');
  out.push(
    `<sub>At most ${FEW} names per list; \`sealgate explain --format json\` has every test, mutant and finding.</sub>`,
  );
  return out.join('\n') + '\n';
}

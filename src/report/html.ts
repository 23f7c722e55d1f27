import type { Finding } from '../core/errors.js';
import { visible } from '../core/text.js';
import {
  FEW,
  groupKills,
  isolationText,
  revertShowsNothing,
  revertText,
  type ReviewReport,
  type SymbolRow,
} from './model.js';

/**
 * Escape for HTML text and attribute values. Bidi overrides, zero-width and control
 * characters are shown as `\uXXXX` escapes: an override is not closed by the element
 * around a name, and would reverse the rest of the line (line breaks and tabs, mere white
 * space in HTML, stay).
 */
export function escapeHtml(s: string): string {
  return visible(s, '\n\t').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );
}

const e = escapeHtml;
const code = (s: string): string => `<code>${e(s)}</code>`;
const where = (f: Finding): string => (f.path ? `${code(f.path)}: ` : '');
const mark = (ok: boolean): string => (ok ? '<span class="ok">✔</span>' : '<span class="bad">✘</span>');

const CSS = `
:root{--ok:#1a7f37;--bad:#c62828;--muted:#57606a;--line:#d0d7de;--bg:#f6f8fa}
*{box-sizing:border-box}
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
code{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--bg);padding:1px 4px;border-radius:4px;word-break:break-all}
.banner{border-radius:8px;padding:18px 22px;color:#fff}
.banner.allow{background:var(--ok)}.banner.reject{background:var(--bad)}
.banner .code{font:700 28px/1.2 ui-monospace,monospace;letter-spacing:.5px}
.banner p{margin:6px 0 0}.banner code{background:rgba(255,255,255,.18);color:#fff}
.qs{display:grid;grid-template-columns:repeat(auto-fit,minmax(240px,1fr));gap:12px;margin-top:16px}
.q{border:1px solid var(--line);border-radius:8px;padding:12px 14px}
.q h3{font-size:13px;color:var(--muted);margin:0 0 6px;font-weight:600}
.q .a{font-weight:600}
table{border-collapse:collapse;width:100%;font-size:14px}
th,td{border:1px solid var(--line);padding:6px 8px;text-align:left;vertical-align:top}
th{background:var(--bg)}
.ok{color:var(--ok);font-weight:700}.bad{color:var(--bad);font-weight:700}
.pill{display:inline-block;border-radius:999px;padding:0 8px;font-size:12px;font-weight:700;color:#fff}
.pill.credited,.pill.credited-by-probe{background:var(--ok)}.pill.missing{background:var(--bad)}
.muted{color:var(--muted)}
ul{margin:4px 0;padding-left:20px}
`;

/** A list shown as its first FEW entries, the whole of it in a collapsed <details>. */
function collapsible(xs: readonly string[], none = 'none'): string {
  if (xs.length === 0) return `<span class="muted">${none}</span>`;
  const head = xs.slice(0, FEW).map(code).join('<br>');
  if (xs.length <= FEW) return head;
  return `${head}<details><summary>all ${xs.length}</summary>${xs.map(code).join('<br>')}</details>`;
}

function symbolRows(rows: readonly SymbolRow[]): string {
  if (rows.length === 0) return '<p class="muted">No changed production symbols.</p>';
  const body = rows
    .map((s) => {
      const short = (m: string): string => (m.startsWith(`${s.id}#`) ? m.slice(s.id.length + 1) : m);
      const decisive =
        (s.decisive
          ? `mutant ${code(short(s.decisive.mutant))}${s.decisive.description ? ` <span class="muted">${e(s.decisive.description)}</span>` : ''} killed by ${code(s.decisive.test)}`
          : s.tests.length > 0
            ? `credited by ${code(s.tests[0] as string)}`
            : '<span class="muted">none</span>') +
        (s.revert
          ? `<div>${revertShowsNothing(s.revert.outcome) ? '<strong>' : ''}${e(`revert: ${revertText(s.revert)}`)}${revertShowsNothing(s.revert.outcome) ? '</strong>' : ''}</div>`
          : '');
      const kills = groupKills(s).map(([t, ms]) => `${t} killed ${ms.length}: ${ms.join(' ')}`);
      const more = [
        ['Credit-bearing tests', s.tests],
        ['Mutants killed', kills],
        ['Insensitive tests', s.insensitive],
        ['Tautologies', s.tautologies],
      ] as const;
      const details = more
        .filter(([, xs]) => xs.length > 0)
        .map(
          ([title, xs]) =>
            `<details><summary>${e(title)} (${xs.length})</summary>${xs.map(code).join('<br>')}</details>`,
        )
        .join('');
      return (
        `<tr data-symbol="${e(s.id)}"><td>${code(s.id)}${s.location ? `<div class="muted">${e(s.location)}</div>` : ''}</td>` +
        `<td><span class="pill ${e(s.status)}">${e(s.status)}</span>${s.status === 'missing' && s.reason ? `<div class="muted">${e(s.reason)}</div>` : ''}</td>` +
        `<td>${decisive}</td><td>${s.reached.length} ${collapsible(s.reached, '')}</td><td>${details || '<span class="muted">none</span>'}</td></tr>`
      );
    })
    .join('\n');
  return `<table id="symbols"><thead><tr><th>Changed symbol</th><th>Credit</th><th>Decisive evidence</th><th>Reaching tests</th><th>More</th></tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/**
 * The report as one self-contained HTML page: inline CSS, no script, no external
 * resource, and a Content-Security-Policy that forbids fetching anything.
 */
export function toHtmlReport(r: ReviewReport): string {
  const d = r.decision;
  const allow = d.code === 'ALLOW';
  const credited = r.symbols.filter((s) => s.status !== 'missing');
  const missing = r.symbols.filter((s) => s.status === 'missing');
  const q3 = r.credit
    ? `${credited.length} of ${r.symbols.length} credited${missing.length > 0 ? `; missing ${missing.map((s) => code(s.id)).join(', ')}` : ''}`
    : 'no credit file (no property run)';
  const q4 = r.freeze
    ? r.freeze.checks.every((c) => c.ok)
      ? 'yes, every field'
      : `no: ${r.freeze.checks
          .filter((c) => !c.ok)
          .map((c) => e(c.name))
          .join('; ')}`
    : 'no freeze';
  const lists: string[] = [];
  const item = (title: string, id: string, xs: readonly string[]): void => {
    if (xs.length > 0)
      lists.push(
        `<details id="${id}"${xs.length <= FEW ? ' open' : ''}><summary><strong>${e(title)}</strong> (${xs.length})</summary><ul>${xs.map((x) => `<li>${x}</li>`).join('')}</ul></details>`,
      );
  };
  item(
    'Moved (body unchanged, no credit needed)',
    'moved',
    r.moved.map((m) => `<span data-symbol="${e(m.to)}">${code(m.from)} → ${code(m.to)}</span>`),
  );
  item(
    'Deleted',
    'deleted',
    r.deleted.map((s) => `<span data-symbol="${e(s)}">${code(s)}</span>`),
  );
  item(
    'Type-only changes',
    'type-only',
    r.typeOnly.map((s) => `<span data-symbol="${e(s)}">${code(s)}</span>`),
  );
  item('Uncreditable files (credit cannot pass)', 'uncreditable', r.uncreditable.map(code));
  item(
    'Test-path files production imports (need credit)',
    'imported-tests',
    r.importedTests.map((t) => `${code(t.path)} <span class="muted">imported by ${code(t.importedBy)}</span>`),
  );
  item('Undefined tests (no test file defines them; no credit)', 'undefined-tests', r.undefinedTests.map(code));
  item(
    'Tautologies (zero credit)',
    'tautologies',
    r.tautologies.map((t) => `${code(t.id)}${t.rule ? ` <span class="muted">${e(t.rule)}</span>` : ''}`),
  );
  item(
    'Insensitive tests (reached the symbol, killed no mutant)',
    'insensitive',
    r.insensitive.map((i) => `${code(i.test)} on ${code(i.symbol)}`),
  );

  const freeze = r.freeze
    ? `<p>Freeze ${code(r.freeze.freezeId)} written by ${code(r.freeze.authorJob)} waives ${code(r.freeze.testId)} until ${code(r.freeze.expiresAt)}.</p>
<table id="freeze"><thead><tr><th>Check</th><th></th><th>Freeze says</th><th>Expected</th></tr></thead><tbody>
${r.freeze.checks.map((c) => `<tr><td>${e(c.name)}</td><td>${mark(c.ok)}</td><td>${code(c.actual)}</td><td>${e(c.expected)}</td></tr>`).join('\n')}
</tbody></table>`
    : '<p class="muted">No freeze file.</p>';

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>sealgate ${e(d.code)}: ${e(r.patch.proposalId)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<section id="decision" class="banner ${allow ? 'allow' : 'reject'}">
<div class="code">${e(d.code)}</div>
<p>${e(d.row)}: ${e(d.condition)}</p>
${d.decisive ? `<p><strong>Because</strong> ${where(d.decisive)}${e(d.decisive.detail)}</p>` : ''}
${d.nextStep ? `<p><strong>Next step:</strong> ${e(d.nextStep)}</p>` : '<p>ALLOW opens a human review; it is not an auto-merge.</p>'}
<p>Proposal ${code(r.patch.proposalId)} · review clock ${code(r.now)}</p>
<p>Tests: ${r.run.command ? code(r.run.command.join(' ')) : 'no sealed run in the journal'}${r.run.policyDigest ? ` · policy ${code(r.run.policyDigest)}` : ''}${r.run.sandbox ? ` · sandbox ${e(r.run.sandbox)}` : ''}</p>
</section>

<div class="qs">
<div class="q"><h3>1. Which job wrote the patch?</h3><div class="a">${code(r.patch.authorJob ?? '(missing)')}</div><div class="muted">${code(r.patch.path)} · hash ${r.patch.matchesRecord ? 'matches the record' : '<span class="bad">does not match the record</span>'}</div></div>
<div class="q"><h3>2. Which job wrote digest.status?</h3><div class="a">${code(r.seal.sealedBy ?? '(no seal in the journal)')}</div><div class="muted">runner ${code(r.seal.runnerJob ?? '(missing)')} · ${e(r.seal.recordStatus)} · digest ${code(r.seal.digest ?? '(none)')}</div></div>
<div class="q"><h3>3. Which changed symbols have non-tautological credit?</h3><div class="a">${q3}</div>${r.credit ? `<div class="muted">credit ${code(r.credit.creditId)} · pass ${String(r.credit.pass)}</div>` : ''}</div>
<div class="q"><h3>4. Does a freeze cite that digest, a passing credit, another test and a future expiry?</h3><div class="a">${q4}</div></div>
</div>

<h2>Changed symbols</h2>
${symbolRows(r.symbols)}
${lists.join('\n')}

<h2>Seal and logs</h2>
<ul>
<li>Digest ${code(r.seal.digest ?? '(none)')}: record ${code(r.seal.recordStatus)}, digest.status ${code(r.seal.fileStatus ?? '(absent)')}${r.seal.sealedAt ? `, sealed at ${code(r.seal.sealedAt)}` : ''}</li>
<li>${e(r.seal.recomputed)}</li>
<li>Tested: base ${code(r.seal.baseCommit ?? '(none)')}, tree ${code(r.seal.treeSealed ?? '(not sealed)')}${r.seal.treeRebuilt !== null && r.seal.treeRebuilt !== r.seal.treeSealed ? ` <span class="bad">(rebuilt now: ${code(r.seal.treeRebuilt)})</span>` : ''}</li>
<li>Policy ${code(r.seal.policyDigest)} (${e(r.seal.policySource)}); test command ${code(JSON.stringify(r.seal.testCommand))}</li>
${r.seal.drift.map((f) => `<li class="bad">drift: ${where(f)}${e(f.detail)}</li>`).join('\n')}
<li>Logs present ${String(r.seal.logs.present)}, written after the seal ${String(r.seal.logs.afterSeal)}, ${e(r.seal.logs.visibility)}</li>
<li>Sandbox: ${e(isolationText(r.isolation))}</li>
<li>Patch files (${r.patch.files.length}): <details${r.patch.files.length <= FEW ? ' open' : ''}><summary>list</summary>${r.patch.files.map((f) => `${code(f.path)} <span class="muted">${e(f.class)}</span>`).join(', ') || 'none'}</details></li>
</ul>

<h2>Freeze</h2>
${freeze}

<h2>Audit</h2>
<table id="audit"><tbody>
${r.steps.map((s) => `<tr><td>${s.ok && s.warn ? '<span class="bad">!</span>' : mark(s.ok)}</td><td>${e(s.stage)}</td><td>${e(s.summary)}</td></tr>`).join('\n')}
</tbody></table>
${d.findings.length > 0 ? `<h2>All findings, in the order that decided</h2><details${d.findings.length <= FEW ? ' open' : ''}><summary>${d.findings.length} finding(s)</summary><ul id="findings">${d.findings.map((f) => `<li>${code(f.code)} ${where(f)}${e(f.detail)}</li>`).join('')}</ul></details>` : ''}
</main>
</body>
</html>
`;
}

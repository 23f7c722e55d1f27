import { parsePatch } from 'diff';
import type { StructuredPatchHunk } from 'diff';
import type { Finding } from '../core/errors.js';
import { fail, ok, type Result } from '../core/result.js';

/** One file of a git patch, after the fail-closed checks. */
export interface PatchFile {
  readonly status: 'added' | 'deleted' | 'modified' | 'renamed' | 'copied' | 'mode-only' | 'binary';
  /** Path before the change; null for an added file. */
  readonly oldPath: string | null;
  /** Path after the change; null for a deleted file. */
  readonly newPath: string | null;
  readonly binary: boolean;
  /** `similarity index` of a rename or copy, 0-100. */
  readonly similarity: number | null;
  readonly oldMode: string | null;
  readonly newMode: string | null;
  readonly added: number;
  readonly removed: number;
  readonly hunks: readonly StructuredPatchHunk[];
}

export interface ParsedPatch {
  readonly files: readonly PatchFile[];
  /** True when the text held no diff at all (empty or whitespace only). */
  readonly empty: boolean;
}

export const GIT_HEADER = 'diff --git ';
const decoder = new TextDecoder('utf-8');

function finding(label: string, detail: string): Finding {
  return { code: 'E_INPUT_INVALID', path: label, detail };
}

/** A path from a patch header: relative, inside the tree, valid UTF-8, no NUL. */
function checkPath(raw: string | undefined, prefix: 'a/' | 'b/', label: string): Result<string | null> {
  if (raw === undefined) return fail([finding(label, 'entry has no file name')]);
  if (raw === '/dev/null') return ok(null);
  if (!raw.startsWith(prefix)) return fail([finding(label, `file name "${raw}" lacks the "${prefix}" prefix`)]);
  const p = raw.slice(2);
  if (p.includes('\uFFFD')) return fail([finding(label, `file name "${p}" is not valid UTF-8`)]);
  if (
    p.length === 0 ||
    p.startsWith('/') ||
    p.split('/').some((s) => s === '..' || s === '.' || s === '') ||
    p.includes('\0')
  ) {
    return fail([finding(label, `file name "${p}" is not a plain relative path inside the repository`)]);
  }
  return ok(p);
}

/**
 * Characters git and jsdiff read differently in a file header: git ends a name at a carriage
 * return (a `---` line's `b/conftest.py\rX` is `conftest.py` to git), JavaScript's `.` stops
 * at U+2028 and U+2029 (jsdiff's `rename to` reads less of the name than git), and other
 * controls never appear raw in a name git wrote (it quotes them). A tab may end a name.
 */
// eslint-disable-next-line no-control-regex
const HEADER_UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f\u2028\u2029]/;

/**
 * Why the file header of one entry (its `diff --git` line, extended header lines and `---` /
 * `+++` lines) could name other files to git than to this parser, or null. The runner builds
 * its tree with `git apply`, so a name only the parser sees would hide the file git writes
 * from the policy-surface and test-only rules.
 */
function headerDisagreement(seg: readonly string[], oldPath: string | null, newPath: string | null): string | null {
  const end = seg.findIndex((l) => l.startsWith('@@') || l === 'GIT binary patch');
  const header = end < 0 ? seg : seg.slice(0, end);
  if (header.some((l) => HEADER_UNSAFE.test(l)))
    return 'a file header line holds a control character or line separator, which git and this parser read differently';
  const alias = header.find((l) => l.startsWith('rename old ') || l.startsWith('rename new '));
  if (alias !== undefined)
    return `"${alias.slice(0, 11)}" is a rename to git but not to this parser; write "rename from" / "rename to"`;
  // The pair the `diff --git` line names must be the entry's: git takes a name from that line
  // where the other lines give none it can read (a `---` line starting with a tab, say).
  const named = parsePatch(seg[0] ?? '')[0];
  const a = named?.oldFileName;
  const b = named?.newFileName;
  if (a === undefined || b === undefined || !a.startsWith('a/') || !b.startsWith('b/'))
    return 'its "diff --git" line names no a/ b/ file pair this parser can read';
  if (a.slice(2) !== (oldPath ?? newPath) || b.slice(2) !== (newPath ?? oldPath))
    return `its "diff --git" line names "${a.slice(2)}" and "${b.slice(2)}", its other lines "${oldPath ?? '/dev/null'}" and "${newPath ?? '/dev/null'}"`;
  return null;
}

/** Remove a format-patch mail's signature ("-- " then the git version) so it is not read as hunk text. */
function stripSignature(lines: string[]): string[] {
  for (let k = lines.length - 1; k >= 0; k--) {
    const line = lines[k];
    if (line === '-- ') {
      const tail = lines.slice(k + 1);
      if (tail.every((t) => !t.startsWith(GIT_HEADER) && !t.startsWith('@@'))) return lines.slice(0, k);
      return lines;
    }
    if (line !== undefined && (line.startsWith(GIT_HEADER) || line.startsWith('@@'))) return lines;
  }
  return lines;
}

/**
 * Parse a git patch (git diff, git show, git format-patch) with jsdiff behind checks:
 * combined diffs and non-git diffs are refused, every `diff --git` header must give
 * exactly one entry, hunk counts must add up, binary sections are flagged, similarity
 * is kept, and file names must stay inside the repository.
 */
export function parseGitPatch(bytes: Uint8Array, label = 'patch'): Result<ParsedPatch> {
  const text = decoder.decode(bytes);
  if (text.trim() === '') return ok({ files: [], empty: true });
  if (text.includes('\0')) return fail([finding(label, 'contains a NUL byte; not a text patch')]);
  if (!text.endsWith('\n')) return fail([finding(label, 'does not end with a newline (truncated?)')]);
  let lines = text.split('\n');
  if (lines.some((l) => /^diff --(cc|combined) /.test(l) || l.startsWith('@@@'))) {
    return fail([finding(label, 'combined (merge) diffs are not supported; diff against one parent')]);
  }
  const mails = lines.filter((l) => /^From [0-9a-f]{40} /.test(l)).length;
  if (mails > 1) return fail([finding(label, `holds ${mails} format-patch mails; submit one patch`)]);
  const first = lines.findIndex((l) => l.startsWith(GIT_HEADER));
  if (first < 0) {
    return fail([
      finding(label, 'no "diff --git" header: not a git patch (produce it with git diff or git format-patch)'),
    ]);
  }
  // Anything before the first header is a commit message or mail header: not part of the diff.
  lines = stripSignature(lines.slice(first));
  const headerLines = lines.filter((l) => l.startsWith(GIT_HEADER));
  if (headerLines.some((l) => l.endsWith('\r'))) {
    return fail([finding(label, 'patch headers end in CR: the patch was converted to CRLF; regenerate it')]);
  }
  // Segment by header for what jsdiff does not report: binary sections and similarity.
  const segments: string[][] = [];
  for (const l of lines) {
    if (l.startsWith(GIT_HEADER)) segments.push([l]);
    else segments[segments.length - 1]?.push(l);
  }
  let entries;
  try {
    entries = parsePatch(lines.join('\n'));
  } catch (err) {
    return fail([finding(label, `malformed patch: ${(err as Error).message}`)]);
  }
  // jsdiff yields a trailing empty entry for trailing blank text; ignore only truly empty ones.
  const real = entries.filter(
    (e) => e.isGit || e.hunks.length > 0 || e.oldFileName !== undefined || e.newFileName !== undefined,
  );
  if (real.length !== segments.length || real.some((e) => !e.isGit)) {
    return fail([
      finding(
        label,
        `found ${segments.length} "diff --git" headers but ${real.length} parsed entries; the patch is malformed or mixes diff formats`,
      ),
    ]);
  }
  const files: PatchFile[] = [];
  const findings: Finding[] = [];
  const seen = new Set<string>();
  real.forEach((e, k) => {
    const seg = segments[k] ?? [];
    const where = `${label} (entry ${k + 1})`;
    const oldP = checkPath(e.oldFileName, 'a/', where);
    const newP = checkPath(e.newFileName, 'b/', where);
    if (!oldP.ok || !newP.ok) {
      findings.push(...(oldP.ok ? [] : oldP.findings), ...(newP.ok ? [] : newP.findings));
      return;
    }
    const binary = seg.some((l) => l === 'GIT binary patch' || /^Binary files .* differ$/.test(l));
    const simLine = seg.find((l) => /^(similarity|dissimilarity) index \d+%$/.test(l));
    const simMatch = simLine === undefined ? null : /(\d+)%$/.exec(simLine);
    let similarity = simMatch?.[1] === undefined ? null : Number(simMatch[1]);
    if (simLine?.startsWith('dissimilarity') && similarity !== null) similarity = 100 - similarity;
    if (similarity !== null && similarity > 100) findings.push(finding(where, 'similarity index above 100%'));
    let added = 0;
    let removed = 0;
    for (const h of e.hunks) {
      for (const l of h.lines) {
        if (l.startsWith('+')) added++;
        else if (l.startsWith('-')) removed++;
      }
    }
    const oldPath = oldP.value;
    const newPath = newP.value;
    if (oldPath === null && newPath === null) {
      findings.push(finding(where, 'both sides are /dev/null'));
      return;
    }
    const disagreement = headerDisagreement(seg, oldPath, newPath);
    if (disagreement !== null) findings.push(finding(where, disagreement));
    if (e.isCreate && oldPath !== null && !e.isCopy)
      findings.push(finding(where, 'a new file must come from /dev/null'));
    if (e.isDelete && newPath !== null) findings.push(finding(where, 'a deleted file must go to /dev/null'));
    if ((e.isRename || e.isCopy) && (oldPath === null || newPath === null || oldPath === newPath)) {
      findings.push(finding(where, 'rename or copy without two distinct names'));
    }
    if (!e.isRename && !e.isCopy && oldPath !== null && newPath !== null && oldPath !== newPath) {
      findings.push(
        finding(where, `old name "${oldPath}" and new name "${newPath}" differ without a rename or copy header`),
      );
    }
    const modeChange =
      e.oldMode !== undefined && e.newMode !== undefined && e.oldMode !== e.newMode && !e.isCreate && !e.isDelete;
    const status: PatchFile['status'] =
      oldPath === null
        ? 'added'
        : newPath === null
          ? 'deleted'
          : e.isRename
            ? 'renamed'
            : e.isCopy
              ? 'copied'
              : binary
                ? 'binary'
                : added + removed === 0 && modeChange
                  ? 'mode-only'
                  : 'modified';
    if (status === 'modified' && added + removed === 0)
      findings.push(finding(where, `entry for "${newPath}" changes nothing`));
    for (const p of [oldPath, newPath]) {
      if (p === null) continue;
      if (seen.has(`${status === 'copied' && p === oldPath ? 'src:' : ''}${p}`))
        findings.push(finding(where, `"${p}" appears in more than one entry`));
    }
    if (newPath !== null) seen.add(newPath);
    if (oldPath !== null && oldPath !== newPath && status !== 'copied') seen.add(oldPath);
    files.push({
      status,
      oldPath,
      newPath,
      binary,
      similarity,
      oldMode: e.oldMode ?? null,
      newMode: e.newMode ?? null,
      added,
      removed,
      hunks: e.hunks,
    });
  });
  if (findings.length > 0) return fail(findings);
  return ok({ files, empty: files.length === 0 });
}

/** The path a file is known by after the patch (its old path when deleted). */
export function pathOf(file: PatchFile): string {
  return (file.newPath ?? file.oldPath) as string;
}

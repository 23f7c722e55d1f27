// Both sides of the patch's mixed policy files (package.json, pyproject.toml, setup.cfg), so
// the surface check can compare their test sections: the base side from git, the patched side
// by applying the patch's hunks to it.
import type { StructuredPatchHunk } from 'diff';
import { SealgateError } from '../core/errors.js';
import { readRepoRoot, resolveCommit, runGit } from '../diff/git.js';
import { GIT_HEADER, type ParsedPatch, type PatchFile } from '../diff/parse.js';
import { isMixedPolicyFile, type SurfaceContents, type SurfaceFile } from './surface.js';

interface Line {
  text: string;
  nl: boolean;
}

function toLines(text: string): Line[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const last = parts.pop() as string;
  const out = parts.map((t) => ({ text: t, nl: true }));
  if (last !== '') out.push({ text: last, nl: false });
  return out;
}

/**
 * The text after applying `hunks` to `old`, exactly: every context and removed line must be
 * where the hunk says and equal to it, or this throws. Pure.
 */
export function applyHunks(old: string, hunks: readonly StructuredPatchHunk[]): string {
  const src = toLines(old);
  const out: Line[] = [];
  let at = 0;
  for (const [k, h] of hunks.entries()) {
    // jsdiff already moves an insertion's `-a,0` to a + 1, so every hunk starts at oldStart - 1.
    const start = h.oldStart - 1;
    if (start < at || start > src.length)
      throw new Error(`hunk ${k + 1} starts at line ${h.oldStart}, outside the file or before the previous hunk`);
    while (at < start) out.push(src[at++] as Line);
    for (const [j, l] of h.lines.entries()) {
      const mark = l[0];
      const text = l.slice(1);
      const noEol = h.lines[j + 1]?.startsWith('\\') === true;
      if (mark === '\\') continue;
      if (mark === '+') {
        out.push({ text, nl: !noEol });
        continue;
      }
      if (mark !== ' ' && mark !== '-') throw new Error(`hunk ${k + 1}: unexpected line "${l.slice(0, 40)}"`);
      const cur = src[at];
      if (cur?.text !== text || cur.nl === noEol)
        throw new Error(`hunk ${k + 1} does not match the base at line ${at + 1}`);
      at++;
      if (mark === ' ') out.push(cur);
    }
  }
  while (at < src.length) out.push(src[at++] as Line);
  return out.map((l) => l.text + (l.nl ? '\n' : '')).join('');
}

/** Does the patch name a mixed policy file on any `diff --git` line? A cheap look before parsing. */
export function namesMixedFile(patchBytes: Uint8Array): boolean {
  const text = Buffer.from(patchBytes.buffer, patchBytes.byteOffset, patchBytes.byteLength).toString('latin1');
  return text
    .split('\n')
    .some((l) => l.startsWith(GIT_HEADER) && /(?:^|\/)(?:package\.json|pyproject\.toml|setup\.cfg)(?:\s|$)/.test(l));
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The base bytes of `path` at `base` (null when absent there), or throws with why. */
function readAtBase(root: string, base: string, path: string): Buffer | null {
  const r = runGit(root, ['cat-file', 'blob', `${base}:${path}`]);
  if (r.status !== 0) throw new Error(`git cannot read ${path} at ${base.slice(0, 12)}: ${r.stderr.trim()}`);
  return r.stdout;
}

function sides(file: PatchFile, base: () => { root: string; commit: string }): SurfaceContents {
  try {
    if (file.binary) return { problem: 'the patch changes it as a binary file' };
    const oldBytes = file.oldPath === null ? null : readAtBase(base().root, base().commit, file.oldPath);
    if (file.newPath === null) return { oldBytes, newBytes: null };
    const oldText = oldBytes === null || file.status === 'added' ? '' : decoder.decode(oldBytes);
    return { oldBytes, newBytes: new TextEncoder().encode(applyHunks(oldText, file.hunks)) };
  } catch (err) {
    return { problem: err instanceof SealgateError || err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The patch's files as the surface check takes them, with both sides' bytes for the mixed
 * ones. The base is read from `repo` at `rev` only when a modified, renamed, copied or deleted
 * mixed file needs it; a problem reading it is kept on the file (the check then fails closed).
 */
export function readSurfaceFiles(repo: string, rev: string, parsed: ParsedPatch): SurfaceFile[] {
  let resolved: { root: string; commit: string } | null = null;
  const base = (): { root: string; commit: string } => {
    if (resolved === null) {
      const root = readRepoRoot(repo);
      resolved = { root, commit: resolveCommit(root, rev) };
    }
    return resolved;
  };
  return parsed.files.map((file) => {
    const mixed = [file.oldPath, file.newPath].some((p) => p !== null && isMixedPolicyFile(p));
    return mixed
      ? { oldPath: file.oldPath, newPath: file.newPath, contents: sides(file, base) }
      : { oldPath: file.oldPath, newPath: file.newPath };
  });
}

import { lstatSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Finding } from '../core/errors.js';
import { digestsEqual, sha256Hex } from '../core/ids.js';
import { E_PATH_DETOUR, sha256File } from '../core/io.js';
import { decodeStrictUtf8 } from '../core/text.js';
import { fail, ok, type Result } from '../core/result.js';

/**
 * review/runner/inputs.sha256 read back, independently of the seal's own code: the lines
 * `sha256sum` prints (`<64 hex>  <path>`), then `seed=`, `clock=`, `locale=`, `tree=`,
 * `policy=`. A reviewer can check the same with coreutils (`sha256sum -c` in a checkout of
 * the tree, and `sha256sum inputs.sha256`) and git (`git write-tree` of base + patch).
 */
export interface InputsManifest {
  readonly files: readonly { readonly sha256: string; readonly path: string }[];
  readonly seed: string;
  readonly clock: string;
  readonly locale: string;
  /** The git tree id of base + patch the fixtures were hashed in. */
  readonly tree: string;
  /** SHA-256 of the policy bytes, or "default". */
  readonly policy: string;
}

const LABEL = 'review/runner/inputs.sha256';
const FILE_LINE = /^([0-9a-f]{64}) {2}([^\n\\]+)$/;

export function parseInputsManifest(bytes: Uint8Array): Result<InputsManifest> {
  const bad = (detail: string): Result<InputsManifest> => fail([{ code: 'E_INPUT_INVALID', path: LABEL, detail }]);
  const d = decodeStrictUtf8(bytes);
  if ('problem' in d) return bad(d.detail);
  if (!d.text.endsWith('\n')) return bad('does not end with a newline (truncated?)');
  if (d.text.includes('\r')) return bad('contains a carriage return (converted to CRLF?); the seal writes LF only');
  const lines = d.text.slice(0, -1).split('\n');
  const files: { sha256: string; path: string }[] = [];
  let k = 0;
  for (; k < lines.length; k++) {
    const m = FILE_LINE.exec(lines[k] as string);
    if (!m) break;
    const path = m[2] as string;
    if (path.startsWith('/') || path.split('/').some((s) => s === '..' || s === '' || s === '.'))
      return bad(`line ${k + 1}: "${path}" is not a plain relative path`);
    files.push({ sha256: m[1] as string, path });
  }
  const tail = lines.slice(k);
  const keys = ['seed', 'clock', 'locale', 'tree', 'policy'] as const;
  if (tail.length !== keys.length)
    return bad(
      `expected the fixture lines, then exactly seed=, clock=, locale=, tree= and policy= lines (line ${k + 1} is neither)`,
    );
  const values: string[] = [];
  for (const [j, key] of keys.entries()) {
    const line = tail[j] as string;
    if (!line.startsWith(`${key}=`)) return bad(`line ${k + j + 1}: expected "${key}=..."`);
    values.push(line.slice(key.length + 1));
  }
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(values[3] as string))
    return bad(`line ${k + 4}: tree= is not a full git tree id`);
  if (!/^(?:[0-9a-f]{64}|default)$/.test(values[4] as string))
    return bad(`line ${k + 5}: policy= is not a SHA-256 or "default"`);
  const sorted = files.map((f) => f.path);
  for (let j = 1; j < sorted.length; j++) {
    if (Buffer.compare(Buffer.from(sorted[j - 1] as string), Buffer.from(sorted[j] as string)) >= 0)
      return bad('fixture lines are not sorted bytewise without repeats');
  }
  return ok({
    files,
    seed: values[0] as string,
    clock: values[1] as string,
    locale: values[2] as string,
    tree: values[3] as string,
    policy: values[4] as string,
  });
}

/**
 * Recompute the seal from the current bytes under `repo` (the runner's tree, rebuilt): every listed fixture re-hashed (a missing file,
 * a symlink or a changed byte is drift) and digest.txt checked against the manifest's hash.
 * Findings are E_DIGEST_OPEN, naming each drifted fixture.
 */
export async function checkSealFromFiles(
  repo: string,
  manifestBytes: Uint8Array,
  manifest: InputsManifest,
  digest: string,
): Promise<Finding[]> {
  const out: Finding[] = [];
  if (!digestsEqual(sha256Hex(manifestBytes), digest)) {
    out.push({
      code: 'E_DIGEST_OPEN',
      path: 'review/runner/digest.txt',
      detail: 'is not the SHA-256 of review/runner/inputs.sha256 (the manifest changed after the seal)',
    });
  }
  const top = realpathSync(repo);
  for (const f of manifest.files) {
    const full = join(top, f.path);
    let isFile: boolean;
    try {
      isFile = lstatSync(full).isFile();
    } catch {
      out.push({ code: 'E_DIGEST_OPEN', path: f.path, detail: 'sealed fixture is gone' });
      continue;
    }
    if (!isFile) {
      out.push({ code: 'E_DIGEST_OPEN', path: f.path, detail: 'sealed fixture is no longer a regular file' });
      continue;
    }
    let now: string;
    try {
      now = sha256File(full, { realPath: full }).sha256;
    } catch (err) {
      // Swapped for a link since the lstat above (the file or a folder on its path), or unreadable: drift either way.
      const code = (err as NodeJS.ErrnoException).code;
      const detail =
        code === E_PATH_DETOUR
          ? 'sealed fixture is now reached through a symbolic link (or was moved)'
          : `sealed fixture cannot be read (${code ?? 'error'})`;
      out.push({ code: 'E_DIGEST_OPEN', path: f.path, detail });
      continue;
    }
    if (!digestsEqual(now, f.sha256))
      out.push({
        code: 'E_DIGEST_OPEN',
        path: f.path,
        detail: `fixture changed after the seal (sealed ${f.sha256.slice(0, 12)}…, now ${now.slice(0, 12)}…)`,
      });
  }
  return out;
}

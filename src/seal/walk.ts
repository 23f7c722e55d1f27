import { lstatSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import { inputInvalid } from '../core/errors.js';
import { checkGlob, globToRegExp } from '../core/glob.js';
import { checkFixtureName, compareBytewise } from './inputs.js';

/**
 * Expand fixture globs to the regular files they match, refusing anything the digest
 * must not silently include or skip: symbolic links, non-regular files, names that a
 * `sha256sum` line cannot carry, patterns that leave the repository, and (unless
 * `allowEmpty`) a pattern that matches nothing. Never follows a link.
 */

/** Folders never walked into from above: repository state, the workflow's own files, dependencies. */
const SKIP_ANYWHERE = new Set(['.git', 'node_modules']);
const SKIP_AT_ROOT = new Set(['review']);

export interface FixtureSet {
  /** Matched files, POSIX paths relative to the repository root, sorted bytewise, unique. */
  readonly files: readonly string[];
  /** Globs that matched nothing (only when allowEmpty). */
  readonly empty: readonly string[];
}

const WILD = /[*?{]/;

function globLabel(glob: string): string {
  return `fixture glob "${glob}"`;
}

/** The literal folder a glob starts from, and how deep below it a match can be (Infinity for `**`). */
function rootOf(glob: string): { root: string[]; depth: number } {
  let p = glob.startsWith('./') ? glob.slice(2) : glob;
  if (p.endsWith('/')) p += '**';
  if (!p.includes('/')) return { root: [], depth: Infinity };
  const parts = p.split('/');
  const root: string[] = [];
  while (parts.length > 1 && !WILD.test(parts[0] as string)) root.push(parts.shift() as string);
  return { root, depth: p.includes('**') ? Infinity : parts.length };
}

function checkPattern(glob: string): void {
  if (glob.startsWith('/') || /^[A-Za-z]:/.test(glob))
    throw inputInvalid(
      globLabel(glob),
      'is outside the repository (absolute path); use a path relative to the repository root',
    );
  if (glob.split('/').includes('..')) throw inputInvalid(globLabel(glob), 'is outside the repository ("..")');
  const bad = checkGlob(glob);
  if (bad) throw inputInvalid(globLabel(glob), bad);
  const { root } = rootOf(glob);
  const first = root[0] ?? (glob.startsWith('./') ? glob.slice(2) : glob).split('/')[0];
  if (first !== undefined && (first === '.git' || first === 'review') && glob.includes('/')) {
    throw inputInvalid(globLabel(glob), `"${first}/" holds repository or workflow state and cannot hold fixtures`);
  }
}

export function collectFixtures(
  repo: string,
  globs: readonly string[],
  options: { allowEmpty?: boolean } = {},
): FixtureSet {
  // No globs is a project without fixtures (`"fixtures": []`): the digest covers seed, clock and locale.
  for (const g of globs) checkPattern(g);
  const top = realpathSync(repo);
  const found = new Set<string>();
  const empty: string[] = [];
  for (const glob of globs) {
    const n = walkGlob(top, glob, found);
    if (n === 0) {
      if (!options.allowEmpty) throw inputInvalid(globLabel(glob), 'matches no file');
      empty.push(glob);
    }
  }
  return { files: [...found].sort(compareBytewise), empty };
}

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw inputInvalid(path, `cannot inspect (${code ?? 'error'})`);
  }
}

function kindOf(st: Stats | Dirent): 'file' | 'dir' | 'link' | 'other' | 'unknown' {
  if (st.isSymbolicLink()) return 'link';
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  if (st.isFIFO() || st.isSocket() || st.isCharacterDevice() || st.isBlockDevice()) return 'other';
  return 'unknown';
}

/** Walk one glob's literal root; add its matches to `found`; return how many files it matched. */
function walkGlob(top: string, glob: string, found: Set<string>): number {
  const re = globToRegExp(glob);
  const { root, depth } = rootOf(glob);
  // Step down the literal prefix with lstat, so a linked folder on the way is seen, not followed.
  let rel = '';
  for (const seg of root) {
    rel = rel ? `${rel}/${seg}` : seg;
    const st = lstatOrNull(join(top, rel));
    if (st === null) return 0;
    if (st.isSymbolicLink())
      throw inputInvalid(
        rel,
        `is a symbolic link on the way to ${globLabel(glob)}; fixtures are hashed only through real folders inside the repository`,
      );
    if (!st.isDirectory()) {
      return 0;
    }
  }
  let count = 0;
  const visit = (dirRel: string, level: number): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dirRel ? join(top, dirRel) : top, { withFileTypes: true });
    } catch (err) {
      throw inputInvalid(dirRel || '.', `cannot list folder (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    for (const d of entries) {
      const name = d.name;
      const path = dirRel ? `${dirRel}/${name}` : name;
      let kind = kindOf(d);
      if (kind === 'unknown') {
        const st = lstatOrNull(join(top, path));
        if (st === null) continue;
        kind = kindOf(st);
      }
      if (kind === 'dir') {
        if (SKIP_ANYWHERE.has(name) || (dirRel === '' && SKIP_AT_ROOT.has(name))) continue;
        if (level < depth) visit(path, level + 1);
        continue;
      }
      const matches = re.test(path);
      if (kind === 'link') {
        if (matches)
          throw inputInvalid(
            path,
            `is a symbolic link matched by ${globLabel(glob)}; links could point outside the repository, so they are never hashed`,
          );
        if (level < depth && pointsAtFolder(join(top, path))) {
          throw inputInvalid(
            path,
            `is a symbolic link to a folder inside the walk of ${globLabel(glob)}; replace it with a real folder or narrow the glob`,
          );
        }
        continue;
      }
      if (!matches) continue;
      const badName = checkFixtureName(path);
      if (badName) throw inputInvalid(JSON.stringify(path), badName);
      if (kind !== 'file') throw inputInvalid(path, `is not a regular file (matched by ${globLabel(glob)})`);
      found.add(path);
      count++;
    }
  };
  visit(root.join('/'), 1);
  return count;
}

function pointsAtFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Anchored globs over POSIX paths relative to the repository root.
 * `**` spans folders, `*` and `?` stay inside one segment, `{a,b}` is alternation.
 * A pattern without `/` matches the file's base name at any depth (like .gitignore);
 * a pattern with `/` matches the whole path. A trailing `/` means "everything under".
 */

const cache = new Map<string, RegExp>();

function escape(ch: string): string {
  return /[\\^$.|+()[\]{}*?]/.test(ch) ? `\\${ch}` : ch;
}

export function globToRegExp(pattern: string): RegExp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let p = pattern.startsWith('./') ? pattern.slice(2) : pattern;
  if (p.endsWith('/')) p += '**';
  const anywhere = !p.includes('/');
  let out = '';
  let inBrace = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i] as string;
    if (c === '*') {
      if (p[i + 1] === '*') {
        const atStart = i === 0 || p[i - 1] === '/';
        const atEnd = i + 2 === p.length || p[i + 2] === '/';
        if (atStart && atEnd) {
          if (p[i + 2] === '/') {
            out += '(?:[^/]+/)*';
            i += 2;
          } else {
            out += '.*';
            i += 1;
          }
          continue;
        }
        out += '[^/]*';
        i += 1;
        continue;
      }
      out += '[^/]*';
    } else if (c === '?') out += '[^/]';
    else if (c === '{') {
      inBrace++;
      out += '(?:';
    } else if (c === '}' && inBrace > 0) {
      inBrace--;
      out += ')';
    } else if (c === ',' && inBrace > 0) out += '|';
    else out += escape(c);
  }
  if (inBrace > 0) throw new Error(`unbalanced "{" in glob "${pattern}"`);
  const re = new RegExp(anywhere ? `^(?:.*/)?${out}$` : `^${out}$`, 's');
  cache.set(pattern, re);
  return re;
}

const literals = new Map<string, string>();

/**
 * The longest run of literal characters that every path the pattern matches contains ('' when
 * none is known: a `{a,b}` pattern). Outside braces, `*`, `?` and `**` only add characters
 * around the literal runs, which a match keeps in order. `/` is left out of the run, as a
 * double star with its slash may match nothing.
 */
function requiredLiteral(pattern: string): string {
  let hit = literals.get(pattern);
  if (hit !== undefined) return hit;
  hit = '';
  if (!pattern.includes('{')) {
    const p = pattern.startsWith('./') ? pattern.slice(2) : pattern;
    for (const piece of p.split(/[*?/]/)) if (piece.length > hit.length) hit = piece;
  }
  literals.set(pattern, hit);
  return hit;
}

/**
 * Whether the path matches the pattern. A path without the pattern's required literal is
 * refused before the pattern is compiled: a command classifies a few paths against about a
 * hundred patterns, most of which share no word with a path, and compiling a regular
 * expression per pattern was most of that cost.
 */
export function matchesGlob(path: string, pattern: string): boolean {
  const literal = requiredLiteral(pattern);
  if (literal !== '' && !path.includes(literal)) return false;
  return globToRegExp(pattern).test(path);
}

export function matchesAny(path: string, patterns: readonly string[]): string | undefined {
  return patterns.find((p) => matchesGlob(path, p));
}

/** A glob is valid when it compiles, is relative, and stays inside the tree. */
export function checkGlob(pattern: string): string | undefined {
  if (pattern.length === 0) return 'empty pattern';
  if (pattern.startsWith('/')) return 'absolute patterns are not allowed';
  if (pattern.split('/').includes('..')) return '".." is not allowed in patterns';
  if (pattern.includes('\\')) return 'use "/" in patterns, not "\\"';
  try {
    globToRegExp(pattern);
  } catch (err) {
    return (err as Error).message;
  }
  return undefined;
}

// Whether the test runner type-checks TypeScript (tsc, ts-jest), so a mutant that does not type-check fails to load.

/**
 * Whether the test run type-checks TS, so a mutant that does not type-check fails to load: `tsc`
 * (or `vue-tsc`) in the command or the `npm test` script it runs, or jest with ts-jest that does
 * not only transpile (tsJestTranspilesOnly). Elsewhere types are erased and only parsing decides.
 */
export function checkRunnerTypeChecks(
  command: readonly string[],
  readTreeFile: (path: string) => string | null,
  readDepFile?: (path: string) => string | null,
): boolean {
  const words = (ws: readonly string[]): boolean => ws.some((w) => /(^|\/)(vue-)?tsc$/.test(w));
  let cmd = [...command];
  const prog = (cmd[0] ?? '').split('/').at(-1) ?? '';
  if (
    ['npm', 'yarn', 'pnpm'].includes(prog) &&
    (cmd[1] === 'test' || cmd[1] === 't' || (cmd[1] === 'run' && cmd[2] === 'test'))
  ) {
    try {
      const pkg = JSON.parse(readTreeFile('package.json') ?? '{}') as { scripts?: { test?: unknown } };
      if (typeof pkg.scripts?.test === 'string') cmd = pkg.scripts.test.split(/\s+|&&|;/).filter((w) => w !== '');
    } catch {
      /* no readable package.json: the command as given */
    }
  }
  if (words(cmd)) return true;
  if (!cmd.some((w) => /(^|\/)jest$/.test(w))) return false;
  const configs = [
    'package.json',
    'jest.config.js',
    'jest.config.ts',
    'jest.config.cjs',
    'jest.config.mjs',
    'jest.config.json',
  ].map((f) => readTreeFile(f) ?? '');
  if (!configs.some((t) => t.includes('ts-jest'))) return false;
  return !(readDepFile !== undefined && tsJestTranspilesOnly(configs.join('\n'), cmd, readTreeFile, readDepFile));
}

/**
 * Does ts-jest only transpile here, so a mutant that does not type-check still runs? Only in the
 * plain case: ts-jest 29.3 to 29.x installed, no jest option that could point it at another
 * tsconfig or root, and the tree's own tsconfig.json setting `isolatedModules: true`. Anything
 * else keeps the type check (a wrong guess is a crash, never a kill: checkRuntimeValidity).
 */
export function tsJestTranspilesOnly(
  jestConfigText: string,
  command: readonly string[],
  readTreeFile: (path: string) => string | null,
  readDepFile: (path: string) => string | null,
): boolean {
  if (/\b(tsconfig|rootDir|projects|isolatedModules)\b/.test(jestConfigText)) return false;
  if (command.some((w) => /^(-c|--config|--rootDir|--projects)(=|$)/.test(w))) return false;
  let version: unknown;
  try {
    version = (JSON.parse(readDepFile('node_modules/ts-jest/package.json') ?? 'null') as { version?: unknown } | null)
      ?.version;
  } catch {
    return false;
  }
  const m = typeof version === 'string' ? /^29\.(\d+)\.\d+$/.exec(version) : null;
  if (m === null || Number(m[1]) < 3) return false;
  const text = readTreeFile('tsconfig.json');
  const plain = text === null || text.length > 1024 * 1024 ? null : stripJsonc(text);
  // One `isolatedModules` key in the whole file: a duplicate (which one wins?) keeps the type check.
  if (plain === null || (plain.match(/"isolatedModules"\s*:/g) ?? []).length !== 1) return false;
  let tsconfig: unknown;
  try {
    tsconfig = JSON.parse(plain);
  } catch {
    return false;
  }
  if (tsconfig === null || typeof tsconfig !== 'object' || Array.isArray(tsconfig)) return false;
  const options = (tsconfig as { compilerOptions?: unknown }).compilerOptions;
  return (
    options !== null &&
    typeof options === 'object' &&
    (options as { isolatedModules?: unknown }).isolatedModules === true
  );
}

/** JSON with comments and trailing commas (tsconfig.json): its plain JSON text, or null when a string or comment does not end. */
export function stripJsonc(text: string): string | null {
  const str = /"(?:[^"\\\n]|\\.)*"/y;
  const trailing = /,\s*[}\]]/y;
  // Twice over, strings kept whole: the comments go, then the trailing commas (a comment may sit between one and its bracket).
  const pass = (src: string, other: (c: string, i: number) => [string, number] | null): string | null => {
    let out = '';
    for (let i = 0; i < src.length; i++) {
      const c = src[i] as string;
      if (c === '"') {
        str.lastIndex = i;
        const end = str.exec(src);
        if (end === null) return null;
        out += end[0];
        i += end[0].length - 1;
        continue;
      }
      const r = other(c, i);
      if (r === null) return null;
      out += r[0];
      i = r[1];
    }
    return out;
  };
  const noComments = pass(text, (c, i) => {
    if (c === '/' && text[i + 1] === '/') {
      const nl = text.indexOf('\n', i);
      return ['', nl < 0 ? text.length : nl - 1];
    }
    if (c === '/' && text[i + 1] === '*') {
      const close = text.indexOf('*/', i + 2);
      return close < 0 ? null : [' ', close + 1];
    }
    return [c, i];
  });
  if (noComments === null) return null;
  return pass(noComments, (c, i) => {
    trailing.lastIndex = i;
    return [c === ',' && trailing.test(noComments) ? '' : c, i];
  });
}

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JunitCase } from '../../runner/junit.js';
import { inputInvalid } from '../../core/errors.js';
import { classifyPath, languageOf, type ClassPatterns } from '../../diff/classify.js';
import { linkPyModules, readPyModule, type PyModule } from '../lang/python/classify.js';
import { escapeRegExp } from '../../core/text.js';
import type { TestSource, Verdict } from './classify.js';
import { caseNamesOf, type CaseNames } from '../../test-runners/index.js';

/** Module specifiers (imports, requires, mocks): they name production files without reading them. */
const SPECIFIERS = [
  /\b(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])[^'"\n]*\1/g,
  /\bimport\s*(['"])[^'"\n]*\1/g,
  /\b(?:import|require)\s*\(\s*(['"`])[^'"`\n]*\1/g,
  /\b(?:jest|vi)\s*\.\s*(?:mock|doMock|unmock|unstable_mockModule|requireActual|importActual|requireMock|importMock)\s*\(\s*(['"`])[^'"`\n]*\1/g,
];
/** A call that reads a file's bytes or text (Node's fs, Python's open and pathlib). */
const READ_CALL = /\b(?:readFileSync|readFile|createReadStream|openSync|openAsBlob|read_text|read_bytes|open)\s*\(/;

/**
 * Why a test file reads the text of one of the patch's production files, or null: it calls a
 * file-reading function and names one of those files (by its file name, at the end of a quoted
 * string) outside its imports and mocks. Such a test tells the file's bytes apart, not its
 * behaviour: it "kills" every mutant, and a comparison that normalises away the null mutant's
 * changes (comments, no-ops, line breaks, a renamed local) would pass that too. Textual and
 * static (a name built at run time gets past it, as `fn.toString()` spelt indirectly gets past
 * the classifier); every test of the file earns nothing.
 */
export function readsProductionSource(text: string, productionFiles: readonly string[]): string | null {
  let code = text;
  for (const re of SPECIFIERS) code = code.replace(re, '');
  if (!READ_CALL.test(code)) return null;
  for (const f of [...new Set(productionFiles)].sort()) {
    const name = f.split('/').pop() ?? '';
    if (name === '') continue;
    for (const [spelling, before] of namesOf(name)) {
      if (new RegExp(`${before}${escapeRegExp(spelling)}['"\`]`).test(code))
        return `its file reads the text of ${f}, a production file of the patch (a file-reading call and "${spelling}" in a string)`;
    }
  }
  return null;
}

/** Import spellings that resolve to a TS/JS file of another extension (`./pricing.js` is src/pricing.ts under TypeScript's resolution). */
const SPELT_AS: Readonly<Record<string, readonly string[]>> = {
  '.ts': ['.js'],
  '.tsx': ['.js', '.jsx'],
  '.mts': ['.mjs'],
  '.cts': ['.cjs'],
};

/**
 * The names a string may give a production file by, each with what must come before it: the
 * file's own name (after a quote or a slash); for a TS/JS file, also the spelling an import
 * uses for it (`pricing.js` for pricing.ts, which `import.meta.resolve` or `require.resolve`
 * turns into the file's path) and its name without an extension at the end of a relative
 * module path (`'../src/pricing'`, as `require.resolve` takes it; not a URL route such as
 * `'/pricing'`, which a test file that also reads a fixture may well hold).
 */
function namesOf(name: string): [string, string][] {
  const quoteOrSlash = '[\'"`/\\\\]';
  const out: [string, string][] = [[name, quoteOrSlash]];
  const m = /^(.+)(\.(?:[cm]?[jt]sx?))$/.exec(name);
  if (m === null) return out;
  const [, stem, ext] = m as unknown as [string, string, string];
  for (const alt of SPELT_AS[ext] ?? []) out.push([stem + alt, quoteOrSlash]);
  if (/^\.[jt]sx?$/.test(ext)) out.push([stem, '[\'"`]\\.{1,2}[/\\\\](?:[^\'"`\\n]*[/\\\\])?']);
  return out;
}

/**
 * Every test definition in the work tree's test files (TS/JS and Python), with its static verdict.
 * With `productionFiles`, a test file that reads one of them (readsProductionSource) has every
 * test but the skipped ones classified as reading source text.
 */
export async function readTestSources(
  repo: string,
  patterns: ClassPatterns,
  assertionFunctions: readonly string[],
  files?: readonly string[],
  productionFiles: readonly string[] = [],
): Promise<TestSource[]> {
  let listed: string[];
  if (files !== undefined) listed = files.filter((p) => !p.startsWith('review/'));
  else {
    let raw: Buffer;
    try {
      raw = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
        cwd: repo,
        maxBuffer: 256 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (err) {
      throw inputInvalid(
        repo,
        `cannot list the work tree's files with git (${(err as Error).message.split('\n')[0] ?? ''}); credit needs a git work tree`,
      );
    }
    listed = raw
      .toString('utf8')
      .split('\0')
      .filter((p) => p !== '' && !p.startsWith('review/'));
  }
  const out: TestSource[] = [];
  const py: PyModule[] = [];
  for (const path of [...new Set(listed)].sort()) {
    if (classifyPath(path, patterns) !== 'test') continue;
    const lang = languageOf(path);
    if (lang !== 'typescript' && lang !== 'javascript' && lang !== 'python') continue;
    let text: string;
    try {
      text = readFileSync(join(repo, path), 'utf8');
    } catch {
      continue; // deleted in the work tree
    }
    const reads = productionFiles.length > 0 ? readsProductionSource(text, productionFiles) : null;
    if (lang === 'python') {
      const { tests, module } = await readPyModule(path, text, assertionFunctions, reads);
      out.push(...tests);
      py.push(module);
    }
    // Loaded for the first TS/JS test file only: a Python suite never compiles the TypeScript compiler.
    else
      out.push(
        ...(await import('../lang/typescript/classify.js')).classifyTsTests(path, text, assertionFunctions, reads),
      );
  }
  // Tests a class inherits from a class of another test file (a mixin in tests/__init__.py).
  return linkPyModules(py, out);
}

/** What the runner knows about one JUnit case: its static verdict and the files it may live in. */
export interface CaseSource {
  readonly verdict: Verdict | null;
  /** Candidate test files (more than one when the case could not be pinned down). */
  readonly files: readonly string[];
  /** pytest node ids, when the case is a pytest test pinned to one definition. */
  readonly nodeIds: readonly string[];
}

const stripParams = (name: string): string => name.replace(/\[.*\]$/, '');

function suiteMatches(src: TestSource, suite: string): boolean {
  if (src.suite.join(' > ') === suite) return true;
  return caseNamesOf(src.file)?.suiteMatches(src.file, src.suite, suite) ?? false;
}

/**
 * Match a JUnit case to its definition: by name, then file, then suite. An ambiguous match is
 * a tautology if any candidate is (fail closed), and keeps every candidate's file.
 */
export function matchCase(c: JunitCase, sources: readonly TestSource[]): CaseSource {
  return matchWith(c, sources).source;
}

function matchWith(
  c: JunitCase,
  sources: readonly TestSource[],
): { source: CaseSource; computed: readonly TestSource[] } {
  const name = stripParams(c.name);
  let cands = sources.filter((s) => s.name === name || s.name === c.name);
  const literal = cands.length > 0;
  // A computed name (test.each, a loop) matches by its pattern when no literal name does.
  if (cands.length === 0) {
    const f = c.file?.replace(/^\.\//, '') ?? null;
    cands = sources.filter(
      (s) =>
        s.namePattern !== undefined &&
        (s.namePattern.test(c.name) || s.namePattern.test(name)) &&
        (f === null || s.file === f || f.endsWith(`/${s.file}`)),
    );
  }
  // pytest's classname is the node id's file and classes, dotted; its `file` is where the
  // function is written, a mixin's file for an inherited test: the dotted name decides first.
  const dotted = cands.filter((s) => caseNamesOf(s.file)?.classname(s.file, s.suite) === c.suite);
  if (dotted.length > 0) cands = dotted;
  else if (c.file !== null) {
    const f = c.file.replace(/^\.\//, '');
    const byFile = cands.filter((s) => s.file === f || f.endsWith(`/${s.file}`));
    if (byFile.length > 0) cands = byFile;
  }
  if (cands.length > 1) {
    const bySuite = cands.filter((s) => suiteMatches(s, c.suite));
    if (bySuite.length > 0) cands = bySuite;
  }
  if (cands.length === 0) return { source: { verdict: null, files: [], nodeIds: [] }, computed: [] };
  const taut = cands.find((s) => s.verdict.kind === 'tautology');
  const verdict = taut ? taut.verdict : (cands[0] as TestSource).verdict;
  const files = [...new Set(cands.map((s) => s.file))];
  const named = cands.map((s) => ({ s, names: caseNamesOf(s.file) }));
  const nodeIds = named.every((n) => n.names !== null)
    ? named.map((n) => (n.names as CaseNames).nodeId(n.s.file, n.s.suite, c.name))
    : [];
  return { source: { verdict, files, nodeIds }, computed: literal ? [] : cands };
}

/** Each run case's test source and static verdict (null where its source was not found). */
export function classifyCases(
  cases: readonly JunitCase[],
  sources: readonly TestSource[],
): { caseSources: Map<string, CaseSource>; verdicts: Map<string, Verdict | null> } {
  const caseSources = new Map<string, CaseSource>();
  const verdicts = new Map<string, Verdict | null>();
  const matched = cases.map((c) => ({ c, ...matchWith(c, sources) }));
  // A computed-name call that runs once defines one test: when two or more cases may be its,
  // at least one was made by something the classifier cannot see, so none of them is defined.
  const claims = new Map<TestSource, number>();
  for (const m of matched) for (const t of m.computed) if (t.once === true) claims.set(t, (claims.get(t) ?? 0) + 1);
  for (const m of matched) {
    const over = m.computed.some((t) => (claims.get(t) ?? 0) > 1);
    const s = over ? { verdict: null, files: [], nodeIds: [] } : m.source;
    caseSources.set(m.c.id, s);
    verdicts.set(m.c.id, s.verdict);
  }
  return { caseSources, verdicts };
}

// The policy surface: files that configure the gate or how tests are found and run.
// A patch may not add, change, rename or delete any of them (E_POLICY_CHANGED).
import { toml } from '../core/builtins.js';
import type { Finding } from '../core/errors.js';
import { matchesAny } from '../core/glob.js';
import { parseStrictJson, type JsonValue } from '../core/json.js';
import { decodeStrictUtf8 } from '../core/text.js';

export { DEFAULT_POLICY_FILES } from '../config/schema.js';

/** Files of which only some parts are policy; the rest (dependencies, metadata) may change. */
export const MIXED_POLICY_FILES: readonly string[] = ['package.json', 'pyproject.toml', 'setup.cfg'];

/**
 * Policy whatever `policyFiles` says. The sealgate config: until the policy is read at the
 * base commit, a patched config could otherwise drop itself from the list it is judged by.
 * Every `.gitattributes`: git rewrites the files below one when it checks out the runner's tree
 * (working-tree-encoding, ident, eol), so the tree the tests run on would hold bytes the diff
 * does not show; no team's list of test configs should be able to leave that out.
 */
export const ALWAYS_POLICY_FILES: readonly string[] = [
  'sealgate.config.json',
  'sealgate.config.yaml',
  'sealgate.config.yml',
  '.gitattributes',
];

export interface SurfacePolicy {
  /** Whole-file policy globs (DEFAULT_POLICY_FILES unless the config says otherwise). */
  readonly policyFiles: readonly string[];
  /** The configured test command: a script it names is policy too. */
  readonly testCommand: readonly string[] | undefined;
}

/** One file of a patch, with both sides' bytes where the file is a mixed one (null: that side does not exist). */
export interface SurfaceFile {
  readonly oldPath: string | null;
  readonly newPath: string | null;
  /** Both sides' bytes, or why they could not be read; needed only for mixed files. */
  readonly contents?: SurfaceContents;
}

export type SurfaceContents =
  { readonly oldBytes: Uint8Array | null; readonly newBytes: Uint8Array | null } | { readonly problem: string };

const f = (path: string, detail: string): Finding => ({ code: 'E_POLICY_CHANGED', path, detail });

/** Is this path a mixed file (package.json, pyproject.toml, setup.cfg at any depth)? */
export function isMixedPolicyFile(path: string): boolean {
  return matchesAny(path, MIXED_POLICY_FILES) !== undefined;
}

/** Whole-file policy paths the test command names: its program when it is a repository path, a Makefile for make. */
export function commandPolicyFiles(command: readonly string[] | undefined): string[] {
  if (command === undefined) return [];
  const [program] = command;
  const out: string[] = [];
  if (program !== undefined && program.includes('/') && !program.startsWith('/'))
    out.push(program.replace(/^\.\//, ''));
  // Any Makefile (a name without "/" matches at any depth; `make -C dir` reads another one).
  if (program === 'make' || program === 'gmake') out.push('Makefile', 'makefile', 'GNUmakefile', '*.mk');
  return out;
}

const NPM_LIKE = new Set(['npm', 'pnpm', 'yarn', 'bun']);

/** Scripts a `npm run X`-style command line names (so a test script that delegates keeps its delegate in the surface). */
function scriptsNamedBy(words: readonly string[]): string[] {
  const out: string[] = [];
  for (let k = 0; k < words.length; k++) {
    const w = words[k] as string;
    if (!NPM_LIKE.has(w.replace(/^.*\//, ''))) continue;
    let j = k + 1;
    while (j < words.length && (words[j] as string).startsWith('-')) j++;
    const verb = words[j];
    if (verb === 'run' || verb === 'run-script' || verb === 'rum' || verb === 'urn') {
      j++;
      while (j < words.length && (words[j] as string).startsWith('-')) j++;
      if (words[j] !== undefined) out.push(words[j] as string);
    } else if (verb === 'test' || verb === 't' || verb === 'tst') out.push('test');
    else if (verb !== undefined && w !== 'npm' && !['install', 'add', 'i', 'exec', 'x', 'dlx'].includes(verb))
      out.push(verb); // `yarn X`, `pnpm X`
  }
  return out;
}

/**
 * The test sections of a package.json: the test scripts (test, its pre/post hooks, and every
 * script they or the configured command reach through `npm run`), and the jest, mocha, ava,
 * tap, c8 and nyc keys, and babel (babel-jest and @babel/register read their transform from it).
 * Dependencies and metadata are not policy.
 */
export function packageTestSection(pkg: JsonValue, command: readonly string[] | undefined): JsonValue {
  if (pkg === null || typeof pkg !== 'object' || Array.isArray(pkg))
    throw new Error('package.json is not a JSON object');
  const scripts = pkg.scripts ?? null;
  if (scripts !== null && (typeof scripts !== 'object' || Array.isArray(scripts)))
    throw new Error('"scripts" is not an object');
  const roots = ['test', ...(command === undefined ? [] : scriptsNamedBy(command))];
  const picked: Record<string, JsonValue> = {};
  const todo = [...roots];
  while (todo.length > 0) {
    const name = todo.pop() as string;
    for (const n of [name, `pre${name}`, `post${name}`]) {
      if (Object.hasOwn(picked, n)) continue;
      const value = scripts === null ? undefined : (scripts as Record<string, JsonValue>)[n];
      picked[n] = value ?? null;
      if (typeof value === 'string') todo.push(...scriptsNamedBy(value.split(/[\s;&|()]+/)));
    }
  }
  const keys = ['jest', 'mocha', 'ava', 'tap', 'c8', 'nyc', 'babel'];
  const out: Record<string, JsonValue> = { scripts: picked };
  for (const k of keys) out[k] = pkg[k] ?? null;
  return out;
}

/** `[tool.pytest]` (with `ini_options`) and `[tool.tox]` of a pyproject.toml; smol-toml refuses duplicate keys and tables. */
export function pyprojectTestSection(text: string): JsonValue {
  const doc = toml().parse(text) as Record<string, unknown>;
  const tool = (doc.tool ?? {}) as Record<string, unknown>;
  if (typeof tool !== 'object' || Array.isArray(tool)) throw new Error('"tool" is not a table');
  return JSON.parse(JSON.stringify({ pytest: tool.pytest ?? null, tox: tool.tox ?? null })) as JsonValue;
}

const INI_TEST_SECTION = /^(?:pytest|tool:pytest.*|tox(?::.*)?|testenv(?::.*)?)$/;

/**
 * The test sections of a setup.cfg, verbatim: `[tool:pytest]`, `[pytest]`, `[tox...]` and
 * `[testenv...]`. Strict where configparser and pytest's iniconfig could disagree: a section
 * header must start its line, an indented line that looks like a header, a duplicate section
 * or text before the first section is refused (the caller fails closed).
 */
export function iniTestSections(text: string): JsonValue {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''));
  const sections = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const [k, line] of lines.entries()) {
    if (line.startsWith('[')) {
      const m = /^\[(.+)\]\s*(?:[#;].*)?$/.exec(line);
      if (!m) throw new Error(`line ${k + 1}: malformed section header`);
      const name = (m[1] as string).trim().toLowerCase();
      if (sections.has(name)) throw new Error(`line ${k + 1}: section [${name}] appears twice`);
      current = [];
      sections.set(name, current);
      continue;
    }
    if (/^\s+\[/.test(line))
      throw new Error(
        `line ${k + 1}: an indented "[" line is ambiguous (a header to one parser, a continuation to another)`,
      );
    if (current === null) {
      if (line.trim() !== '' && !/^\s*[#;]/.test(line)) throw new Error(`line ${k + 1}: text before the first section`);
      continue;
    }
    current.push(line);
  }
  const out: Record<string, JsonValue> = {};
  for (const [name, body] of sections) if (INI_TEST_SECTION.test(name)) out[name] = body.join('\n').trimEnd();
  return out;
}

/** The policy-relevant part of a mixed file, as a canonical JSON string; throws when the file cannot be read strictly. */
export function mixedSection(path: string, bytes: Uint8Array, command: readonly string[] | undefined): string {
  // An empty file is a valid (empty) config; a BOM is refused, since parsers disagree on it.
  const d = bytes.length === 0 ? { text: '' } : decodeStrictUtf8(bytes);
  if ('problem' in d) throw new Error(d.detail);
  const text = d.text;
  const base = path.replace(/^.*\//, '');
  let section: JsonValue;
  if (base === 'package.json') section = packageTestSection(parseStrictJson(text), command);
  else if (base === 'pyproject.toml') section = pyprojectTestSection(text);
  else if (base === 'setup.cfg') section = iniTestSections(text);
  else throw new Error(`${path} is not a mixed policy file`);
  return canonical(section);
}

const SECTION_NAMES =
  'package.json test scripts and jest/mocha/ava/tap/c8/nyc keys, pyproject.toml [tool.pytest]/[tool.tox], setup.cfg [tool:pytest]/[pytest]/[tox]/[testenv]';

/** The test section of a mixed file that does not exist on one side. */
function emptySection(path: string, command: readonly string[] | undefined): string {
  const empty = path.endsWith('package.json') ? '{}' : '';
  return mixedSection(path, new TextEncoder().encode(empty), command);
}

function canonical(v: JsonValue): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `{${Object.keys(v)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(v[k] as JsonValue)}`)
    .join(',')}}`;
}

/**
 * The policy-surface rule, pure: every patch file that is (on either side of a rename) a
 * whole-file policy path is a finding; a mixed file is one when its test sections differ
 * between the two sides, or when either side cannot be read strictly (fail closed).
 */
export function checkPolicySurface(files: readonly SurfaceFile[], policy: SurfacePolicy): Finding[] {
  const whole = [...ALWAYS_POLICY_FILES, ...policy.policyFiles, ...commandPolicyFiles(policy.testCommand)];
  const out: Finding[] = [];
  for (const file of files) {
    const names = [...new Set([file.oldPath, file.newPath].filter((p): p is string => p !== null))];
    const label = names.join(' -> ');
    const what =
      file.oldPath === null
        ? 'adds'
        : file.newPath === null
          ? 'deletes'
          : file.oldPath !== file.newPath
            ? 'renames'
            : 'changes';
    const hit = names.map((p) => ({ p, g: matchesAny(p, whole) })).find((x) => x.g !== undefined);
    if (hit) {
      out.push(
        f(
          label,
          `the patch ${what} ${hit.p}, a policy file (matches "${hit.g as string}"); it configures the gate or how tests are found and run`,
        ),
      );
      continue;
    }
    const mixed = names.filter(isMixedPolicyFile);
    if (mixed.length === 0) continue;
    const c = file.contents;
    if (c === undefined || 'problem' in c) {
      out.push(
        f(
          label,
          `the patch ${what} ${mixed.join(', ')}, whose test sections are policy, and its contents could not be read to compare them${c ? ` (${c.problem})` : ''}`,
        ),
      );
      continue;
    }
    // A side that does not exist (or is not a mixed file) has no test settings: an added
    // package.json without test scripts is not a policy change, one with them is.
    const sides: string[] = [];
    let bad: string | null = null;
    for (const [side, path, bytes] of [
      ['base', file.oldPath, c.oldBytes],
      ['patched', file.newPath, c.newBytes],
    ] as const) {
      const kind = mixed[0] as string;
      if (path === null || bytes === null || !isMixedPolicyFile(path)) {
        sides.push(emptySection(kind, policy.testCommand));
        continue;
      }
      try {
        sides.push(mixedSection(path, bytes, policy.testCommand));
      } catch (err) {
        bad = `the ${side} ${path} cannot be read strictly (${(err as Error).message}), so its test sections cannot be shown unchanged`;
        break;
      }
    }
    if (bad !== null) out.push(f(label, bad));
    else if (sides[0] !== sides[1]) {
      out.push(
        f(
          label,
          `the patch ${what} ${mixed.join(', ')} and with it its test settings (${SECTION_NAMES}); other keys may change, these may not`,
        ),
      );
    }
  }
  return out;
}

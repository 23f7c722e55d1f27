// The stages of src/ import downwards only, and no files of src/ import each other in a circle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The stages, lowest first: a file may import its own stage or a lower one. The order is the
 * workflow's (docs/architecture.md): shared floors, the inputs (policy, record, diff,
 * symbols), the runner's job (tree, sandbox, store, seal, run, credit), the reviewer's and the
 * gate's (freeze, gate, attest, verify, report), the runner job as one call over them, and the
 * shells on top.
 */
export const STAGES = [
  'core',
  'config',
  'test-runners',
  'diff',
  'policy',
  'record',
  'symbols',
  'tree',
  'sandbox',
  'store',
  'seal',
  'runner',
  'credit',
  'freeze',
  'gate',
  'attest',
  'verify',
  'report',
  'job',
  'init',
  'cli',
  'index.ts',
] as const;

/**
 * credit/'s folders, lowest first, the same way: what a test is and how it is judged, mutants
 * as data, one folder per language (below, the registry asks them), the plan before any run,
 * one run of each kind, the speed-ups that must not change a verdict, the oracle's phases, the
 * score, and the credit step on top. Its one file at the top (schema.ts, the files it writes)
 * is its floor.
 */
export const CREDIT_STAGES = [
  'schema.ts',
  'tests',
  'mutants',
  'lang',
  'plan',
  'runs',
  'speedups',
  'oracle',
  'score',
  'step',
] as const;

/** Files that stand apart: loaded by a test runner, never imported by sealgate's own code. */
const APART = ['reporters'];

const SRC = resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Every module a file names: static imports and re-exports, `import type` too, and import() with a literal. */
export function importsOf(file: string, text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((s) => s.startsWith('.'))
    .map((s) =>
      relative(SRC, resolve(dirname(file), s))
        .split('\\')
        .join('/')
        .replace(/\.js$/, '.ts'),
    );
}

export const stageOf = (rel: string): string => (rel.includes('/') ? (rel.split('/')[0] as string) : rel);

/** The imports that run from a lower stage to a higher one, as "from -> to". */
export function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const rank = (rel: string): number => (STAGES as readonly string[]).indexOf(stageOf(rel));
  const out: string[] = [];
  for (const [from, tos] of graph) {
    for (const to of tos) {
      const a = rank(from);
      const b = rank(to);
      if (a === -1 || b === -1 || b > a) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

/** Within one stage's folder, the imports from a lower sub-folder to a higher one, as "from -> to". */
export function upwardWithin(
  graph: ReadonlyMap<string, readonly string[]>,
  stage: string,
  order: readonly string[],
): string[] {
  const sub = (rel: string): string | null =>
    rel.startsWith(`${stage}/`) ? (rel.slice(stage.length + 1).split('/')[0] as string) : null;
  const out: string[] = [];
  for (const [from, tos] of graph) {
    const a = sub(from);
    if (a === null) continue;
    for (const to of tos) {
      const b = sub(to);
      if (b === null) continue;
      if (!order.includes(a) || !order.includes(b) || order.indexOf(b) > order.indexOf(a)) out.push(`${from} -> ${to}`);
    }
  }
  return out;
}

/** The circles among files: each strongly connected set of two or more files, sorted. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

function houseGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const rel = posix.normalize(relative(SRC, file).split('\\').join('/'));
    graph.set(rel, importsOf(file, readFileSync(file, 'utf8')));
  }
  return graph;
}

test('every stage of src/ is listed, and none twice', () => {
  const folders = readdirSync(SRC, { withFileTypes: true })
    .map((e) => e.name)
    .filter((n) => !APART.includes(n));
  assert.deepEqual([...folders].sort(), [...STAGES].sort());
});

test('no stage imports a higher one', () => {
  assert.deepEqual(upwardImports(houseGraph()), []);
});

test('every folder of credit/ is listed, and none twice', () => {
  const entries = readdirSync(join(SRC, 'credit')).sort();
  assert.deepEqual(entries, [...CREDIT_STAGES].sort());
});

test('no folder of credit/ imports a higher one', () => {
  assert.deepEqual(upwardWithin(houseGraph(), 'credit', CREDIT_STAGES), []);
});

test('no files of src/ import each other in a circle', () => {
  assert.deepEqual(circles(houseGraph()), []);
});

test('no command re-enters the CLI: no file of src/cli/commands/ imports main.ts or the command table', () => {
  const reentries = [...houseGraph()]
    .filter(([from]) => from.startsWith('cli/commands/') && from !== 'cli/commands/index.ts')
    .flatMap(([from, tos]) =>
      tos.filter((to) => to === 'cli/main.ts' || to === 'cli/commands/index.ts').map((to) => `${from} -> ${to}`),
    );
  assert.deepEqual(reentries, []);
});

test('the files apart import nothing of the stages, and nothing imports them', () => {
  const graph = houseGraph();
  for (const [from, tos] of graph) {
    const apart = APART.includes(stageOf(from));
    for (const to of tos) assert.equal(APART.includes(stageOf(to)), apart, `${from} -> ${to}`);
  }
});

test('the checks themselves: an upward import and a circle are found', () => {
  const graph = new Map([
    ['core/a.ts', ['gate/b.ts']],
    ['gate/b.ts', ['core/a.ts']],
    ['cli/c.ts', ['core/a.ts', 'nowhere/x.ts']],
  ]);
  assert.deepEqual(upwardImports(graph), ['core/a.ts -> gate/b.ts', 'cli/c.ts -> nowhere/x.ts']);
  assert.deepEqual(circles(graph), [['core/a.ts', 'gate/b.ts']]);
  assert.deepEqual(
    upwardWithin(
      new Map([
        ['credit/lang/a.ts', ['credit/tests/b.ts', 'credit/oracle/c.ts', 'core/d.ts']],
        ['credit/new/e.ts', ['credit/lang/a.ts']],
      ]),
      'credit',
      CREDIT_STAGES,
    ),
    ['credit/lang/a.ts -> credit/oracle/c.ts', 'credit/new/e.ts -> credit/lang/a.ts'],
  );
  assert.deepEqual(
    importsOf(join(SRC, 'gate/x.ts'), "import type { A } from '../cli/y.js';\nawait import('./z.js');"),
    ['cli/y.ts', 'gate/z.ts'],
  );
});

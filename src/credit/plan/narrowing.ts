// How a judging run is narrowed to the tests that reach a symbol: by file or node id, by name, by trace target.
import {
  TEST_RUNNERS,
  narrowByName,
  narrowCommand,
  toNamePattern,
  type NamedTest,
  type RunnerKind,
} from '../../test-runners/index.js';
import { type CaseSource } from '../tests/match.js';

/** Narrowing targets for a set of reaching tests: pytest node ids or test files; null when any is unknown. */
export function narrowFor(
  command: readonly string[],
  sources: ReadonlyMap<string, CaseSource>,
): (ids: readonly string[]) => readonly string[] | null {
  return (ids) => {
    const picked = ids.map((id) => sources.get(id));
    if (picked.some((s) => s === undefined || s.files.length === 0)) return null;
    const all = picked as CaseSource[];
    const py = all.every((s) => s.nodeIds.length > 0);
    const targets = py ? all.flatMap((s) => s.nodeIds) : all.flatMap((s) => s.files);
    return narrowCommand(command, [...new Set(targets)].sort());
  };
}

/**
 * The tests of `tests` the trace's targets name one by one: a pytest node id's test; a file and a
 * name (jest's and vitest's current test name), the one test of that file with that full name; a
 * jest or vitest file alone (entered while it loaded), every test of that file. Null when a target
 * cannot be told so (a node:test file, a name no test or two tests have): then the probe runs.
 */
export function testsOfTargetsFor(
  sources: ReadonlyMap<string, CaseSource>,
  cases: ReadonlyMap<string, NamedTest> = new Map(),
  kind: RunnerKind = 'unknown',
): (targets: readonly string[], tests: readonly string[]) => string[] | null {
  const runner = TEST_RUNNERS[kind];
  const patterns = new Map<string, RegExp | null>();
  const patternOf = (t: string): RegExp | null => {
    if (!patterns.has(t)) {
      const named = cases.get(t);
      const p = named === undefined ? null : toNamePattern(kind, [named]);
      patterns.set(t, p === null ? null : new RegExp(p));
    }
    return patterns.get(t) ?? null;
  };
  return (targets, tests) => {
    const out = new Set<string>();
    for (const target of targets) {
      const tab = target.indexOf('\t');
      if (tab >= 0) {
        if (!runner.traceNamesTests) return null;
        const file = target.slice(0, tab);
        let name: unknown;
        try {
          name = JSON.parse(target.slice(tab + 1));
        } catch {
          return null;
        }
        if (typeof name !== 'string' || name === '') return null;
        const inFile = tests.filter((t) => {
          const s = sources.get(t);
          return s?.nodeIds.length === 0 && s.files.length === 1 && s.files[0] === file;
        });
        const hit: string[] = [];
        for (const t of inFile) {
          const re = patternOf(t);
          if (re === null) return null;
          if (re.test(name)) hit.push(t);
        }
        if (hit.length !== 1) return null;
        out.add(hit[0] as string);
        continue;
      }
      if (!target.includes('::')) {
        if (!runner.traceNamesTests) return null;
        for (const t of tests) {
          const s = sources.get(t);
          if (s?.nodeIds.length === 0 && s.files.length === 1 && s.files[0] === target) out.add(t);
        }
        continue;
      }
      const hit = tests.filter((t) => sources.get(t)?.nodeIds.includes(target) === true);
      if (hit.length === 0) return null;
      for (const t of hit) out.add(t);
    }
    return [...out].sort();
  };
}

/**
 * The command narrowed to the reaching tests by file and name (vitest, jest, node:test), or null
 * when any of them cannot be named exactly (the oracle then narrows by file). pytest's node ids
 * already name each test (narrowFor).
 */
export function narrowByNameFor(
  command: readonly string[],
  sources: ReadonlyMap<string, CaseSource>,
  cases: ReadonlyMap<string, NamedTest>,
): (ids: readonly string[]) => readonly string[] | null {
  return (ids) => {
    const picked = ids.map((id) => ({ source: sources.get(id), named: cases.get(id) }));
    if (
      picked.some(
        (p) =>
          p.source === undefined || p.source.files.length === 0 || p.source.nodeIds.length > 0 || p.named === undefined,
      )
    )
      return null;
    const files = [...new Set(picked.flatMap((p) => (p.source as CaseSource).files))].sort();
    return narrowByName(
      command,
      files,
      picked.map((p) => p.named as NamedTest),
    );
  };
}

// What a judging run shows: the tests it failed and ran, through load failures, and whether its failures are a kill.
import { compileErrorIn } from '../lang/index.js';

/**
 * A mutant run whose failures came (at least in part) through a load failure, while the
 * runner's output shows the mutated file does not compile or type-check, is not a kill: it is
 * a crash ("invalid at run time"). The static checks above should have caught it; this is the
 * net for a runner configured differently (a jest `tsconfig` of its own, say).
 */
export function checkRuntimeValidity<
  S extends {
    readonly status: 'ok' | 'timeout' | 'crash';
    readonly detail: string;
    readonly failed: readonly string[];
  },
>(
  seen: S,
  reportedFailed: ReadonlySet<string>,
  output: string,
  path: string,
): S | { status: 'crash'; detail: string; failed: string[] } {
  if (seen.status !== 'ok' || seen.failed.every((t) => reportedFailed.has(t))) return seen;
  const err = compileErrorIn(output, path);
  if (err === null) return seen;
  return {
    status: 'crash',
    detail: `${seen.detail}: the mutated ${path} does not compile or type-check under the test runner (${err}), so its load failure is not a kill`,
    failed: [],
  };
}

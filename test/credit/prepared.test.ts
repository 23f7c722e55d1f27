import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { makeRepo } from '../helpers/git.js';
import { childEnv, layout } from '../helpers/oracle.js';
import { testBox } from '../helpers/sandbox.js';
import { draftSymbols } from '../../src/credit/plan/symbols.js';
import { preparedKey, type PreparedBase } from '../../src/credit/speedups/prepared.js';
import { runOracle } from '../../src/credit/oracle/oracle.js';
import type { OracleResult } from '../../src/credit/oracle/types.js';
import { configuresRewriting, precompilePython } from '../../src/credit/lang/python/pycache.js';
import { makeScratch, makeWorkspace } from '../../src/credit/runs/test-run.js';
import { stampTree } from '../../src/core/times.js';
import { SANDBOX_WORK } from '../../src/sandbox/plan.js';
import type { Changed } from '../../src/symbols/schema.js';

// `sealgate runner` makes the Python byte code of the credit runs' base copy while the sealed
// run goes on (startCreditPrelude). The oracle takes that copy only when it was made from the
// very inputs it would use itself (preparedKey); any other is removed, and the oracle makes its
// own. Either way the credit is the same, and no prepared copy is left behind.

const { text, spans } = layout({ add: ['def add(a, b):', '    return a + b'] });
const TESTS = 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n    assert add(-1, 1) == 0\n';
const COMMAND = [
  'python3',
  '-m',
  'pytest',
  '-q',
  '-p',
  'no:cacheprovider',
  '--tb=line',
  '--junitxml=junit.xml',
  'tests',
];
const IDS = ['tests.test_calc::test_add'];

describe('the oracle and a base copy made ahead', { concurrency: false }, () => {
  let repo: { dir: string; dispose: () => void };
  const env = childEnv();
  const changed = (): Changed => ({
    base: '0'.repeat(40),
    patch_sha256: '1'.repeat(64),
    files: [{ path: 'calc.py', old_path: null, status: 'added', class: 'production', language: 'python' }],
    changed: ['calc.py::add'],
    moved: [],
    deleted: [],
    typeOnly: [],
    uncreditable: [],
    locations: {
      'calc.py::add': {
        path: 'calc.py',
        language: 'python',
        start_line: spans.add?.[0] ?? 1,
        end_line: spans.add?.[1] ?? 2,
        changed_lines: [spans.add ?? [1, 2]],
      },
    },
  });
  const prepare = async (flip: boolean): Promise<PreparedBase> => {
    const scratch = makeScratch();
    const ws = makeWorkspace(repo.dir, scratch.dir, repo.dir);
    const noRewrite = configuresRewriting(ws.root, [...COMMAND, ...Object.values(env)]);
    const bytecode = await precompilePython(ws.root, new Set(['calc.py']), { cwd: SANDBOX_WORK, noRewrite });
    stampTree(ws.root);
    return {
      root: ws.root,
      dispose: scratch.dispose,
      key: preparedKey(repo.dir, repo.dir, ['calc.py'], SANDBOX_WORK, flip ? !noRewrite : noRewrite),
      bytecode,
    };
  };
  const oracle = async (prepared: PreparedBase | null): Promise<OracleResult> => {
    const { drafts, judged } = await draftSymbols(repo.dir, changed(), 4, 'seed-1');
    return runOracle(drafts, {
      judged,
      workTree: repo.dir,
      depsFrom: repo.dir,
      command: COMMAND,
      junit: ['junit.xml'],
      env,
      sandbox: testBox(repo.dir),
      controlTimeoutMs: 120_000,
      baselineMs: 1000,
      workers: 2,
      seed: 'seed-1',
      eligible: new Set(IDS),
      ignore: new Set(),
      narrow: () => null,
      narrowTargets: () => null,
      filesOf: () => ['tests/test_calc.py'],
      cacheDir: null,
      cacheSalt: 'test',
      ...(prepared !== null ? { prepared: Promise.resolve(prepared) } : {}),
    });
  };
  const view = (r: OracleResult) => [...r.mutants.values()].flat().map((m) => [m.mutant.id, m.status, m.failed]);
  let alone: OracleResult;
  before(async () => {
    repo = makeRepo({
      'calc.py': text,
      'tests/test_calc.py': TESTS,
      'tests/conftest.py':
        'import os, sys\nsys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))\n',
      '.gitignore': 'junit.xml\n__pycache__\n',
    });
    alone = await oracle(null);
  });
  after(() => repo.dispose());

  it('made from the same inputs: the oracle runs on it (its byte code result is the one made ahead), the credit is the same, and the copy is gone after', async () => {
    const p = await prepare(false);
    assert.ok(p.bytecode.files > 0, JSON.stringify(p.bytecode));
    const r = await oracle(p);
    assert.equal(r.bytecode, p.bytecode);
    assert.deepEqual(view(r), view(alone));
    assert.ok(
      view(r).some(([, status, failed]) => status === 'ok' && (failed as string[]).length > 0),
      'a mutant was killed',
    );
    assert.equal(existsSync(p.root), false);
  });
  it('made from other inputs (pytest rewrite decided otherwise): not used, removed, and the oracle makes its own', async () => {
    const p = await prepare(true);
    const r = await oracle(p);
    assert.notEqual(r.bytecode, p.bytecode);
    assert.deepEqual(r.bytecode, alone.bytecode);
    assert.deepEqual(view(r), view(alone));
    assert.equal(existsSync(p.root), false);
  });
});

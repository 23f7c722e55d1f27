import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { progressPrinter } from '../../src/cli/commands/credit.js';
import type { Progress } from '../../src/credit/oracle/types.js';

const p = (phase: Progress['phase'], done: number, elapsedMs: number): Progress => ({
  phase,
  done,
  total: 10,
  kills: done,
  elapsedMs,
  etaMs: done > 0 ? (elapsedMs / done) * (10 - done) : null,
});

describe('credit progress on stderr', () => {
  it('a terminal gets one live line, rewritten in place, ended at done', () => {
    let out = '';
    const print = progressPrinter({ stderr: (t) => (out += t), isTTY: true });
    print(p('probes', 1, 1000));
    print(p('mutants', 5, 3000));
    print(p('done', 10, 6000));
    assert.equal(out.split('\r').length, 4);
    assert.match(out, /mutants 5\/10 runs, 5 killed, 3\.0s elapsed, ~3\.0s left/);
    assert.ok(out.endsWith('\n') && out.split('\n').length === 2);
  });
  it('otherwise plain lines: each phase change, then at most one per interval, and the end', () => {
    let out = '';
    const print = progressPrinter({ stderr: (t) => (out += t), isTTY: false }, 5000);
    print(p('probes', 1, 100));
    print(p('probes', 2, 200));
    print(p('mutants', 3, 300));
    print(p('mutants', 4, 2000));
    print(p('mutants', 5, 5400));
    print(p('done', 10, 5500));
    const lines = out.trim().split('\n');
    assert.deepEqual(
      lines.map((l) => l.split(' ')[1]),
      ['probes', 'mutants', 'mutants', 'done'],
    );
    assert.doesNotMatch(out, /\r/);
  });
});

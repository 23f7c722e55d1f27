import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JudgingQueue, isSettled, mayDefer, type JudgingJob } from '../../src/credit/oracle/queue.js';
import { behaviouralTimeoutMs } from '../../src/credit/oracle/timeouts.js';
import { judgingOrder } from '../../src/credit/oracle/plan.js';
import type { MutantRun } from '../../src/credit/oracle/types.js';
import type { SymbolPlan } from '../../src/credit/mutants/plan.js';
import type { Mutant } from '../../src/credit/mutants/mutant.js';

const mutant = (id: string, kind: Mutant['kind']): Mutant => ({
  id,
  symbol: 'a.py::f',
  path: 'a.py',
  kind,
  category: kind === 'behavioural' ? 'constant' : kind,
  line: 1,
  description: id,
  edits: [],
});

function plan(order: readonly Mutant[], change: 'added' | 'modified' = 'modified'): SymbolPlan {
  return {
    symbol: 'a.py::f',
    path: 'a.py',
    probe: mutant('probe', 'probe'),
    trace: [],
    mutants: order.filter((m) => m.kind === 'behavioural'),
    candidates: order.filter((m) => m.kind === 'behavioural').length,
    change,
    revert: order.find((m) => m.kind === 'revert') ?? null,
    nulls: order.filter((m) => m.kind === 'null'),
  };
}

/** Drive a queue with one worker; `fails` says which tests fail on each mutant (by id). */
function drive(
  order: readonly Mutant[],
  reached: readonly string[],
  fails: Readonly<Record<string, readonly string[]>>,
  require: 'change' | 'revert' = 'change',
  change: 'added' | 'modified' = 'modified',
) {
  const q = new JudgingQueue([{ plan: plan(order, change), reached, order }], require);
  const ran: JudgingJob[] = [];
  for (let job = q.take(); job !== null; job = q.take()) {
    ran.push(job);
    const failed = (fails[job.m.id] ?? []).filter((t) => job.against.includes(t));
    const r: MutantRun = { mutant: job.m, status: 'ok', detail: '', failed, ranAgainst: job.against, cached: false };
    q.finish(job, r);
  }
  return {
    ran: ran.map((j) => j.m.id),
    jobs: ran,
    queue: q,
    runs: (q.symbols[0]?.runs ?? []).filter((r) => r !== undefined),
  };
}

const R = mutant('revert', 'revert');
const N1 = mutant('null1', 'null');
const N2 = mutant('null2', 'null');
const B = (i: number): Mutant => mutant(`b${i}`, 'behavioural');

describe('the judging queue', () => {
  it('restart starts the symbol over from its first run; a run taken before it (finished before or after) counts for nothing', () => {
    const order = [B(1), N1, R, N2];
    const q = new JudgingQueue([{ plan: plan(order), reached: ['t1'], order }], 'change');
    const first = q.take();
    const second = q.take();
    assert.ok(first !== null && second !== null);
    q.finish(first, { mutant: first.m, status: 'ok', detail: '', failed: ['t1'], ranAgainst: ['t1'], cached: false });
    q.restart('a.py::f');
    // A run still under way when the symbol restarted ends after it: ignored.
    q.finish(second, { mutant: second.m, status: 'ok', detail: '', failed: ['t1'], ranAgainst: ['t1'], cached: false });
    const w = q.symbols[0];
    assert.equal(w?.runs.filter((r) => r !== undefined).length, 0);
    assert.equal(w?.killers.size, 0);
    const again: string[] = [];
    for (let job = q.take(); job !== null; job = q.take()) {
      again.push(job.m.id);
      q.finish(job, { mutant: job.m, status: 'ok', detail: '', failed: [], ranAgainst: job.against, cached: false });
    }
    assert.deepEqual(again, ['b1', 'null1', 'revert', 'null2']);
    assert.equal(w?.runs.filter((r) => r !== undefined).length, 4);
  });

  it('once a clean test earned the symbol, its remaining behavioural mutants wait and, the credit settled, never run', () => {
    const { ran, queue } = drive([B(1), N1, B(2), R, B(3), N2, B(4)], ['t1', 't2'], { b1: ['t1'], revert: ['t1'] });
    assert.deepEqual(ran, ['b1', 'null1', 'revert', 'null2']);
    assert.equal(queue.deferredLeft, 3);
  });

  it('the revert and every null mutant always run, wherever they fall in the order', () => {
    const { ran } = drive([B(1), B(2), B(3), R, N1, N2], ['t1'], { b1: ['t1'] });
    assert.ok(ran.includes('revert') && ran.includes('null1') && ran.includes('null2'));
  });

  it('a killer that then fails a null mutant does not settle the credit: the deferred mutants run after all, in their order', () => {
    // t1 tells sources apart (it fails b1 and the last null mutant); t2 checks behaviour, but only b3 changes what it sees.
    const { ran, queue, jobs, runs } = drive([B(1), N1, B(2), B(3), N2], ['t1', 't2'], {
      b1: ['t1'],
      b2: ['t1'],
      b3: ['t2'],
      null2: ['t1'],
    });
    assert.deepEqual(ran, ['b1', 'null1', 'null2', 'b2', 'b3']);
    assert.equal(queue.deferredLeft, 0);
    // given back, they run against every reaching test and count only on those that have not failed yet
    assert.deepEqual(jobs.at(-1)?.against, ['t1', 't2']);
    assert.deepEqual(runs.at(-1)?.ranAgainst, ['t2']);
    // once a null mutant has failed the only earner, nothing is deferred at all
    assert.deepEqual(
      drive([B(1), N1, B(2), R, B(3)], ['t1', 't2'], { b1: ['t1'], null1: ['t1'], revert: ['t1'], b3: ['t2'] }).ran,
      ['b1', 'null1', 'b2', 'revert', 'b3'],
    );
  });

  it('the same kills as running every mutant decide the credit (property: a clean earner exists with deferral exactly when it does without)', () => {
    const tests = ['t1', 't2', 't3'];
    const kinds = fc.array(fc.constantFrom<Mutant['kind']>('behavioural', 'null'), { minLength: 1, maxLength: 9 });
    fc.assert(
      fc.property(
        kinds,
        fc.boolean(),
        fc.array(fc.subarray(tests), { minLength: 10, maxLength: 10 }),
        (ks, withRevert, killSets) => {
          const order = ks.map((k, i) => mutant(`${k}${i}`, k));
          if (withRevert) order.splice(Math.floor(order.length / 2), 0, R);
          const fails = Object.fromEntries(order.map((m, i) => [m.id, killSets[i] ?? []]));
          const credited = (runs: readonly MutantRun[]): boolean => {
            const bad = new Set(runs.filter((r) => r.mutant.kind === 'null').flatMap((r) => r.failed));
            return runs.some((r) => r.mutant.kind !== 'null' && r.failed.some((t) => !bad.has(t)));
          };
          // Without deferral: every mutant runs (open tests only, as the oracle does).
          const full = new Set<string>();
          const fullRuns: MutantRun[] = [];
          for (const m of order) {
            const open = m.kind === 'behavioural' ? tests.filter((t) => !full.has(t)) : tests;
            if (open.length === 0) continue;
            const failed = (fails[m.id] ?? []).filter((t) => open.includes(t));
            if (m.kind !== 'null') for (const t of failed) full.add(t);
            fullRuns.push({ mutant: m, status: 'ok', detail: '', failed, ranAgainst: open, cached: false });
          }
          const { runs } = drive(order, tests, fails);
          assert.equal(credited(runs), credited(fullRuns));
          // Every null mutant and the revert ran.
          for (const m of order.filter((x) => x.kind !== 'behavioural'))
            assert.ok(runs.some((r) => r.mutant.id === m.id));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('under require "revert" a modified symbol\'s behavioural mutants never run (only its revert can earn it); an added symbol\'s do, and a kill settles', () => {
    const order = [B(1), N1, B(2), R, B(3)];
    const modified = drive(order, ['t1', 't2'], { b1: ['t1'], revert: ['t2'] }, 'revert');
    assert.deepEqual(modified.ran, ['null1', 'revert']);
    assert.equal(modified.queue.moot, 3);
    // The same whether the revert is killed or survives: a behavioural kill could change nothing.
    assert.deepEqual(drive(order, ['t1', 't2'], { b1: ['t1'] }, 'revert').ran, ['null1', 'revert']);
    const added = [B(1), N1, B(2), B(3)];
    assert.deepEqual(drive(added, ['t1', 't2'], { b1: ['t1'] }, 'revert', 'added').ran, ['b1', 'null1']);
    assert.equal(drive(added, ['t1', 't2'], { b1: ['t1'] }, 'revert', 'added').queue.moot, 0);
    // Under "change" they run as before.
    assert.deepEqual(drive(order, ['t1', 't2'], {}, 'change').ran, ['b1', 'null1', 'b2', 'revert', 'b3']);
  });

  it('a null mutant that did not run cleanly never lets the credit settle', () => {
    const s = { pending: 0, nullBroken: true, nullFailed: new Set<string>(), earners: new Set(['t1']) };
    assert.equal(mayDefer(s), false);
    assert.equal(isSettled(s), false);
    assert.equal(isSettled({ ...s, nullBroken: false }), true);
    assert.equal(isSettled({ ...s, nullBroken: false, pending: 1 }), false);
    assert.equal(isSettled({ ...s, nullBroken: false, nullFailed: new Set(['t1']) }), false);
  });

  it('with two workers, one symbol has two runs under way, and a waiting worker is told when deferred mutants come back', () => {
    const order = [B(1), N1, B(2), N2];
    const q = new JudgingQueue([{ plan: plan(order), reached: ['t1', 't2'], order }], 'change');
    const a = q.take();
    const b = q.take();
    assert.deepEqual([a?.m.id, b?.m.id], ['b1', 'null1']);
    const ok = (job: JudgingJob, failed: string[]): MutantRun => ({
      mutant: job.m,
      status: 'ok',
      detail: '',
      failed,
      ranAgainst: job.against,
      cached: false,
    });
    q.finish(a as JudgingJob, ok(a as JudgingJob, ['t1']));
    const c = q.take();
    assert.equal(c?.m.id, 'null2');
    assert.equal(q.take(), null);
    assert.equal(q.mayGiveBack(), true);
    q.finish(b as JudgingJob, ok(b as JudgingJob, ['t1']));
    q.finish(c, ok(c, []));
    assert.equal(q.mayGiveBack(), false);
    assert.equal(q.take()?.m.id, 'b2');
  });
});

/**
 * Drive a queue with `workers` workers whose runs end in the order `pick` chooses (an index
 * into the runs under way), as timing would; `fails` as for drive.
 */
function driveParallel(
  order: readonly Mutant[],
  reached: readonly string[],
  fails: Readonly<Record<string, readonly string[]>>,
  workers: number,
  pick: (n: number) => number,
  ahead = true,
  require: 'change' | 'revert' = 'change',
) {
  const q = new JudgingQueue([{ plan: plan(order), reached, order }], require, ahead);
  const under: JudgingJob[] = [];
  let made = 0;
  for (;;) {
    while (under.length < workers) {
      const job = q.take();
      if (job === null) break;
      under.push(job);
      made++;
    }
    if (under.length === 0) break;
    const [job] = under.splice(pick(under.length) % under.length, 1) as [JudgingJob];
    q.finish(job, {
      mutant: job.m,
      status: 'ok',
      detail: '',
      failed: (fails[job.m.id] ?? []).filter((t) => job.against.includes(t)),
      ranAgainst: job.against,
      cached: false,
    });
  }
  const runs = (q.symbols[0]?.runs ?? []).filter((r) => r !== undefined);
  return {
    made,
    queue: q,
    counted: runs.map((r) => ({ id: r.mutant.id, failed: r.failed, ranAgainst: r.ranAgainst })),
  };
}

describe('the judging queue with several workers', () => {
  const tests = ['t1', 't2', 't3'];
  const arbOrder = fc
    .tuple(
      fc.array(fc.constantFrom<Mutant['kind']>('behavioural', 'null'), { minLength: 1, maxLength: 8 }),
      fc.boolean(),
      fc.nat(),
    )
    .map(([ks, withRevert, at]) => {
      const order = ks.map((k, i) => mutant(`${k}${i}`, k));
      if (withRevert) order.splice(at % (order.length + 1), 0, R);
      return order;
    });

  it('property: the runs that count (which, at what place, on which tests) are those of one worker, whatever the number of workers, the order runs end in, and whether runs are taken ahead', () => {
    fc.assert(
      fc.property(
        arbOrder,
        fc.array(fc.subarray(tests), { minLength: 10, maxLength: 10 }),
        fc.integer({ min: 2, max: 4 }),
        fc.array(fc.nat(), { minLength: 40, maxLength: 40 }),
        fc.boolean(),
        fc.constantFrom<'change' | 'revert'>('change', 'revert'),
        (order, killSets, workers, picks, ahead, require) => {
          const fails = Object.fromEntries(order.map((m, i) => [m.id, killSets[i] ?? []]));
          let k = 0;
          const one = driveParallel(order, tests, fails, 1, () => 0, false, require);
          const many = driveParallel(
            order,
            tests,
            fails,
            workers,
            (n) => (picks[k++ % picks.length] ?? 0) % n,
            ahead,
            require,
          );
          assert.deepEqual(many.counted, one.counted);
          assert.equal(many.queue.deferredLeft, one.queue.deferredLeft);
          assert.equal(many.queue.unused, many.made - many.counted.length);
          if (!ahead) assert.equal(many.made, one.made);
          // One worker never runs ahead, and its runs are those drive (the one-worker loop) counts.
          assert.equal(one.queue.unused, 0);
          assert.deepEqual(
            one.counted.map((r) => r.id),
            drive(order, tests, fails, require).ran,
          );
        },
      ),
      { seed: 2026, numRuns: 1500 },
    );
  });

  it('a behavioural mutant after a running revert waits for it (a killed revert settles the credit and it never counts); a second worker takes the null mutant meanwhile', () => {
    const order = [R, B(1), N1, B(2)];
    const q = new JudgingQueue([{ plan: plan(order), reached: ['t1', 't2'], order }], 'change');
    const a = q.take();
    const b = q.take();
    assert.deepEqual([a?.m.id, b?.m.id], ['revert', 'null1']);
    assert.equal(q.take(), null, 'b1 waits: the revert has not ended');
    assert.equal(q.mayGiveBack(), true);
    q.finish(b as JudgingJob, { mutant: N1, status: 'ok', detail: '', failed: [], ranAgainst: ['t1'], cached: false });
    assert.equal(q.take(), null, 'still waiting on the revert');
    q.finish(a as JudgingJob, {
      mutant: R,
      status: 'ok',
      detail: '',
      failed: ['t1'],
      ranAgainst: ['t1'],
      cached: false,
    });
    assert.equal(q.take(), null);
    assert.equal(q.mayGiveBack(), false);
    assert.equal(q.deferredLeft, 2);
    assert.deepEqual(
      (q.symbols[0]?.runs ?? []).filter((r) => r !== undefined).map((r) => r.mutant.id),
      ['revert', 'null1'],
    );
  });

  it('once the revert ended without a kill, an idle worker takes a behavioural mutant ahead; if its place turns out not to need it, it does not count, and no worker waits for it', () => {
    const order = [N1, R, B(1), B(2)];
    const ok = (m: Mutant, failed: string[]): MutantRun => ({
      mutant: m,
      status: 'ok',
      detail: '',
      failed,
      ranAgainst: ['t1', 't2'],
      cached: false,
    });
    const q = new JudgingQueue([{ plan: plan(order), reached: ['t1', 't2'], order }], 'change');
    const a = q.take();
    const b = q.take();
    assert.deepEqual([a?.m.id, b?.m.id], ['null1', 'revert']);
    q.finish(b as JudgingJob, ok(R, []));
    const c = q.take();
    assert.deepEqual([c?.m.id, c?.speculative], ['b1', true]);
    const d = q.take();
    assert.deepEqual([d?.m.id, d?.speculative], ['b2', true]);
    // b1 kills t1 and the null mutant passes: b2's place is decided as deferred and the credit
    // settles while b2 (taken ahead) still runs; no worker need wait for it.
    q.finish(c as JudgingJob, ok(B(1), ['t1']));
    assert.equal(q.mayGiveBack(), true, 'the null mutant is still running');
    q.finish(a as JudgingJob, ok(N1, []));
    assert.equal(q.take(), null);
    assert.equal(q.mayGiveBack(), false);
    q.finish(d as JudgingJob, ok(B(2), ['t2']));
    assert.equal(q.take(), null);
    assert.deepEqual(
      (q.symbols[0]?.runs ?? []).filter((r) => r !== undefined).map((r) => r.mutant.id),
      ['null1', 'revert', 'b1'],
    );
    assert.equal(q.unused, 1);
    assert.equal(q.deferredLeft, 1);
  });
});

describe('judgingOrder', () => {
  const all = (k: number, nulls: number): Mutant[] => [
    R,
    ...Array.from({ length: nulls }, (_, i) => mutant(`null${i + 1}`, 'null')),
    ...Array.from({ length: k }, (_, i) => B(i + 1)),
  ];
  const ids = (ms: readonly Mutant[]): string[] => ms.map((m) => m.id);
  // The order as it was before the revert went first: one seeded shuffle of every run.
  const shuffled = (seed: string, ms: readonly Mutant[]): string[] =>
    judgingOrder(
      seed,
      ms.map((m) => (m.kind === 'revert' ? { ...m, kind: 'behavioural' as const } : m)),
    ).map((m) => m.id);

  it("property: every run once; the nulls where a shuffle of every run puts them; the revert in the first other slot, the behavioural mutants after it in the seed's order; the same seed, the same order", () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 3 }), (seed, k, nulls) => {
        const ms = all(k, nulls);
        const order = judgingOrder(seed, ms);
        assert.deepEqual([...ids(order)].sort(), [...ids(ms)].sort());
        assert.deepEqual(ids(judgingOrder(seed, [...ms].reverse())), ids(order));
        const nullSlots = order.flatMap((m, i) => (m.kind === 'null' ? [i] : []));
        // A shuffle of every run (the revert taken as one more real mutant) puts the nulls in the same slots.
        const reference = shuffled(seed, ms);
        assert.deepEqual(
          nullSlots,
          reference.flatMap((id, i) => (id.startsWith('null') ? [i] : [])),
        );
        assert.deepEqual(
          ids(order.filter((m) => m.kind === 'null')),
          reference.filter((id) => id.startsWith('null')),
        );
        const real = order.filter((m) => m.kind !== 'null');
        assert.equal(real[0]?.kind, 'revert');
        assert.deepEqual(
          ids(real.slice(1)),
          reference.filter((id) => id.startsWith('b')),
        );
      }),
      { seed: 1412, numRuns: 300 },
    );
  });

  it('a null mutant is as likely as any run to come first: over 400 seeds with one null and five behavioural mutants it comes first about 1 time in 7, and in every slot', () => {
    const ms = all(5, 1);
    const slots = new Array<number>(7).fill(0);
    for (let i = 0; i < 400; i++) slots[judgingOrder(`seed-${i}`, ms).findIndex((m) => m.kind === 'null')]! += 1;
    for (const n of slots) assert.ok(n > 25 && n < 95, `slots ${slots.join(',')}`);
  });

  it('where only the revert earns, the revert and the nulls are shuffled among themselves first: a null comes first about half the time', () => {
    const ms = all(5, 1);
    let nullFirst = 0;
    for (let i = 0; i < 400; i++) {
      const order = judgingOrder(`seed-${i}`, ms, 'revert-and-nulls');
      assert.deepEqual(
        order
          .slice(0, 2)
          .map((m) => m.kind)
          .sort(),
        ['null', 'revert'],
      );
      assert.ok(order.slice(2).every((m) => m.kind === 'behavioural'));
      if (order[0]?.kind === 'null') nullFirst++;
    }
    assert.ok(nullFirst > 160 && nullFirst < 240, `${nullFirst} of 400`);
  });

  it('a tested change settles on its revert and its null mutant: none of its behavioural mutants runs, whatever the seed', () => {
    for (let i = 0; i < 50; i++) {
      const order = judgingOrder(`seed-${i}`, all(6, 1));
      const { ran } = drive(order, ['t1', 't2'], { revert: ['t1'], b1: ['t1'], b2: ['t2'], b3: ['t1', 't2'] });
      assert.deepEqual([...ran].sort(), ['null1', 'revert']);
    }
  });
});

describe('behaviouralTimeoutMs', () => {
  it('is the control fixed cost plus the chosen tests own durations, times the factor, plus two seconds', () => {
    const times = { a: 100, b: 300, c: 600 };
    // control 3000 ms: fixed 2000 ms; tests a+b 400 ms
    assert.equal(behaviouralTimeoutMs(3000, times, ['a', 'b'], 60_000, 3), (2000 + 400) * 3 + 2000);
  });
  it('never exceeds the ceiling and never goes below the fixed cost', () => {
    assert.equal(behaviouralTimeoutMs(3000, { a: 100 }, ['a'], 5000, 3), 5000);
    assert.equal(behaviouralTimeoutMs(100, { a: 500 }, ['a'], 60_000, 3), 500 * 3 + 2000);
    assert.equal(behaviouralTimeoutMs(1000, {}, ['unknown'], 60_000, 2), 1000 * 2 + 2000);
  });
});

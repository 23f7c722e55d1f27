import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { touchesChange } from '../../src/credit/mutants/change.js';
import { checkSymbolChange } from '../../src/credit/lang/index.js';
import {
  applyEdits,
  camouflage,
  combineEdits,
  revertMutant,
  type Edit,
  type NullPart,
} from '../../src/credit/mutants/mutant.js';
import { ownNoiseRevert } from '../../src/credit/plan/revert.js';
import { mutateTs } from '../../src/credit/lang/typescript/mutate.js';
import { mutatePy } from '../../src/credit/lang/python/mutate.js';
import { extractFile } from '../../src/symbols/jobs.js';

const BASE = readFileSync('examples/pricing/src/pricing.ts', 'utf8');
const PATCHED = BASE.replace(
  '  return Math.round((amountCents * rateBasisPoints) / 10_000);\n}',
  '  // Refunds mirror their sale.\n  const exact = (Math.abs(amountCents) * rateBasisPoints) / 10_000;\n  return Math.sign(amountCents) * Math.round(exact);\n}',
);

/** A mutant's own edits: those that are not its symbol's null changes (every real mutant carries those too). */
function ownEdits(edits: readonly Edit[], noise: readonly NullPart[]): Edit[] {
  const n = combineEdits(noise.map((p) => p.edits)) ?? [];
  return edits.filter((e) => !n.some((x) => x.start === e.start && x.end === e.end && x.text === e.text));
}

async function changeOf(lang: string, path: string, base: string | null, patched: string, name: string) {
  const p = await extractFile(lang, path, Buffer.from(patched), { docstringChanges: false });
  const b = base === null ? null : await extractFile(lang, path, Buffer.from(base), { docstringChanges: false });
  const pieces = p.symbols.get(name);
  assert.ok(pieces, `${name} in the patched file`);
  return { change: checkSymbolChange(lang, patched, pieces, base, b?.symbols.get(name) ?? null), pieces };
}

const texts = (text: string, ranges: readonly (readonly [number, number])[]): string[] =>
  ranges.map(([s, e]) => text.slice(s, e));

describe('the change of a symbol, token by token', () => {
  it('a modified function: only its new tokens are changed, and the revert gives back the base text', async () => {
    const { change } = await changeOf('typescript', 'src/pricing.ts', BASE, PATCHED, 'taxCents');
    assert.equal(change.status, 'modified');
    const changed = texts(PATCHED, change.changed);
    assert.ok(
      changed.includes('exact') && changed.includes('abs') && changed.includes('sign'),
      JSON.stringify(changed),
    );
    assert.ok(
      !changed.includes('rateBasisPoints') || changed.filter((t) => t === 'rateBasisPoints').length === 0,
      'unchanged tokens are not the change',
    );
    assert.ok(!changed.includes('10_000'), 'the divisor did not change');
    assert.ok(change.revert);
    assert.equal(applyEdits(PATCHED, change.revert), BASE);
  });

  it('behavioural mutants sit only on the changed tokens; other functions get none', async () => {
    const { change } = await changeOf('typescript', 'src/pricing.ts', BASE, PATCHED, 'taxCents');
    const lines = PATCHED.split('\n');
    const start = lines.findIndex((l) => l.includes('function taxCents')) + 1;
    const m = mutateTs(
      PATCHED,
      {
        symbol: 'src/pricing.ts::taxCents',
        path: 'src/pricing.ts',
        startLine: start,
        endLine: start + 5,
        changedLines: [[start + 1, start + 3]],
      },
      change,
      { word: 'kvorlixa', suffix: 'qmztbw', fill: 'pldwenvo' },
    );
    assert.ok(m.candidates.length > 0);
    for (const c of m.candidates) assert.ok(touchesChange(change.changed, ownEdits(c.edits, m.noise)), c.description);
    assert.ok(
      !m.candidates.some((c) => c.description.includes('10000 -> 10001') || c.description.includes('10_000')),
      'the unchanged divisor is not mutated',
    );
    // One null mutant, every null change at once.
    assert.deepEqual(
      m.nulls.map((n) => [n.id, n.description]),
      [
        [
          'src/pricing.ts::taxCents#null',
          'null: a no-op statement, a comment, a line break and a renamed local (exact -> exact_qmztbw) added',
        ],
      ],
    );
    const text = applyEdits(PATCHED, m.nulls[0]?.edits ?? []);
    for (const bit of ['void 0;', '/* kvorlixa */', 'const exact_qmztbw =', 'Math.round(exact_qmztbw)'])
      assert.ok(text.includes(bit), bit);
  });

  it('a pattern changed in part: its mutants sit on the changed characters only', async () => {
    const base = 'export function num(s: string): boolean {\n  return /^\\d+(?:\\.\\d+)?$/.test(s);\n}\n';
    const grown = 'export function num(s: string): boolean {\n  return /^\\d+(?:\\.\\d+)?(?:e\\d+)?$/.test(s);\n}\n';
    const relaxed = 'export function num(s: string): boolean {\n  return /^\\d*(?:\\.\\d+)?$/.test(s);\n}\n';
    const sp = {
      symbol: 'src/a.ts::num',
      path: 'src/a.ts',
      startLine: 1,
      endLine: 3,
      changedLines: [[2, 2]] as [number, number][],
    };
    const regexOf = async (patched: string): Promise<string[]> => {
      const { change } = await changeOf('typescript', 'src/a.ts', base, patched, 'num');
      return mutateTs(patched, sp, change, { word: 'kvorlixa', suffix: 'qmztbw', fill: 'pldwenvo' })
        .candidates.map((c) => c.description)
        .filter((d) => d.includes('regex:'));
    };
    // An exponent added: the new part's own + and \d, not the ones the pattern had.
    assert.deepEqual(await regexOf(grown), [
      'line 2: regex: first + made *',
      String.raw`line 2: regex: first \d made \D`,
    ]);
    // + became *: that quantifier, nothing before or after it.
    assert.deepEqual(await regexOf(relaxed), ['line 2: regex: first * made +']);
  });

  it('an added symbol: all of it is the change, and there is no revert', async () => {
    const patched = `${BASE}\nexport function refund(c: number): number {\n  return -c;\n}\n`;
    const { change } = await changeOf('typescript', 'src/pricing.ts', BASE, patched, 'refund');
    assert.equal(change.status, 'added');
    assert.equal(change.revert, null);
    assert.deepEqual(change.changed, change.own);
  });

  it('a <module> change: its own top-level statements only, never the bodies of other functions; the revert removes them', async () => {
    const patched = `${BASE}\nconst plainTax = taxCents;\n// @ts-expect-error redefined\ntaxCents = (a: number, r: number): number => Math.sign(a) * plainTax(Math.abs(a), r);\n`;
    const { change } = await changeOf('typescript', 'src/pricing.ts', BASE, patched, '<module>');
    const fnStart = patched.indexOf('export function applyDiscount');
    const fnEnd = patched.indexOf('/** Sales tax');
    for (const [s, e] of change.changed)
      assert.ok(e <= fnStart || s >= fnEnd, `changed range ${patched.slice(s, e)} lies in applyDiscount`);
    assert.ok(change.revert);
    assert.equal(applyEdits(patched, change.revert), BASE);
    const m = mutateTs(
      patched,
      {
        symbol: 'src/pricing.ts::<module>',
        path: 'src/pricing.ts',
        startLine: 1,
        endLine: patched.split('\n').length,
        changedLines: [[1, patched.split('\n').length]],
      },
      change,
    );
    assert.ok(m.candidates.length > 0);
    for (const c of m.candidates)
      assert.ok(
        ownEdits(c.edits, m.noise).every((e) => e.start > fnEnd),
        `${c.description} is on the module's own new statements`,
      );
    assert.match(m.probe.description, /file loads/);
  });

  it('a <module> change beside an added function: the revert drops the module statements and keeps the function', async () => {
    const patched = `${BASE}\nfunction halfAway(x: number): number {\n  return x < 0 ? -native(-x) : native(x);\n}\nconst native = Math.round;\nObject.defineProperty(Math, 'round', { value: halfAway });\n`;
    const { change } = await changeOf('typescript', 'src/pricing.ts', BASE, patched, '<module>');
    assert.ok(change.revert, change.noRevert);
    const reverted = applyEdits(patched, change.revert);
    assert.ok(reverted.includes('function halfAway'), reverted);
    assert.ok(!reverted.includes('defineProperty') && !reverted.includes('const native'), reverted);
  });

  it('only comments or layout changed: no token changed, no revert', async () => {
    const patched = BASE.replace(
      '  return Math.round((amountCents * rateBasisPoints) / 10_000);',
      '  // a note\n  return Math.round(\n    (amountCents * rateBasisPoints) / 10_000\n  );',
    );
    const { change } = await changeOf('typescript', 'src/pricing.ts', BASE, patched, 'taxCents');
    assert.equal(change.revert, null);
    assert.match(change.noRevert ?? '', /comments or layout/);
  });

  it('a body the patch rewrote whole: the base version carries its own null changes, so there is still a revert', async () => {
    // more-itertools d992be0 rewrote _windowed_running_min this way (a comment first, the local
    // renamed): every null change fell inside what the revert puts back, and there was no revert.
    const noise = { word: 'kvorlixa', suffix: 'qmztbw', fill: 'pldwenvo' };
    const cases = [
      [
        'python',
        'm.py',
        'def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n    return out\n',
        'def f(xs):\n    # newest first\n    res = []\n    for x in xs:\n        res.insert(0, x)\n    return res\n',
        '.append(x)',
        'res.insert',
      ],
      [
        'typescript',
        'src/m.ts',
        'export function f(xs: number[]): number[] {\n  const out: number[] = [];\n  for (const x of xs) out.push(x);\n  return out;\n}\n',
        'export function f(xs: number[]): number[] {\n  // newest first\n  const res: number[] = [];\n  for (const x of xs) res.unshift(x);\n  return res;\n}\n',
        '.push(x)',
        'res.unshift',
      ],
    ] as const;
    for (const [lang, path, base, patched, baseBit, patchBit] of cases) {
      const { change } = await changeOf(lang, path, base, patched, 'f');
      assert.ok(change.revert, `${lang}: ${change.noRevert}`);
      const span = {
        symbol: `${path}::f`,
        path,
        startLine: 1,
        endLine: patched.split('\n').length - 1,
        changedLines: [[2, patched.split('\n').length - 2]] as [number, number][],
      };
      const m =
        lang === 'python' ? await mutatePy(patched, span, change, noise) : mutateTs(patched, span, change, noise);
      // In Python the null's changes go before the first statement, inside what the revert puts back; TS puts them after the body's brace, so camouflage carries them there.
      if (lang === 'python')
        assert.equal(
          camouflage(revertMutant(span, change.revert), m.noise, patched),
          null,
          `${lang}: the null's changes fall inside what the revert puts back`,
        );
      else assert.ok(camouflage(revertMutant(span, change.revert), m.noise, patched), lang);
      const r = await ownNoiseRevert(patched, span, change.revert, lang, noise);
      assert.ok(r, lang);
      const out = applyEdits(patched, r.edits);
      assert.ok(out.includes(baseBit) && !out.includes(patchBit), `${lang}: the base version is back:\n${out}`);
      assert.ok(out.includes(noise.word), `${lang}: with the null's comment word:\n${out}`);
      // What it puts back is the reverted file plus the null changes the mutator makes on it.
      const reverted = applyEdits(patched, change.revert);
      const onBase =
        lang === 'python'
          ? await mutatePy(reverted, { ...span, endLine: reverted.split('\n').length - 1 }, undefined, noise)
          : mutateTs(reverted, { ...span, endLine: reverted.split('\n').length - 1 }, undefined, noise);
      assert.equal(out, applyEdits(reverted, onBase.nulls[0]?.edits ?? []), lang);
    }
  });

  it('Python: a modified function gets mutants on its changed tokens and a revert', async () => {
    const base = 'def tax(a, r):\n    return round(a * r / 10000)\n\n\ndef other(x):\n    return x + 1\n';
    const patched =
      'def tax(a, r):\n    exact = abs(a) * r / 10000\n    return (1 if a >= 0 else -1) * round(exact)\n\n\ndef other(x):\n    return x + 1\n';
    const { change } = await changeOf('python', 'm.py', base, patched, 'tax');
    assert.ok(change.revert);
    assert.equal(applyEdits(patched, change.revert), base);
    const m = await mutatePy(
      patched,
      { symbol: 'm.py::tax', path: 'm.py', startLine: 1, endLine: 3, changedLines: [[2, 3]] },
      change,
    );
    assert.ok(m.candidates.length > 0);
    for (const c of m.candidates) assert.ok(touchesChange(change.changed, ownEdits(c.edits, m.noise)), c.description);
    assert.ok(
      !m.candidates.some((c) => c.description.includes('10000 -> 10001')),
      'the unchanged divisor is not mutated',
    );
  });
});

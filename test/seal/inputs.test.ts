import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import {
  checkClock,
  checkFixtureName,
  checkLocale,
  checkSeed,
  compareBytewise,
  diffInputs,
  digestOfInputs,
  toInputsText,
} from '../../src/seal/inputs.js';

const LONE = /[\uD800-\uDFFF]/u;
const BOUND = { tree: 'a'.repeat(40), policy: 'default' };
const h = (s: string): string => createHash('sha256').update(s).digest('hex');

test('inputs.sha256 is sha256sum lines sorted bytewise, then seed, clock, locale, tree and policy lines', () => {
  const text = toInputsText(
    [
      { path: 'fixtures/b.json', sha256: h('b') },
      { path: 'fixtures/B.json', sha256: h('B') },
      { path: 'fixtures/a.json', sha256: h('a') },
    ],
    { seed: '42', clock: 'frozen', locale: 'C.UTF-8' },
    BOUND,
  );
  assert.equal(
    text,
    `${h('B')}  fixtures/B.json\n${h('a')}  fixtures/a.json\n${h('b')}  fixtures/b.json\nseed=42\nclock=frozen\nlocale=C.UTF-8\ntree=${'a'.repeat(40)}\npolicy=default\n`,
  );
  assert.equal(digestOfInputs(text), h(text));
});

test('bytewise order is UTF-8 byte order (LC_ALL=C sort), also around surrogate pairs', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
      const expected = Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
      // Lone surrogates have no UTF-8 form (they encode as U+FFFD); compare only well-formed strings.
      fc.pre(!LONE.test(a) && !LONE.test(b));
      assert.equal(Math.sign(compareBytewise(a, b)), expected);
    }),
    { numRuns: 2000 },
  );
  assert.ok(compareBytewise('\u{ffff}', '\u{10000}') < 0);
  assert.ok(compareBytewise('\u{e000}', '\u{10000}') < 0);
  assert.ok(compareBytewise('Z', 'a') < 0);
});

test('seed, clock and locale values that would forge or blur a line are refused', () => {
  const table: [string, string | undefined][] = [
    ['42', undefined],
    ['any printable seed: ünï/çødé', undefined],
    ['', 'the seed is empty'],
    ['4\n2', 'control character'],
    ['42\nclock=live', 'control character'],
    ['4\r', 'control character'],
    ['x'.repeat(1025), 'longer than 1024'],
  ];
  for (const [seed, problem] of table) {
    const got = checkSeed(seed);
    if (problem === undefined) assert.equal(got, undefined, seed);
    else assert.match(got ?? '', new RegExp(problem), JSON.stringify(seed));
  }
  for (const ok of ['frozen', 'live', 'frozen:2026-10-12T12:00:00Z', 'frozen:2026-10-12T12:00:00+02:00'])
    assert.equal(checkClock(ok), undefined, ok);
  for (const bad of ['', 'Frozen', 'frozen:', 'frozen:2026-10-12 12:00', 'frozen:2026-13-01T00:00:00Z', 'system'])
    assert.notEqual(checkClock(bad), undefined, bad);
  for (const ok of ['C', 'C.UTF-8', 'en_US.UTF-8', 'de_DE@euro', 'POSIX']) assert.equal(checkLocale(ok), undefined, ok);
  for (const bad of ['', 'C UTF-8', 'C.UTF-8\n', 'x'.repeat(65), 'en/US'])
    assert.notEqual(checkLocale(bad), undefined, bad);
});

test('file names a sha256sum line cannot carry are refused', () => {
  assert.equal(checkFixtureName('fixtures/ok name (1).json'), undefined);
  assert.equal(checkFixtureName('fixtures/ünïcødé.json'), undefined);
  assert.match(checkFixtureName('fixtures/a\nb.json') ?? '', /newline/);
  assert.match(checkFixtureName('fixtures/a\\b.json') ?? '', /backslash/);
  assert.match(checkFixtureName('fixtures/a\rb.json') ?? '', /control/);
  assert.match(checkFixtureName('fixtures/a\u0001b.json') ?? '', /control/);
  assert.match(checkFixtureName('fixtures/\ufffd.json') ?? '', /UTF-8/);
});

test('diffInputs names removed and added lines, grouped by path', () => {
  const a = `${h('1')}  f/a\n${h('2')}  f/b\nseed=1\nclock=frozen\nlocale=C\n`;
  const b = `${h('1')}  f/a\n${h('3')}  f/b\n${h('4')}  f/c\nseed=1\nclock=frozen\nlocale=C\n`;
  assert.deepEqual(diffInputs(a, b), [`- ${h('2')}  f/b`, `+ ${h('3')}  f/b`, `+ ${h('4')}  f/c`]);
  assert.deepEqual(diffInputs(a, a), []);
});

test('property: the digest changes with any line content and never for reordered input', () => {
  const file = fc.record({
    path: fc.stringMatching(/^[a-z]{1,6}(\/[a-z]{1,6}){0,2}\.json$/),
    sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
  });
  fc.assert(
    fc.property(
      fc.uniqueArray(file, { selector: (f) => f.path, minLength: 1, maxLength: 8 }),
      fc.string({ minLength: 1, maxLength: 8 }).filter((s) => checkSeed(s) === undefined),
      (files, seed) => {
        const inputs = { seed, clock: 'frozen', locale: 'C.UTF-8' };
        const d = digestOfInputs(toInputsText(files, inputs, BOUND));
        assert.equal(digestOfInputs(toInputsText([...files].reverse(), inputs, BOUND)), d);
        assert.notEqual(digestOfInputs(toInputsText(files, { ...inputs, seed: seed + 'x' }, BOUND)), d);
        assert.notEqual(digestOfInputs(toInputsText(files, { ...inputs, clock: 'live' }, BOUND)), d);
        assert.notEqual(digestOfInputs(toInputsText(files, { ...inputs, locale: 'C' }, BOUND)), d);
        assert.notEqual(digestOfInputs(toInputsText(files, inputs, { ...BOUND, tree: 'b'.repeat(40) })), d);
        assert.notEqual(digestOfInputs(toInputsText(files, inputs, { ...BOUND, policy: 'c'.repeat(64) })), d);
        const [first, ...rest] = files;
        if (first) {
          const flipped = { ...first, sha256: (first.sha256.startsWith('0') ? '1' : '0') + first.sha256.slice(1) };
          assert.notEqual(digestOfInputs(toInputsText([flipped, ...rest], inputs, BOUND)), d);
        }
      },
    ),
    { numRuns: 300 },
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { decodeDocument, decodeStrictUtf8, jsonVisible } from '../../src/core/text.js';

// The reference: the WHATWG decoder in fatal mode, which the check replaced.
const reference = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const strict = (bytes: Uint8Array): string | null => {
  try {
    return reference.decode(bytes);
  } catch {
    return null;
  }
};

test('hostile byte sequences are refused as not UTF-8, each with the same reason', () => {
  const cases: [string, number[]][] = [
    ['overlong "/"', [0xc0, 0xaf]],
    ['overlong NUL', [0xc0, 0x80]],
    ['overlong three-byte', [0xe0, 0x80, 0xaf]],
    ['UTF-16 surrogate half (CESU-8)', [0xed, 0xa0, 0x80]],
    ['past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['a five-byte form', [0xf8, 0x88, 0x80, 0x80, 0x80]],
    ['a lone continuation byte', [0x61, 0x80, 0x62]],
    ['cut inside a sequence', [0x61, 0xe2, 0x82]],
    ['0xff', [0xff]],
  ];
  for (const [what, bytes] of cases) {
    const r = decodeStrictUtf8(Uint8Array.from(bytes));
    assert.deepEqual(r, { problem: 'utf8', detail: 'is not valid UTF-8' }, what);
    assert.equal(strict(Uint8Array.from(bytes)), null, `${what}: the reference refuses it too`);
  }
});

test('a BOM, a NUL and an empty file each have their own reason; valid text comes back whole', () => {
  assert.equal((decodeStrictUtf8(Uint8Array.from([0xef, 0xbb, 0xbf, 0x61])) as { problem: string }).problem, 'bom');
  assert.equal((decodeStrictUtf8(Buffer.from('a\u0000b')) as { problem: string }).problem, 'nul');
  assert.equal((decodeStrictUtf8(new Uint8Array(0)) as { problem: string }).problem, 'empty');
  assert.deepEqual(decodeStrictUtf8(Buffer.from('prix: 12 €, 𝄞\n')), { text: 'prix: 12 €, 𝄞\n' });
  // A view into a larger buffer decodes only its own bytes.
  const big = Buffer.from('xx{"a":1}\nyy');
  assert.deepEqual(decodeDocument(big.subarray(2, 10), 'json'), { text: '{"a":1}\n' });
});

test('property: on any bytes the check agrees with a fatal TextDecoder (refusal, or the same text)', () => {
  // Bytes biased toward UTF-8 lead and continuation bytes, so most cases sit near the boundary.
  const byte = fc.oneof(
    fc.integer({ min: 0, max: 255 }),
    fc.integer({ min: 0x80, max: 0xbf }),
    fc.integer({ min: 0xc0, max: 0xf7 }),
    fc.integer({ min: 0x20, max: 0x7e }),
  );
  fc.assert(
    fc.property(fc.array(byte, { minLength: 1, maxLength: 40 }), (arr) => {
      const bytes = Uint8Array.from(arr);
      const r = decodeStrictUtf8(bytes);
      const want = strict(bytes);
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'problem' in r && r.problem === 'bom';
      if (want === null) return 'problem' in r && r.problem === 'utf8';
      if (want.includes('\u0000')) return 'problem' in r && r.problem === 'nul';
      return 'text' in r && r.text === want;
    }),
    { numRuns: 3000, seed: 20261202 },
  );
  // And on any valid string (every code point, astral ones included), the text comes back.
  fc.assert(
    fc.property(fc.string({ unit: 'binary', minLength: 1 }), (s) => {
      const r = decodeStrictUtf8(Buffer.from(s, 'utf8'));
      const want = Buffer.from(s, 'utf8').toString('utf8');
      return want.includes('\u0000') || want.startsWith('\ufeff') ? 'problem' in r : 'text' in r && r.text === want;
    }),
    { numRuns: 1000, seed: 7 },
  );
});

test('jsonVisible: property: the text parses to the same value and shows no character a viewer would act on instead of showing', () => {
  const hostile = fc.constantFrom(
    '\u202e',
    '\u2066',
    '\u2069',
    '\u200b',
    '\u2028',
    '\u2029',
    '\u0085',
    '\u009b',
    '\u007f',
    '\ufeff',
    '\u061c',
    'a',
    '"',
    '\\',
    '\n',
    '\u001b',
  );
  const str = fc.oneof(
    fc.string(),
    fc.array(hostile, { maxLength: 12 }).map((xs) => xs.join('')),
  );
  const value = fc.letrec((tie) => ({
    v: fc.oneof(
      { depthSize: 'small' },
      str,
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('v'), { maxLength: 4 }),
      fc.dictionary(str, tie('v'), { maxKeys: 4 }),
    ),
  })).v;
  fc.assert(
    fc.property(value, (v) => {
      const raw = JSON.stringify(v, null, 2);
      const text = jsonVisible(raw);
      assert.deepEqual(JSON.parse(text), JSON.parse(raw));
      // Outside the line breaks between tokens, nothing the escaping covers is left raw.
      assert.doesNotMatch(
        text.replace(/\n/g, ''),
        // eslint-disable-next-line no-control-regex
        /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u2028\u2029\ufeff]/,
      );
    }),
    { numRuns: 500 },
  );
});

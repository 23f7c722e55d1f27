import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { SMALL_INPUT, sha256Hex, sha256HexJs } from '../../src/core/sha256.js';
import { digestsEqual } from '../../src/core/ids.js';

const reference = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

test('the JavaScript SHA-256 gives the FIPS 180-4 test vectors', () => {
  assert.equal(sha256HexJs(Buffer.from('')), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(sha256HexJs(Buffer.from('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(
    sha256HexJs(Buffer.from('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')),
    '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  );
  assert.equal(
    sha256HexJs(Buffer.alloc(1_000_000, 'a')),
    'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0',
  );
});

test('it agrees with node:crypto at every length across the padding and block boundaries', () => {
  // 55/56 (the length no longer fits the last block), 63/64/65, and several blocks.
  for (let n = 0; n <= 300; n++) {
    const bytes = Buffer.alloc(n);
    for (let i = 0; i < n; i++) bytes[i] = (i * 131 + n * 7) & 0xff;
    assert.equal(sha256HexJs(bytes), reference(bytes), `length ${n}`);
  }
});

test('property: on any bytes, both paths of sha256Hex (JavaScript up to SMALL_INPUT, node:crypto above) equal node:crypto', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
      assert.equal(sha256HexJs(bytes), reference(bytes));
      assert.equal(sha256Hex(bytes), reference(bytes));
    }),
    { numRuns: 300 },
  );
  for (const n of [SMALL_INPUT - 1, SMALL_INPUT, SMALL_INPUT + 1, 3 * SMALL_INPUT]) {
    const bytes = Buffer.alloc(n, n & 0xff);
    assert.equal(sha256Hex(bytes), reference(bytes), `length ${n}`);
  }
});

test('property: a string is hashed as its UTF-8 bytes, like node:crypto', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 200 }), (s) => assert.equal(sha256Hex(s), reference(s))),
    { numRuns: 200 },
  );
  assert.equal(sha256Hex('\u{1F600}é'), reference(Buffer.from('\u{1F600}é', 'utf8')));
});

test('property: digestsEqual is string equality, including strings that differ only in length or at the end', () => {
  fc.assert(
    fc.property(fc.string(), fc.string(), (a, b) => {
      assert.equal(digestsEqual(a, b), a === b);
      assert.equal(digestsEqual(a, a), true);
      assert.equal(digestsEqual(a, `${a}\u0000`), false);
    }),
  );
  assert.equal(digestsEqual('abc', 'abd'), false);
  assert.equal(digestsEqual('', ''), true);
});

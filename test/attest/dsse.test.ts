import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, createPublicKey } from 'node:crypto';
import fc from 'fast-check';
import { decodeBase64Strict } from '../../src/core/text.js';
import { parseEnvelope, preAuthEncoding, toEnvelopeText, IN_TOTO_PAYLOAD_TYPE } from '../../src/attest/dsse.js';
import { generateKeyPairPem, keyIdOf, parsePrivateKeyPem, parsePublicKeyPem } from '../../src/core/keys.js';
import { signPayload, toPayload, verifyEnvelope } from '../../src/attest/sign.js';
import { checkSubjects, checkTrustRoles } from '../../src/attest/check.js';

const pair = () => {
  const p = generateKeyPairPem();
  const key = parsePrivateKeyPem(p.privatePem);
  if ('problem' in key) throw new Error(key.problem);
  return { ...p, key, trusted: { keyId: p.keyId, pem: p.publicPem } };
};

test('PAE: the DSSE spec example, lengths in bytes not characters', () => {
  assert.equal(
    preAuthEncoding('http://example.com/HelloWorld', Buffer.from('hello world')).toString(),
    'DSSEv1 29 http://example.com/HelloWorld 11 hello world',
  );
  assert.equal(preAuthEncoding('t', Buffer.from('é', 'utf8')).toString('utf8'), 'DSSEv1 1 t 2 é');
  assert.equal(preAuthEncoding('', Buffer.alloc(0)).toString(), 'DSSEv1 0  0 ');
});

test('PAE is injective: distinct (type, body) pairs never encode alike', () => {
  fc.assert(
    fc.property(fc.string(), fc.uint8Array(), fc.string(), fc.uint8Array(), (t1, b1, t2, b2) => {
      fc.pre(t1 !== t2 || Buffer.compare(Buffer.from(b1), Buffer.from(b2)) !== 0);
      return !preAuthEncoding(t1, b1).equals(preAuthEncoding(t2, b2));
    }),
  );
});

test('base64: canonical standard alphabet with padding only', () => {
  assert.deepEqual(decodeBase64Strict('aGk='), Buffer.from('hi'));
  assert.deepEqual(decodeBase64Strict(''), Buffer.alloc(0));
  for (const bad of ['aGk', 'aGl=', 'aGk=\n', ' aGk=', 'a-_=', 'aG k=', 'aGk==', '====', 'aGk=aGk='])
    assert.equal(decodeBase64Strict(bad), null, bad);
  fc.assert(
    fc.property(fc.uint8Array(), (b) =>
      Buffer.from(b).equals(decodeBase64Strict(Buffer.from(b).toString('base64')) ?? Buffer.from('x')),
    ),
  );
});

test('keys: key id is sha256 of the SPKI DER; private PEMs are not public keys; RSA refused', () => {
  const p = pair();
  assert.match(p.keyId, /^sha256:[0-9a-f]{64}$/);
  const pub = parsePublicKeyPem(p.publicPem);
  assert.ok(!('problem' in pub));
  assert.equal(pub.keyId, p.keyId);
  assert.equal(keyIdOf(createPublicKey(p.publicPem)), p.keyId);
  assert.ok(
    'problem' in parsePublicKeyPem(p.privatePem),
    'a private key in the trust list must not pass as its public key',
  );
  assert.ok('problem' in parsePublicKeyPem('garbage'));
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
  assert.match(
    (parsePublicKeyPem(rsa.publicKey.export({ type: 'spki', format: 'pem' }).toString()) as { problem: string })
      .problem,
    /Ed25519/,
  );
  assert.match(
    (parsePrivateKeyPem(rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()) as { problem: string })
      .problem,
    /Ed25519/,
  );
  assert.ok('problem' in parsePrivateKeyPem(p.publicPem));
  for (const kind of ['ec', 'ed448', 'x25519'] as const) {
    const k = kind === 'ec' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync(kind as 'ed448');
    assert.match(
      (parsePublicKeyPem(k.publicKey.export({ type: 'spki', format: 'pem' }).toString()) as { problem: string })
        .problem,
      new RegExp(`an ${kind} key; sealgate signs with Ed25519 only`),
    );
  }
});

test('keys: the PEM reader (no node:crypto) agrees with node:crypto; whatever it accepts, node reads as that Ed25519 key', () => {
  // Real keys: the same DER and key id as node:crypto's export.
  for (let i = 0; i < 20; i++) {
    const { publicKey } = generateKeyPairSync('ed25519');
    const r = parsePublicKeyPem(publicKey.export({ type: 'spki', format: 'pem' }).toString());
    assert.ok(!('problem' in r));
    assert.ok(r.der.equals(publicKey.export({ type: 'spki', format: 'der' })));
    assert.equal(r.keyId, keyIdOf(publicKey));
  }
  // Hostile PEMs: one byte of the DER changed, cut or extended, a character of the text
  // changed. Never accepted unless node:crypto reads the very same DER as an Ed25519 key.
  const base = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'der' });
  const toPem = (der: Uint8Array): string =>
    `-----BEGIN PUBLIC KEY-----\n${Buffer.from(der).toString('base64')}\n-----END PUBLIC KEY-----\n`;
  const soundFor = (pem: string): boolean => {
    const r = parsePublicKeyPem(pem);
    if ('problem' in r) return true;
    const k = createPublicKey({ key: pem, format: 'pem' });
    return k.asymmetricKeyType === 'ed25519' && k.export({ type: 'spki', format: 'der' }).equals(r.der);
  };
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: base.length - 1 }),
      fc.integer({ min: 0, max: 255 }),
      fc.integer({ min: -3, max: 3 }),
      (at, byte, grow) => {
        const der = Buffer.from(base);
        der[at] = byte;
        const sized = grow >= 0 ? Buffer.concat([der, Buffer.alloc(grow)]) : der.subarray(0, der.length + grow);
        const r = parsePublicKeyPem(toPem(sized));
        // Only the 32 key bytes may change and still be read, and then only at the right length.
        if (!('problem' in r)) assert.ok(grow === 0 && (at >= 12 || byte === base[at]));
        return soundFor(toPem(sized));
      },
    ),
    { numRuns: 300 },
  );
  const text = toPem(base);
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: text.length - 1 }),
      fc.constantFrom('A', '/', '+', '=', '\r', ' ', '-', 'z'),
      (at, c) => soundFor(text.slice(0, at) + c + text.slice(at + 1)),
    ),
    { numRuns: 300 },
  );
});

test('sign then verify: the trusted key verifies; another key, a changed payload or type, a cut signature do not', () => {
  const a = pair();
  const b = pair();
  const env = signPayload(toPayload({ hello: 'world' }), a.key);
  const okCheck = verifyEnvelope(env, [a.trusted]);
  assert.equal(okCheck.ok, true);
  assert.equal(okCheck.keyId, a.keyId);
  assert.match((verifyEnvelope(env, [b.trusted]) as { problem: string }).problem, /not among the trusted keys/);
  // b's key listed under a's id: the id only picks the key, the signature decides.
  assert.equal(verifyEnvelope(env, [{ keyId: a.keyId, pem: b.publicPem }]).ok, false);
  const tampered = { ...env, payload: toPayload({ hello: 'World' }).toString('base64') };
  assert.equal(verifyEnvelope(tampered, [a.trusted]).ok, false);
  const sig = env.signatures[0]!;
  const cut = {
    ...env,
    signatures: [{ ...sig, sig: Buffer.from(sig.sig, 'base64').subarray(0, 63).toString('base64') }],
  };
  assert.equal(verifyEnvelope(cut, [a.trusted]).ok, false);
  // The same bytes under another payload type are another message (PAE binds the type).
  const retyped = { ...env, payloadType: 'application/json' } as unknown as typeof env;
  assert.equal(verifyEnvelope(retyped, [a.trusted]).ok, false);
  assert.equal(createPublicKey(a.publicPem).asymmetricKeyType, 'ed25519');
});

test('parseEnvelope: strict JSON, strict schema, exactly one signature', () => {
  const a = pair();
  const env = signPayload(toPayload({ x: 1 }), a.key);
  const text = toEnvelopeText(env);
  assert.equal(parseEnvelope(Buffer.from(text), 'e').ok, true);
  const sig = env.signatures[0]!;
  const cases: [string, string][] = [
    ['duplicate key', text.replace('"payloadType"', `"payload": "${env.payload}",\n  "payloadType"`)],
    ['unknown key', text.replace('"payloadType"', '"extra": 1,\n  "payloadType"')],
    ['two signatures', JSON.stringify({ ...env, signatures: [sig, sig] }) + '\n'],
    ['no signature', JSON.stringify({ ...env, signatures: [] }) + '\n'],
    ['other payload type', JSON.stringify({ ...env, payloadType: 'text/plain' }) + '\n'],
    [
      'url-safe base64',
      JSON.stringify({
        ...env,
        payload:
          env.payload.replace(/\+/g, '-').replace(/\//g, '_') +
          (env.payload.includes('+') || env.payload.includes('/') ? '' : '-'),
      }) + '\n',
    ],
    ['key id not sha256', JSON.stringify({ ...env, signatures: [{ ...sig, keyid: 'abc' }] }) + '\n'],
    ['signature extra field', JSON.stringify({ ...env, signatures: [{ ...sig, cert: '' }] }) + '\n'],
    ['truncated', text.slice(0, text.length - 5)],
    ['trailing garbage', text + '{}'],
    ['BOM', '\ufeff' + text],
    ['not JSON', 'DSSEv1'],
  ];
  for (const [name, t] of cases) {
    const r = parseEnvelope(Buffer.from(t), 'e');
    assert.equal(r.ok, false, name);
    if (!r.ok)
      assert.ok(
        r.findings.every((f) => f.code === 'E_SIGNATURE_INVALID'),
        name,
      );
  }
  assert.equal(parseEnvelope(Buffer.alloc(5 * 1024 * 1024, 32), 'e').ok, false, 'oversized');
});

test('checkSubjects: equal sets only; missing, extra and changed files each named', () => {
  const s = (name: string, sha: string) => ({ name, digest: { sha256: sha } });
  const A = 'a'.repeat(64);
  const B = 'b'.repeat(64);
  assert.deepEqual(
    checkSubjects(
      [s('x', A), s('y', B)],
      new Map([
        ['x', A],
        ['y', B],
      ]),
      'att',
    ),
    [],
  );
  const f = checkSubjects(
    [s('x', A), s('gone', B)],
    new Map([
      ['x', B],
      ['new', A],
    ]),
    'att',
  );
  assert.deepEqual(f.map((x) => x.path).sort(), ['gone', 'new', 'x']);
  assert.ok(f.every((x) => x.code === 'E_SIGNATURE_INVALID'));
});

test('checkTrustRoles: one key for both roles is refused', () => {
  const a = pair();
  const b = pair();
  assert.deepEqual(checkTrustRoles({ runnerKeys: [a.trusted], reviewerKeys: [b.trusted] }), []);
  assert.equal(
    checkTrustRoles({ runnerKeys: [a.trusted], reviewerKeys: [b.trusted, a.trusted] })[0]?.code,
    'E_SIGNATURE_INVALID',
  );
  assert.equal(IN_TOTO_PAYLOAD_TYPE, 'application/vnd.in-toto+json');
});

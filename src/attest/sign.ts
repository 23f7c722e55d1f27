import type { KeyObject } from 'node:crypto';
import { crypto } from '../core/builtins.js';
import { decodeBase64Strict } from '../core/text.js';
import { IN_TOTO_PAYLOAD_TYPE, preAuthEncoding, type Envelope } from './dsse.js';
import { keyIdOf, parsePublicKeyPem } from '../core/keys.js';

/** Sign and check DSSE envelopes with Ed25519 keys. Pure over bytes and keys. */

/** The statement as the payload: compact JSON, one trailing newline, so `base64 -d | jq` reads it. */
export function toPayload(statement: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(statement)}\n`, 'utf8');
}

export function signPayload(payload: Uint8Array, privateKey: KeyObject): Envelope {
  const sig = crypto().sign(null, preAuthEncoding(IN_TOTO_PAYLOAD_TYPE, payload), privateKey);
  return {
    payloadType: IN_TOTO_PAYLOAD_TYPE,
    payload: Buffer.from(payload).toString('base64'),
    signatures: [{ keyid: keyIdOf(crypto().createPublicKey(privateKey)), sig: sig.toString('base64') }],
  };
}

/** A public key the policy trusts, with its key id. */
export interface TrustedKey {
  readonly keyId: string;
  readonly pem: string;
}

export type SignatureCheck =
  | { readonly ok: true; readonly keyId: string; readonly payload: Buffer }
  | { readonly ok: false; readonly keyId: string; readonly problem: string };

/**
 * Check the envelope's one signature against the keys given. The key id in the envelope
 * only picks the key: the signature over the PAE is what is checked, with that key.
 */
export function verifyEnvelope(envelope: Envelope, keys: readonly TrustedKey[]): SignatureCheck {
  const [s] = envelope.signatures;
  if (s === undefined || envelope.signatures.length !== 1)
    return { ok: false, keyId: '', problem: 'an envelope carries exactly one signature' };
  const payload = decodeBase64Strict(envelope.payload);
  const sig = decodeBase64Strict(s.sig);
  if (payload === null || sig === null)
    return { ok: false, keyId: s.keyid, problem: 'payload or signature is not canonical base64' };
  const trusted = keys.find((k) => k.keyId === s.keyid);
  if (trusted === undefined)
    return { ok: false, keyId: s.keyid, problem: `signed by key ${s.keyid}, which is not among the trusted keys` };
  const spki = parsePublicKeyPem(trusted.pem);
  if ('problem' in spki || spki.keyId !== trusted.keyId)
    return { ok: false, keyId: s.keyid, problem: `the trusted key's id is not ${s.keyid}` };
  let good: boolean;
  try {
    const key = crypto().createPublicKey({ key: spki.der, format: 'der', type: 'spki' });
    good =
      sig.length === 64 &&
      key.asymmetricKeyType === 'ed25519' &&
      crypto().verify(null, preAuthEncoding(envelope.payloadType, payload), key, sig);
  } catch {
    good = false;
  }
  return good
    ? { ok: true, keyId: s.keyid, payload }
    : { ok: false, keyId: s.keyid, problem: `the signature by ${s.keyid} does not verify over the payload` };
}

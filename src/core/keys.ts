import type { KeyObject } from 'node:crypto';
import { crypto } from './builtins.js';
import { sha256Hex } from './sha256.js';
import { decodeBase64Strict } from './text.js';

/** Ed25519 keys: PEM in, KeyObject and key id out. Pure (no files: src/cli reads them). */

/** `sha256:` + SHA-256 of the SubjectPublicKeyInfo DER: what `openssl pkey -pubin -outform DER | sha256sum` gives. */
export function keyIdOf(publicKey: KeyObject): string {
  return keyIdOfDer(publicKey.export({ type: 'spki', format: 'der' }));
}

export function keyIdOfDer(der: Uint8Array): string {
  return `sha256:${sha256Hex(der)}`;
}

/**
 * Every Ed25519 SubjectPublicKeyInfo in DER (RFC 8410) is these 12 bytes and the 32-byte key:
 * SEQUENCE(42) { SEQUENCE(5) { OID 1.3.101.112 } BIT STRING(33, no unused bits) }. There is
 * no other encoding of it (DER is canonical), so the check is a byte comparison.
 */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_SPKI_BYTES = ED25519_SPKI_PREFIX.length + 32;

/** Other algorithms' object identifiers (DER), to say which key it is instead. */
const OTHER_KEYS: readonly (readonly [string, Buffer])[] = [
  ['rsa', Buffer.from('06092a864886f70d010101', 'hex')],
  ['rsa-pss', Buffer.from('06092a864886f70d01010a', 'hex')],
  ['ec', Buffer.from('06072a8648ce3d0201', 'hex')],
  ['ed448', Buffer.from('06032b6571', 'hex')],
  ['x25519', Buffer.from('06032b656e', 'hex')],
  ['x448', Buffer.from('06032b656f', 'hex')],
  ['dsa', Buffer.from('06072a8648ce380401', 'hex')],
];

const PEM_PUBLIC = /^-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END PUBLIC KEY-----\r?\n?$/;

/** An Ed25519 public key as the policy names it: its SPKI DER and key id. */
export interface PublicKeyDer {
  readonly der: Buffer;
  readonly keyId: string;
}

/**
 * An SPKI PEM Ed25519 public key, or why not. Read without node:crypto (whose load is
 * a tenth of a `gate`): the armour, canonical base64, and the one DER an Ed25519 key has.
 * Anything else is refused, including encodings OpenSSL would still accept (fail closed).
 * The key bytes are checked for real only where a signature is verified (node:crypto).
 */
export function parsePublicKeyPem(pem: string): PublicKeyDer | { problem: string } {
  const m = PEM_PUBLIC.exec(pem.trim() + '\n');
  if (m === null) return { problem: 'not a PEM public key (-----BEGIN PUBLIC KEY-----)' };
  const body = (m[1] as string).replace(/\r?\n/g, '');
  const der = decodeBase64Strict(body);
  if (der === null) return { problem: 'not a readable public key (its base64 is not canonical)' };
  if (der.length === ED25519_SPKI_BYTES && der.subarray(0, ED25519_SPKI_PREFIX.length).equals(ED25519_SPKI_PREFIX))
    return { der, keyId: keyIdOfDer(der) };
  const other = der[0] === 0x30 ? OTHER_KEYS.find(([, oid]) => der.subarray(0, 32).includes(oid)) : undefined;
  if (other !== undefined) return { problem: `an ${other[0]} key; sealgate signs with Ed25519 only` };
  return { problem: 'not a readable public key (not the SubjectPublicKeyInfo of an Ed25519 key)' };
}

/** A PKCS#8 PEM Ed25519 private key (unencrypted), or why not. The error text never quotes the key. */
export function parsePrivateKeyPem(pem: string): KeyObject | { problem: string } {
  if (!pem.includes('-----BEGIN PRIVATE KEY-----'))
    return { problem: 'not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----)' };
  let key: KeyObject;
  try {
    key = crypto().createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return { problem: 'not a readable PKCS#8 private key' };
  }
  if (key.asymmetricKeyType !== 'ed25519')
    return { problem: `an ${key.asymmetricKeyType ?? 'unknown'} key; sealgate signs with Ed25519 only` };
  return key;
}

export interface KeyPairPem {
  readonly privatePem: string;
  readonly publicPem: string;
  readonly keyId: string;
}

export function generateKeyPairPem(): KeyPairPem {
  const { privateKey, publicKey } = crypto().generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    keyId: keyIdOf(publicKey),
  };
}

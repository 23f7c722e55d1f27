import type { KeyObject } from 'node:crypto';
import { crypto } from '../core/builtins.js';
import { sha256Hex } from '../core/sha256.js';

/** Ed25519 keys: PEM in, KeyObject and key id out. Pure (no files: src/cli reads them). */

/** `sha256:` + SHA-256 of the SubjectPublicKeyInfo DER: what `openssl pkey -pubin -outform DER | sha256sum` gives. */
export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return `sha256:${sha256Hex(der)}`;
}

/** An SPKI PEM Ed25519 public key, or why not. */
export function parsePublicKeyPem(pem: string): KeyObject | { problem: string } {
  if (!/^-----BEGIN PUBLIC KEY-----\r?\n[A-Za-z0-9+/=\r\n]+-----END PUBLIC KEY-----\r?\n?$/.test(pem.trim() + '\n')) return { problem: 'not a PEM public key (-----BEGIN PUBLIC KEY-----)' };
  let key: KeyObject;
  try {
    key = crypto().createPublicKey({ key: pem, format: 'pem' });
  } catch (err) {
    return { problem: `not a readable public key (${(err as Error).message})` };
  }
  if (key.asymmetricKeyType !== 'ed25519') return { problem: `an ${key.asymmetricKeyType ?? 'unknown'} key; sealgate signs with Ed25519 only` };
  return key;
}

/** A PKCS#8 PEM Ed25519 private key (unencrypted), or why not. The error text never quotes the key. */
export function parsePrivateKeyPem(pem: string): KeyObject | { problem: string } {
  if (!pem.includes('-----BEGIN PRIVATE KEY-----')) return { problem: 'not a PKCS#8 PEM private key (-----BEGIN PRIVATE KEY-----)' };
  let key: KeyObject;
  try {
    key = crypto().createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    return { problem: 'not a readable PKCS#8 private key' };
  }
  if (key.asymmetricKeyType !== 'ed25519') return { problem: `an ${key.asymmetricKeyType ?? 'unknown'} key; sealgate signs with Ed25519 only` };
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

import { fstatSync, closeSync, openSync, readSync, constants } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import { parsePrivateKeyPem } from '../core/keys.js';
import { inputInvalid, usageError } from '../core/errors.js';

/** The environment variable naming the signing key file (a path, never the key itself). */
export const SIGNING_KEY_ENV = 'SEALGATE_SIGNING_KEY';

const MAX_KEY_BYTES = 16 * 1024;

/**
 * The signing key's path: --signing-key, else $SEALGATE_SIGNING_KEY, else null. The
 * variable holds a path so the key's bytes are never in an environment a child inherits.
 */
export function signingKeyPath(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  if (option !== undefined) {
    if (option === '') throw usageError('--signing-key must name a file');
    return option;
  }
  const fromEnv = env[SIGNING_KEY_ENV];
  if (fromEnv === undefined || fromEnv === '') return null;
  if (fromEnv.includes('-----BEGIN'))
    throw usageError(
      `$${SIGNING_KEY_ENV} holds a key, not a path: write the key to a file (mode 0600) and name the file`,
    );
  return fromEnv;
}

/**
 * Read an Ed25519 PKCS#8 PEM private key: a regular file, not a link, of this user, not
 * readable by group or others (as ssh demands). Errors name the file, never its bytes.
 */
export function readSigningKey(path: string): { key: KeyObject } {
  const label = 'signing key';
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw inputInvalid(
      label,
      code === 'ELOOP'
        ? `${path} is a symbolic link; name the key file itself`
        : code === 'ENOENT'
          ? `${path} not found`
          : `cannot open ${path} (${code ?? 'error'})`,
    );
  }
  let bytes: Buffer;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw inputInvalid(label, `${path} is not a regular file`);
    if ((st.mode & 0o077) !== 0)
      throw inputInvalid(
        label,
        `${path} is readable or writable by group or others (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it`,
      );
    if (typeof process.getuid === 'function' && st.uid !== process.getuid())
      throw inputInvalid(label, `${path} belongs to another user`);
    if (st.size > MAX_KEY_BYTES) throw inputInvalid(label, `${path} is larger than a key`);
    bytes = Buffer.alloc(st.size);
    let got = 0;
    while (got < bytes.length) {
      const n = readSync(fd, bytes, got, bytes.length - got, null);
      if (n === 0) break;
      got += n;
    }
    bytes = bytes.subarray(0, got);
  } finally {
    closeSync(fd);
  }
  const key = parsePrivateKeyPem(bytes.toString('utf8'));
  bytes.fill(0);
  if ('problem' in key) throw inputInvalid(label, `${path}: ${key.problem}`);
  return { key };
}

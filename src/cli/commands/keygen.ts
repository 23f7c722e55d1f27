import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync, fsyncSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateKeyPairPem } from '../../core/keys.js';
import { inputInvalid, usageError } from '../../core/errors.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../context.js';

export const PRIVATE_KEY_FILE = 'key.pem';
export const PUBLIC_KEY_FILE = 'key.pub.pem';

/** Create a file that must not exist yet (O_EXCL, no link followed), with `mode`. */
function writeNew(path: string, text: string, mode: number): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw inputInvalid(
      path,
      code === 'EEXIST' ? 'already exists; keygen never overwrites a key' : `cannot create (${code ?? 'error'})`,
    );
  }
  try {
    const b = Buffer.from(text, 'utf8');
    let off = 0;
    while (off < b.length) off += writeSync(fd, b, off, b.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export const command: Command = {
  usage: `Usage: sealgate keygen --out DIR

Writes an Ed25519 key pair for a runner or a reviewer (one pair per role; never share):
  DIR/${PRIVATE_KEY_FILE}      the private key, PKCS#8 PEM, mode 0600 (a CI secret; never commit it)
  DIR/${PUBLIC_KEY_FILE}  the public key, SPKI PEM, for trust.runnerKeys or trust.reviewerKeys
DIR is created (mode 0700) if absent; an existing key file is never overwritten.
Prints the key id on stdout: sha256:<SHA-256 of the public key's DER>, which is
  openssl pkey -pubin -in DIR/${PUBLIC_KEY_FILE} -outform DER | sha256sum
and the public key as a JSON string for the config on stderr.

Exit: 0 written, 1 a file exists or cannot be written, 2 bad arguments.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, { out: { type: 'string' } });
    if (values.out === undefined || values.out === '') throw usageError('--out is required');
    const dir = resolve(ctx.cwd, values.out);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw inputInvalid(values.out, `cannot create (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!lstatSync(dir).isDirectory()) throw inputInvalid(values.out, 'not a directory');
    for (const name of [PUBLIC_KEY_FILE, PRIVATE_KEY_FILE]) {
      let exists = true;
      try {
        lstatSync(join(dir, name));
      } catch {
        exists = false;
      }
      if (exists) throw inputInvalid(join(values.out, name), 'already exists; keygen never overwrites a key');
    }
    const pair = generateKeyPairPem();
    // The public key first: a failure then leaves no private key without its public half.
    writeNew(join(dir, PUBLIC_KEY_FILE), pair.publicPem, 0o644);
    writeNew(join(dir, PRIVATE_KEY_FILE), pair.privatePem, 0o600);
    ctx.stdout(`${pair.keyId}\n`);
    ctx.stderr(
      `keygen: wrote ${join(values.out, PRIVATE_KEY_FILE)} (0600) and ${join(values.out, PUBLIC_KEY_FILE)}\nkeygen: public key as a config string: ${JSON.stringify(pair.publicPem)}\n`,
    );
    return 0;
  },
};

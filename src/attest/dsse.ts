import * as v from 'valibot';
import { checkSchema, parseDocumentBytes } from '../core/document.js';
import type { Finding } from '../core/errors.js';
import { fail, type Result } from '../core/result.js';
import { decodeBase64Strict } from '../core/text.js';

/**
 * DSSE envelopes (github.com/secure-systems-lab/dsse, protocol v1): the signature is over
 * the pre-authentication encoding of the payload type and the payload bytes, never over
 * the JSON the envelope is written in. Pure.
 */

export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';

/** Cap on an envelope file: the statement lists evidence files, not their contents. */
export const MAX_ENVELOPE_BYTES = 4 * 1024 * 1024;

/** `DSSEv1 <len(type)> <type> <len(body)> <body>`, lengths in bytes, in ASCII decimal. */
export function preAuthEncoding(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'ascii'),
    type,
    Buffer.from(` ${payload.length} `, 'ascii'),
    payload,
  ]);
}

/** A key id: `sha256:` and the SHA-256 of the key's SubjectPublicKeyInfo DER, lowercase hex. */
export const KEY_ID_PATTERN = /^sha256:[0-9a-f]{64}$/;

const base64Field = (what: string) =>
  v.pipe(
    v.string(),
    v.minLength(1, 'must not be empty'),
    v.check((s) => decodeBase64Strict(s) !== null, `${what} must be canonical standard base64 with padding`),
  );

export const SignatureSchema = v.strictObject({
  keyid: v.pipe(v.string(), v.regex(KEY_ID_PATTERN, 'key ids are sha256:<64 lowercase hex digits>')),
  sig: base64Field('the signature'),
});

/** One signer per envelope: each piece of evidence has exactly one role that vouches for it. */
export const EnvelopeSchema = v.strictObject({
  payloadType: v.literal(IN_TOTO_PAYLOAD_TYPE, `the payload type must be "${IN_TOTO_PAYLOAD_TYPE}"`),
  payload: base64Field('the payload'),
  signatures: v.pipe(v.array(SignatureSchema), v.length(1, 'an envelope carries exactly one signature')),
});

export type Envelope = v.InferOutput<typeof EnvelopeSchema>;

/** Envelope bytes to a checked envelope: strict JSON (duplicate keys refused), strict schema, strict base64. */
export function parseEnvelope(bytes: Uint8Array, label: string): Result<Envelope> {
  if (bytes.length > MAX_ENVELOPE_BYTES)
    return fail([
      { code: 'E_SIGNATURE_INVALID', path: label, detail: `larger than the ${MAX_ENVELOPE_BYTES}-byte cap` },
    ]);
  const parsed = parseDocumentBytes(bytes, 'json', label);
  const checked = parsed.ok ? checkSchema(EnvelopeSchema, parsed.value, label) : parsed;
  return checked.ok ? checked : fail(checked.findings.map(asSignatureFinding));
}

/** An envelope that cannot be read is a signature that cannot be checked. */
export function asSignatureFinding(f: Finding): Finding {
  return { code: 'E_SIGNATURE_INVALID', path: f.path, detail: f.detail };
}

export function toEnvelopeText(e: Envelope): string {
  return `${JSON.stringify({ payloadType: e.payloadType, payload: e.payload, signatures: e.signatures.map((s) => ({ keyid: s.keyid, sig: s.sig })) }, null, 2)}\n`;
}

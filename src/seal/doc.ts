import * as v from 'valibot';
import type { Finding } from '../core/errors.js';
import { SealgateError } from '../core/errors.js';
import { MAX_INPUT_BYTES } from '../core/io.js';
import { JsonSyntaxError, parseStrictJson, type JsonValue } from '../core/json.js';
import { decodeDocument } from '../core/text.js';

/**
 * seal.json read with the same rules as src/core/document.ts (size cap, strict UTF-8,
 * strict JSON (no final-newline rule), strict schema, every issue at its dotted path), as
 * exceptions rather than a Result.
 */

function fail(findings: Finding[]): never {
  throw new SealgateError('E_INPUT_INVALID', findings);
}

export function parseJsonBytes(bytes: Uint8Array, label: string): JsonValue {
  if (bytes.length > MAX_INPUT_BYTES)
    fail([{ code: 'E_INPUT_INVALID', path: label, detail: `larger than the ${MAX_INPUT_BYTES}-byte cap` }]);
  const d = decodeDocument(bytes, 'json');
  if ('problem' in d) fail([{ code: 'E_INPUT_INVALID', path: label, detail: d.detail }]);
  try {
    return parseStrictJson(d.text);
  } catch (err) {
    if (err instanceof JsonSyntaxError || err instanceof RangeError)
      fail([{ code: 'E_INPUT_INVALID', path: label, detail: `not valid JSON: ${err.message}` }]);
    throw err;
  }
}

export function checkAgainst<S extends v.GenericSchema>(schema: S, value: unknown, label: string): v.InferOutput<S> {
  const r = v.safeParse(schema, value, { abortEarly: false });
  if (r.success) return r.output;
  return fail(
    r.issues.map((issue): Finding => {
      const p = (issue.path ?? []).map((x) => String(x.key)).join('.');
      return { code: 'E_INPUT_INVALID', path: p ? `${label}#${p}` : label, detail: issue.message };
    }),
  );
}

import * as v from 'valibot';
import { extname } from 'node:path';
import type { Finding } from './errors.js';
import { SealgateError } from './errors.js';
import { JsonSyntaxError, parseStrictJson, type JsonValue } from './json.js';
import { parseStrictYaml, YamlInputError } from './yaml.js';
import { decodeDocument } from './text.js';
import { readBoundedFile, MAX_INPUT_BYTES } from './io.js';
import { ok, fail, type Result } from './result.js';

export type DocumentFormat = 'json' | 'yaml' | 'json-or-yaml';

/** Text to a JSON value in the declared format, or findings naming the file. */
export function parseDocumentText(text: string, format: 'json' | 'yaml', label: string): Result<JsonValue> {
  try {
    return ok(format === 'json' ? parseStrictJson(text) : parseStrictYaml(text));
  } catch (err) {
    if (err instanceof JsonSyntaxError || err instanceof YamlInputError || err instanceof RangeError) {
      return fail([
        {
          code: 'E_INPUT_INVALID',
          path: label,
          detail: `not valid ${format === 'json' ? 'JSON' : 'YAML'}: ${err.message}`,
        },
      ]);
    }
    throw err;
  }
}

export function formatFor(path: string, format: DocumentFormat): 'json' | 'yaml' {
  if (format !== 'json-or-yaml') return format;
  const ext = extname(path).toLowerCase();
  return ext === '.yaml' || ext === '.yml' ? 'yaml' : 'json';
}

/** Bytes to a JSON value: size cap, strict UTF-8, a final newline for YAML, strict syntax. */
export function parseDocumentBytes(bytes: Uint8Array, format: 'json' | 'yaml', label: string): Result<JsonValue> {
  if (bytes.length > MAX_INPUT_BYTES)
    return fail([{ code: 'E_INPUT_INVALID', path: label, detail: `larger than the ${MAX_INPUT_BYTES}-byte cap` }]);
  const decoded = decodeDocument(bytes, format);
  if ('problem' in decoded) return fail([{ code: 'E_INPUT_INVALID', path: label, detail: decoded.detail }]);
  return parseDocumentText(decoded.text, format, label);
}

/** Dotted path of a valibot issue, e.g. `cases.1.status`. */
export function issuePath(issue: v.BaseIssue<unknown>): string {
  return (issue.path ?? []).map((p) => String(p.key)).join('.');
}

/** valibot's wording for unknown and missing keys names types; ours names the mistake. */
function issueMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.expected === 'never') return 'unknown field (not allowed here)';
  if (issue.input === undefined && issue.expected?.startsWith('"')) return 'required field is missing';
  return issue.message;
}

/** Schema check with every problem reported at its dotted path. */
export function checkSchema<S extends v.GenericSchema>(
  schema: S,
  value: unknown,
  label: string,
): Result<v.InferOutput<S>> {
  const r = v.safeParse(schema, value, { abortEarly: false });
  if (r.success) return ok(r.output);
  return fail(
    r.issues.map((issue): Finding => {
      const p = issuePath(issue);
      return { code: 'E_INPUT_INVALID', path: p ? `${label}#${p}` : label, detail: issueMessage(issue) };
    }),
  );
}

/** Bytes to a schema-checked value. */
export function parseDocument<S extends v.GenericSchema>(
  bytes: Uint8Array,
  schema: S,
  format: 'json' | 'yaml',
  label: string,
): Result<v.InferOutput<S>> {
  const parsed = parseDocumentBytes(bytes, format, label);
  return parsed.ok ? checkSchema(schema, parsed.value, label) : parsed;
}

/** Read, decode, parse and validate a document; throws a SealgateError with every finding. */
export function readDocument<S extends v.GenericSchema>(
  path: string,
  schema: S,
  format: DocumentFormat,
  label = path,
): v.InferOutput<S> {
  const bytes = readBoundedFile(path, MAX_INPUT_BYTES, label);
  const r = parseDocument(bytes, schema, formatFor(path, format), label);
  if (!r.ok) throw new SealgateError('E_INPUT_INVALID', r.findings);
  return r.value;
}

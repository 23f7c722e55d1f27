import { isDeepStrictEqual } from 'node:util';
import { checkSchema, formatFor, parseDocumentBytes } from '../core/document.js';
import { SealgateError, inputInvalid } from '../core/errors.js';
import { readBoundedFile, writeFileAtomic, MAX_INPUT_BYTES } from '../core/io.js';
import { parseStrictJson, toJsonText, type JsonValue } from '../core/json.js';
import { yaml } from '../core/yaml.js';
import { RecordSchema, type ProposalRecord } from './schema.js';

/**
 * Reading the proposal record, and the runner's edits to it: seal sets the digest fields,
 * the runner the log fields. Each edit sets a few top-level fields and changes nothing
 * else: JSON keeps its key order (existing keys replaced where they stand, new ones
 * appended); YAML is edited through the `yaml` Document API so comments and order survive.
 */

export type RecordEdit = Readonly<Record<string, string | boolean | undefined>>;

export interface RecordFile {
  readonly path: string;
  readonly label: string;
  readonly format: 'json' | 'yaml';
  readonly text: string;
  readonly record: ProposalRecord;
  readonly value: JsonValue;
}

/** Read and schema-check the record (JSON, or YAML by extension). */
export function readRecordFile(path: string, label: string): RecordFile {
  const bytes = readBoundedFile(path, MAX_INPUT_BYTES, label);
  const format = formatFor(path, 'json-or-yaml');
  const parsed = parseDocumentBytes(bytes, format, label);
  if (!parsed.ok) throw new SealgateError('E_INPUT_INVALID', parsed.findings);
  const checked = checkSchema(RecordSchema, parsed.value, label);
  if (!checked.ok) throw new SealgateError('E_INPUT_INVALID', checked.findings);
  return { path, label, format, text: bytes.toString('utf8'), record: checked.value, value: parsed.value };
}

/** The base commit in a record's bytes, or null when they do not name one (or do not parse: their reader reports that). */
export function recordBaseOf(bytes: Uint8Array, path: string): string | null {
  const parsed = parseDocumentBytes(bytes, formatFor(path, 'json-or-yaml'), path);
  if (!parsed.ok) return null;
  const checked = checkSchema(RecordSchema, parsed.value, path);
  return checked.ok ? (checked.value.base_commit ?? null) : null;
}

/** The record's bytes, or null when they cannot be read (missing, too large, not a file: the gate's reader then says why). */
export function readRecordBytes(path: string, label: string): Buffer | null {
  try {
    return readBoundedFile(path, MAX_INPUT_BYTES, label);
  } catch (err) {
    if (err instanceof SealgateError) return null;
    throw err;
  }
}

/** Apply `edit` (undefined deletes a key) to record text. Pure. */
export function editRecordText(text: string, format: 'json' | 'yaml', edit: RecordEdit): string {
  if (format === 'json') {
    const value = parseStrictJson(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new Error('record is not a JSON object');
    const obj: Record<string, JsonValue> = value;
    for (const [k, v] of Object.entries(edit)) {
      if (v === undefined) delete obj[k];
      else obj[k] = v;
    }
    return toJsonText(obj);
  }
  const doc = yaml().parseDocument(text, { schema: 'core', merge: false, uniqueKeys: false, strict: true });
  for (const [k, v] of Object.entries(edit)) {
    if (v === undefined) doc.delete(k);
    else doc.set(k, v);
  }
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/**
 * Write `edit` into the record atomically, after checking that the result still passes the
 * schema, that every edited field took its value and that no other field changed.
 * Returns false when nothing needed writing.
 */
export function writeRecordEdit(file: RecordFile, edit: RecordEdit): boolean {
  const next = editRecordText(file.text, file.format, edit);
  if (next === file.text) return false;
  const reparsed = parseDocumentBytes(Buffer.from(next, 'utf8'), file.format, file.label);
  if (!reparsed.ok) throw new SealgateError('E_INPUT_INVALID', reparsed.findings);
  const checked = checkSchema(RecordSchema, reparsed.value, file.label);
  if (!checked.ok) throw new SealgateError('E_INPUT_INVALID', checked.findings);
  const strip = (v: JsonValue): JsonValue => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const copy: Record<string, JsonValue> = { ...v };
    for (const k of Object.keys(edit)) delete copy[k];
    return copy;
  };
  if (!isDeepStrictEqual(strip(file.value), strip(reparsed.value)))
    throw inputInvalid(
      file.label,
      `editing ${Object.keys(edit).join(', ')} would change other fields of the record; refusing`,
    );
  const after = reparsed.value as Record<string, JsonValue>;
  for (const [k, v] of Object.entries(edit))
    if (v !== undefined && after[k] !== v)
      throw inputInvalid(file.label, `field "${k}" did not take its new value; refusing`);
  writeFileAtomic(file.path, next);
  return true;
}

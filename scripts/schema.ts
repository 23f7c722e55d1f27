// The JSON Schemas under schema/, generated from the runtime (valibot) schemas.
// Regenerate: node --import tsx scripts/schema.ts   (test/schema.test.ts checks they match)
// Checks JSON Schema cannot express (RFC 3339 instants, globs, uniqueness, cross-field rules)
// stay in the runtime schemas; the generated copy is for editors and other tools.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ConfigSchema } from '../src/config/schema.js';
import { CaseFileSchema, CreditSchema } from '../src/credit/schema.js';
import { ResultsSchema } from '../src/runner/results.js';
import { ChangedSchema } from '../src/symbols/schema.js';
import { FreezeSchema } from '../src/freeze/schema.js';
import { RecordSchema } from '../src/record/schema.js';
import { EnvelopeSchema } from '../src/attest/dsse.js';
import { FreezeStatementSchema, RunnerStatementSchema } from '../src/attest/statement.js';

export const SCHEMAS: Readonly<Record<string, { readonly schema: v.GenericSchema; readonly title: string }>> = {
  'sealgate.config.schema.json': { schema: ConfigSchema, title: 'sealgate.config.json' },
  'record.schema.json': { schema: RecordSchema, title: 'sealgate proposal record (review/proposal.json)' },
  'credit.schema.json': { schema: CreditSchema, title: 'sealgate credit file (review/runner/credit.json)' },
  'freeze.schema.json': { schema: FreezeSchema, title: 'sealgate flake freeze (review/freeze.json)' },
  'changed.schema.json': { schema: ChangedSchema, title: 'sealgate changed symbols (review/runner/changed.json)' },
  'results.schema.json': { schema: ResultsSchema, title: 'sealgate test results (review/runner/results.json)' },
  'cases.schema.json': { schema: CaseFileSchema, title: 'sealgate case file (review/runner/cases.json)' },
  'dsse-envelope.schema.json': {
    schema: EnvelopeSchema,
    title: 'sealgate DSSE envelope (review/runner/attestation.dsse.json, review/freeze.dsse.json)',
  },
  'runner-statement.schema.json': {
    schema: RunnerStatementSchema,
    title: "sealgate runner attestation: the envelope's in-toto Statement v1 payload",
  },
  'freeze-statement.schema.json': {
    schema: FreezeStatementSchema,
    title: "sealgate freeze attestation: the envelope's in-toto Statement v1 payload",
  },
};

export function toSchemaText(name: string): string {
  const entry = SCHEMAS[name];
  if (!entry) throw new Error(`no schema ${name}`);
  const json = toJsonSchema(entry.schema, { errorMode: 'ignore' });
  return JSON.stringify({ $id: `sealgate/schema/${name}`, title: entry.title, ...json }, null, 2) + '\n';
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const name of Object.keys(SCHEMAS)) {
    writeFileSync(new URL(`../schema/${name}`, import.meta.url), toSchemaText(name));
    console.log(`wrote schema/${name}`);
  }
}

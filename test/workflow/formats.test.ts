import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ConfigSchema } from '../../src/config/schema.js';
import { CaseFileSchema, CreditSchema } from '../../src/credit/schema.js';
import { FreezeSchema } from '../../src/freeze/schema.js';
import { LedgerEntrySchema } from '../../src/record/propose.js';
import { RecordSchema } from '../../src/record/schema.js';
import { JournalEventSchema } from '../../src/store/journal.js';
import { ResultsSchema } from '../../src/runner/results.js';
import { SealParamsSchema } from '../../src/seal/seal.js';
import { ChangedSchema } from '../../src/symbols/schema.js';

// docs/formats.md carries each file's JSON Schema, generated from the runtime schema, between
// `<!-- schema:NAME -->` and `<!-- /schema -->`. Rewrite with UPDATE_SNAPSHOTS=1.
const DOC = 'docs/formats.md';
const SCHEMAS: Record<string, v.GenericSchema> = {
  config: ConfigSchema,
  record: RecordSchema,
  ledger: LedgerEntrySchema,
  seal: SealParamsSchema,
  journal: JournalEventSchema,
  results: ResultsSchema,
  changed: ChangedSchema,
  cases: CaseFileSchema,
  credit: CreditSchema,
  freeze: FreezeSchema,
};

const block = (name: string): string =>
  `\`\`\`json\n${JSON.stringify(toJsonSchema(SCHEMAS[name] as v.GenericSchema, { errorMode: 'ignore' }), null, 2)}\n\`\`\``;
const MARK = /<!-- schema:([a-z]+) -->\n[\s\S]*?<!-- \/schema -->/g;

test('docs/formats.md: every file format with its JSON Schema, as the code defines it', () => {
  const regenerate = (t: string): string =>
    t.replace(
      MARK,
      (_m, name: string) =>
        `<!-- schema:${name} -->\n${SCHEMAS[name] ? block(name) : `(no schema named ${name})`}\n<!-- /schema -->`,
    );
  if (process.env['UPDATE_SNAPSHOTS'] === '1') writeFileSync(DOC, regenerate(readFileSync(DOC, 'utf8')));
  const text = readFileSync(DOC, 'utf8');
  const want = regenerate(text);
  const named = [...text.matchAll(MARK)].map((m) => m[1]);
  assert.deepEqual(named.slice().sort(), Object.keys(SCHEMAS).sort(), 'each schema appears once');
  assert.equal(
    text,
    want,
    'docs/formats.md is stale: run UPDATE_SNAPSHOTS=1 node scripts/test.mjs test/workflow/formats.test.ts',
  );
});

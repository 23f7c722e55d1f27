import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { SCHEMAS, toSchemaText } from '../scripts/schema.js';

test('the committed JSON Schemas match the runtime schemas', () => {
  for (const name of Object.keys(SCHEMAS)) {
    const committed = readFileSync(new URL(`../schema/${name}`, import.meta.url), 'utf8');
    assert.equal(committed, toSchemaText(name), `schema/${name} is stale: run node --import tsx scripts/schema.ts`);
  }
});

test('every committed schema is generated (no orphans)', () => {
  const files = readdirSync(new URL('../schema/', import.meta.url)).filter((f) => f.endsWith('.json'));
  assert.deepEqual(files.sort(), Object.keys(SCHEMAS).sort());
});

test('the generated schemas forbid unknown keys and require the spec fields', () => {
  const record = JSON.parse(toSchemaText('record.schema.json')) as {
    additionalProperties: unknown;
    required: string[];
  };
  assert.equal(record.additionalProperties, false);
  for (const k of ['proposal_id', 'patch_path', 'digest_status', 'logs_present', 'logs_after_seal', 'log_visibility'])
    assert.ok(record.required.includes(k), k);
  const credit = JSON.parse(toSchemaText('credit.schema.json')) as { properties: { pass: { type: string } } };
  assert.equal(credit.properties.pass.type, 'boolean');
});

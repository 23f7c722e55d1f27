import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { CODE_INFO, DECISION_CODES, isDecisionCode, toDecisionCode } from '../src/core/codes.js';

test('every code has a docs page, and every page a code', () => {
  const pages = readdirSync(new URL('../docs/codes/', import.meta.url))
    .filter((f) => f.endsWith('.md') && f !== 'README.md')
    .map((f) => f.slice(0, -3));
  assert.deepEqual(pages.sort(), [...DECISION_CODES].sort());
  for (const code of DECISION_CODES) {
    const page = readFileSync(new URL(`../docs/codes/${code}.md`, import.meta.url), 'utf8');
    assert.match(page, new RegExp(`^# ${code}\\n`));
    assert.ok(
      page.includes(`**Exit status:** ${CODE_INFO[code].exit}`),
      `${code}.md states exit ${CODE_INFO[code].exit}`,
    );
  }
});

test('every code the docs index lists exists', () => {
  const index = readFileSync(new URL('../docs/codes/README.md', import.meta.url), 'utf8');
  for (const m of index.matchAll(/\[(\w+)\]\((\w+)\.md\)/g)) {
    assert.ok(isDecisionCode(m[1]), `${m[1]} is a code`);
    assert.ok(existsSync(new URL(`../docs/codes/${m[2]}.md`, import.meta.url)));
  }
});

test('only ALLOW exits 0; E_INTERNAL exits 3; the registry is complete', () => {
  for (const code of DECISION_CODES) {
    const info = CODE_INFO[code];
    assert.equal(info.exit === 0, code === 'ALLOW', code);
    assert.ok(info.condition.length > 10 && info.nextStep.length > 5, code);
  }
  assert.equal(CODE_INFO.E_INTERNAL.exit, 3);
  assert.equal(Object.keys(CODE_INFO).length, DECISION_CODES.length);
});

test('unknown codes map to a reject, never to ALLOW', () => {
  for (const v of ['allow', 'ALLOW ', 'OK', '', null, undefined, 0, 'E_UNKNOWN', ['ALLOW']])
    assert.equal(toDecisionCode(v), 'E_INTERNAL');
  assert.equal(toDecisionCode('ALLOW'), 'ALLOW');
});

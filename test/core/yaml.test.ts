import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStrictYaml, YamlInputError } from '../../src/core/yaml.js';

const rejects = (text: string, pattern: RegExp): void => {
  assert.throws(
    () => parseStrictYaml(text),
    (err: unknown) => err instanceof YamlInputError && pattern.test(err.message),
    `should reject ${JSON.stringify(text)}`,
  );
};

test("accepts the spec's section 1 record and reads booleans and strings as YAML 1.2 core", () => {
  const v = parseStrictYaml(
    'proposal_id: p-1\nlogs_present: true\nlogs_after_seal: false\nlog_visibility: hidden\nflag: yes\nwhen: 2026-10-19\n',
  );
  assert.deepEqual(v, {
    proposal_id: 'p-1',
    logs_present: true,
    logs_after_seal: false,
    log_visibility: 'hidden',
    flag: 'yes',
    when: '2026-10-19',
  });
});

test('rejects duplicate keys, at any depth', () => {
  rejects('a: 1\na: 2\n', /duplicate key "a"/);
  rejects('x:\n  b: 1\n  b: 2\n', /duplicate key "b"/);
});

test('rejects aliases, anchors, merge keys and tags', () => {
  rejects('a: &x true\nb: *x\n', /not allowed/);
  rejects('base: &b {p: 1}\nc:\n  <<: *b\n', /not allowed/);
  rejects('a: !!str true\n', /tags are not allowed/);
  rejects('a: !custom x\n', /tag|not allowed/);
});

test('rejects non-string keys, __proto__, several documents and syntax errors', () => {
  rejects('1: a\n', /plain strings/);
  rejects('? [a]\n: b\n', /plain strings/);
  rejects('__proto__: {}\n', /__proto__/);
  rejects('a: 1\n---\nb: 2\n', /multiple documents|document/i);
  rejects('a: [1, 2\n', /.+/);
  rejects('a: b: c\n', /.+/);
});

test('rejects alias bombs before expanding them', () => {
  rejects('a: &a ["x","x"]\nb: &b [*a,*a]\nc: &c [*b,*b]\nd: [*c,*c]\n', /not allowed/);
});

test('caps nesting depth', () => {
  rejects('a: ' + '['.repeat(80) + ']'.repeat(80) + '\n', /nesting deeper than 64/);
});

test('CRLF line endings parse to the same value', () => {
  assert.deepEqual(parseStrictYaml('a: 1\r\nb: true\r\n'), { a: 1, b: true });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DECISION_CODES, type RejectCode } from '../../src/core/codes.js';
import type { Finding } from '../../src/core/errors.js';
import type { Decision } from '../../src/gate/decide.js';
import { combineAudit, type AuditStep } from '../../src/verify/audit.js';
import { parseInputsManifest } from '../../src/verify/manifest.js';

const h = (c: string) => c.repeat(64);
const TAIL = `tree=${'e'.repeat(40)}\npolicy=default\n`;
const good = `${h('a')}  fixtures/clock.json\n${h('b')}  fixtures/orders.json\nseed=42\nclock=frozen\nlocale=C.UTF-8\n${TAIL}`;

test('parseInputsManifest: the sha256sum lines, then seed, clock, locale, tree, policy', () => {
  const r = parseInputsManifest(Buffer.from(good));
  assert.ok(r.ok);
  assert.deepEqual(r.value, {
    files: [
      { sha256: h('a'), path: 'fixtures/clock.json' },
      { sha256: h('b'), path: 'fixtures/orders.json' },
    ],
    seed: '42',
    clock: 'frozen',
    locale: 'C.UTF-8',
    tree: 'e'.repeat(40),
    policy: 'default',
  });
});

test('parseInputsManifest: hostile input', () => {
  const bad: [string, string | Buffer][] = [
    ['truncated', good.slice(0, -3)],
    ['no final newline', good.slice(0, -1)],
    ['CRLF', good.replace(/\n/g, '\r\n')],
    ['BOM', `\ufeff${good}`],
    ['trailing garbage', `${good}extra\n`],
    [
      'unsorted',
      `${h('b')}  fixtures/orders.json\n${h('a')}  fixtures/clock.json\nseed=42\nclock=frozen\nlocale=C.UTF-8\n${TAIL}`,
    ],
    ['no tree or policy line', good.replace(TAIL, '')],
    ['short tree id', good.replace(`tree=${'e'.repeat(40)}`, 'tree=eeee')],
    ['policy not a digest', good.replace('policy=default', 'policy=none')],
    ['policy before tree', good.replace(TAIL, `policy=default\ntree=${'e'.repeat(40)}\n`)],
    ['duplicate', `${h('a')}  a\n${h('a')}  a\nseed=1\nclock=live\nlocale=C\n${TAIL}`],
    ['escape outside', `${h('a')}  ../etc/passwd\nseed=1\nclock=live\nlocale=C\n${TAIL}`],
    ['absolute', `${h('a')}  /etc/passwd\nseed=1\nclock=live\nlocale=C\n${TAIL}`],
    ['uppercase hex', `${h('A')}  a\nseed=1\nclock=live\nlocale=C\n${TAIL}`],
    ['missing locale', `${h('a')}  a\nseed=1\nclock=live\n${TAIL}`],
    ['order of keys', `${h('a')}  a\nclock=live\nseed=1\nlocale=C\n${TAIL}`],
    [
      'invalid utf-8',
      Buffer.concat([
        Buffer.from(`${h('a')}  `),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('\nseed=1\nclock=live\nlocale=C\n'),
      ]),
    ],
    ['empty', ''],
    ['oversized seed line count', `${good}${'seed=1\n'.repeat(10_000)}`],
  ];
  for (const [name, text] of bad)
    assert.equal(parseInputsManifest(typeof text === 'string' ? Buffer.from(text) : text).ok, false, name);
});

const rejects = DECISION_CODES.filter((c): c is RejectCode => c !== 'ALLOW');
const finding = fc.record({
  code: fc.constantFrom(...rejects),
  path: fc.string({ maxLength: 8 }),
  detail: fc.string({ maxLength: 8 }),
});

test('property: the audit never ALLOWs when any stage found something; shared jobs always come first, then a policy change', () => {
  fc.assert(
    fc.property(
      fc.array(finding, { maxLength: 4 }),
      fc.array(fc.array(finding, { maxLength: 3 }), { minLength: 4, maxLength: 4 }),
      (gate: Finding[], stages: Finding[][]) => {
        const decision: Decision = { code: gate[0]?.code ?? 'ALLOW', decisive: gate[0] ?? null, findings: gate };
        const steps: AuditStep[] = (['seal', 'patch', 'journal', 'credit'] as const).map((stage, k) => ({
          stage,
          findings: stages[k] ?? [],
          summary: '',
        }));
        steps.push({ stage: 'gate', findings: gate, summary: '' });
        const out = combineAudit(decision, steps);
        const all = [...gate, ...stages.flat()];
        assert.equal(out.code === 'ALLOW', all.length === 0);
        assert.equal(out.findings.length, all.length);
        const job = gate.find((f) => f.code === 'E_SHARED_JOB' || f.code === 'E_JOB_MISSING');
        const policy = gate.find((f) => f.code === 'E_POLICY_CHANGED');
        if (job) assert.equal(out.code, job.code);
        else if (policy) assert.equal(out.code, 'E_POLICY_CHANGED', 'a policy change outranks the audit stages');
        else if (stages.flat().length > 0) assert.equal(out.code, stages.flat()[0]?.code);
      },
    ),
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { formatReasons, reasonLine } from '../../src/cli/report.js';

// A reason quotes names the patch chose. A line break in one must not start a line of its own
// that reads as a reason: not for a person reading stderr, not in the runner's line for a step.
test('a line break in a detail cannot forge a reason line: every line after the first is indented', () => {
  const forged = 'tests/x.py\nsealgate: ALLOW: every symbol credited\nE_CREDIT_MISSING: nothing missing';
  const findings = [{ code: 'E_CREDIT_MISSING' as const, path: forged, detail: 'src/a.ts::f has no passing test' }];
  const text = formatReasons('E_CREDIT_MISSING', findings);
  const starts = text.split('\n').filter((l) => l.startsWith('sealgate: '));
  assert.deepEqual(
    starts.map((l) => /^sealgate: ([^:]+):/.exec(l)?.[1]),
    ['E_CREDIT_MISSING', 'next step'],
  );
  assert.ok(text.includes('\n    sealgate: ALLOW: every symbol credited\n'), text);
  // The runner's line for a step that refused gives the reason's first line alone.
  assert.equal(reasonLine('E_CREDIT_MISSING', findings), 'tests/x.py');
  // A detail's own line breaks stay readable (indented, not escaped).
  const multi = formatReasons('E_INPUT_INVALID', [
    {
      code: 'E_INPUT_INVALID',
      path: 'sealgate.config.json',
      detail: 'no test passed; the last output:\n    FAIL a\n    FAIL b',
    },
  ]);
  assert.match(multi, /\n {8}FAIL a\n {8}FAIL b\n/);
});

test('property: whatever the path and detail hold, the only lines that start with "sealgate: " are one per finding and the next step', () => {
  const text = fc
    .array(fc.oneof(fc.constantFrom('\n', '\r\n', 'sealgate: ', 'ALLOW: ', 'E_TESTS_FAILED: ', ' '), fc.string()), {
      maxLength: 8,
    })
    .map((xs) => xs.join(''));
  fc.assert(
    fc.property(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 4 }), (fs) => {
      const text = formatReasons(
        'E_TESTS_FAILED',
        fs.map(([path, detail]) => ({ code: 'E_TESTS_FAILED', path, detail })),
      );
      const starts = text.split('\n').filter((l) => l.startsWith('sealgate: '));
      assert.equal(starts.length, fs.length + 1);
      for (const l of starts.slice(0, -1)) assert.ok(l.startsWith('sealgate: E_TESTS_FAILED: '), l);
    }),
    { numRuns: 500 },
  );
});

test("property: the runner's reason for a step is one line of visible text, the first reason line formatReasons writes", () => {
  const text = fc
    .array(fc.oneof(fc.constantFrom('\n', '\r\n', '\u001b[2K', 'sealgate: ', 'ALLOW: ', ' '), fc.string()), {
      maxLength: 8,
    })
    .map((xs) => xs.join(''));
  fc.assert(
    fc.property(fc.array(fc.tuple(text, text), { minLength: 1, maxLength: 4 }), (fs) => {
      const findings = fs.map(([path, detail]) => ({ code: 'E_TESTS_FAILED' as const, path, detail }));
      const line = reasonLine('E_TESTS_FAILED', findings);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(line, /[\u0000-\u001f\u007f]/);
      const first = formatReasons('E_TESTS_FAILED', findings).split('\n')[0] ?? '';
      assert.equal(line, first.slice('sealgate: E_TESTS_FAILED: '.length).trim());
    }),
    { numRuns: 500 },
  );
});

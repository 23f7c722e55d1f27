import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { MAX_NAME_PATTERN, narrowByName, toNamePattern } from '../../src/test-runners/index.js';
import { escapeRegExp } from '../../src/core/text.js';

// Narrowing by test name: each reaching test's reported name (its suite chain joined by " > ",
// and its name) becomes an exact, anchored alternative of one pattern. The pattern may match
// another test of the same name (a run of more tests), never miss one; in any doubt, null (the
// run stays narrowed by file).

const VITEST = ['node_modules/.bin/vitest', 'run', '--reporter=junit', '--outputFile.junit=junit.xml'];
const JEST = ['node_modules/.bin/jest', '--ci', '--json', '--outputFile=jest-results.json'];
const NODE = [
  'node',
  '--test',
  '--test-reporter=./.sealgate/node-test-reporter.mjs',
  '--test-reporter-destination=junit.xml',
];

/** A name piece as hostile as a test title gets: regex syntax, separators, quotes, unicode, format specifiers. */
const piece = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        '$',
        '^',
        '\\',
        '(',
        ')',
        '(?:',
        '[',
        ']',
        '{1}',
        '|',
        '.',
        '*',
        '+',
        '?',
        '/',
        '-t',
        '%s',
        '"',
        "'",
        '`',
        '>',
        ' > ',
        ' ',
        'é',
        '😀',
        '\u2028',
        'a',
        'B',
      ),
      fc.string({ maxLength: 4 }),
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((xs) => xs.join(''))
  .filter((s) => s.trim() === s && s !== '' && !s.startsWith(' > ') && !s.endsWith(' > ') && !s.includes(' >  > '));
const chain = fc.array(piece, { minLength: 1, maxLength: 4 });
const reported = (parts: readonly string[]) => ({
  suite: parts.slice(0, -1).join(' > '),
  name: parts.at(-1) as string,
});
const flat = (s: string): string => s.split(' > ').join(' ');
/** A joined name that may hide an empty level at an end (vitest's test("") in a describe): no pattern for it. */
const endsAmbiguous = (joined: string): boolean => joined.endsWith(' >') || joined.startsWith('> ') || joined === '>';

describe('name patterns', () => {
  it('escapes every regex metacharacter so the string matches itself only', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const re = new RegExp(`^${escapeRegExp(s)}$`);
        assert.ok(re.test(s));
        assert.ok(new RegExp(`^${escapeRegExp(s)}$`, 'u').test(s) || /[\uD800-\uDFFF]/.test(s));
        assert.equal(re.test(`${s}x`), false);
      }),
    );
  });
  it('vitest and jest: the full name (the chain joined by spaces) matches, whatever " > " the names hold; jest with its i flag too', () => {
    fc.assert(
      fc.property(chain, (parts) => {
        const joined = parts.join(' > ');
        for (const kind of ['vitest', 'jest'] as const) {
          const p = toNamePattern(kind, [reported(parts)]);
          // In doubt (a chain that may end or start with an empty level), no pattern: narrowed by file.
          if (p === null) {
            assert.ok(endsAmbiguous(joined), JSON.stringify(parts));
            continue;
          }
          const re = new RegExp(p, kind === 'jest' ? 'i' : '');
          assert.ok(re.test(parts.join(' ')), `${p} on ${JSON.stringify(parts.join(' '))}`);
        }
      }),
    );
  });
  it('vitest: what matches is the same name up to the separators (anchored: nothing before, after or instead)', () => {
    fc.assert(
      fc.property(chain, fc.string({ maxLength: 12 }), (parts, other) => {
        const p0 = toNamePattern('vitest', [reported(parts)]);
        if (p0 === null) return;
        const p = p0;
        const re = new RegExp(p);
        const full = parts.join(' ');
        for (const s of [other, `${other}${full}`, `${full}${other}`])
          if (re.test(s)) assert.equal(flat(s), flat(full), `${p} matched ${JSON.stringify(s)}`);
      }),
    );
  });
  it('node:test: the leaf name and every parent name match (a subtest runs only when its parent matches)', () => {
    fc.assert(
      fc.property(chain, (parts) => {
        const pattern = toNamePattern('node-test', [reported(parts)]);
        // In doubt (separators that overlap in the joined name), no pattern: the run is narrowed by file.
        if (pattern === null)
          return assert.ok(
            parts.join(' > ').includes(' > > ') || endsAmbiguous(parts.join(' > ')),
            JSON.stringify(parts),
          );
        const re = new RegExp(pattern);
        for (const p of parts) assert.ok(re.test(p), p);
        assert.equal(re.test(`${parts.at(-1) as string}\u0000`), false);
      }),
    );
  });
  it('several tests: one alternative each, all matched', () => {
    fc.assert(
      fc.property(fc.array(chain, { minLength: 1, maxLength: 5 }), (chains) => {
        const p = toNamePattern('vitest', chains.map(reported));
        if (p === null)
          return assert.ok(
            chains.some((c) => endsAmbiguous(c.join(' > '))),
            JSON.stringify(chains),
          );
        const re = new RegExp(p);
        for (const c of chains) assert.ok(re.test(c.join(' ')));
      }),
    );
  });
  it('in doubt, null: an empty or padded name, an empty piece, another runner, a pattern too long for a command line', () => {
    assert.equal(toNamePattern('vitest', [{ suite: '', name: '' }]), null);
    assert.equal(toNamePattern('vitest', [{ suite: ' outer', name: 'x' }]), null);
    assert.equal(toNamePattern('vitest', [{ suite: 'outer > ', name: 'x' }]), null);
    assert.equal(toNamePattern('jest', [{ suite: 'a >  > b', name: 'x' }]), null);
    assert.equal(toNamePattern('pytest', [{ suite: '', name: 'test_x' }]), null);
    assert.equal(toNamePattern('unknown', [{ suite: '', name: 'x' }]), null);
    assert.equal(toNamePattern('vitest', []), null);
    // node:test levels that cannot be told apart in the joined name ("! >" then "$", or "!" then "> $").
    assert.equal(toNamePattern('node-test', [{ suite: '! >', name: '$' }]), null);
    assert.equal(toNamePattern('node-test', [{ suite: '!', name: '> $' }]), null);
    assert.equal(toNamePattern('vitest', [{ suite: '', name: 'x'.repeat(MAX_NAME_PATTERN) }]), null);
    // vitest reports test("") in describe("d") as "d > ", trimmed to "d >": under -t its full name is "d ", which "d >" misses.
    assert.equal(toNamePattern('vitest', [{ suite: '', name: 'withoutTrailingSlash, queryParams: false >' }]), null);
    assert.equal(toNamePattern('jest', [{ suite: 'd', name: 'x >' }]), null);
    assert.equal(toNamePattern('vitest', [{ suite: '> d', name: 'x' }]), null);
    assert.equal(toNamePattern('node-test', [{ suite: '', name: '>' }]), null);
  });
});

describe('commands narrowed by name', () => {
  const t = [{ suite: 'outer', name: 'a (b)' }];
  it('vitest: the files, then one --testNamePattern= argument (a name that looks like an option stays inside it)', () => {
    assert.deepEqual(narrowByName(VITEST, ['test/a.test.ts'], t), [
      ...VITEST,
      'test/a.test.ts',
      '--testNamePattern=^(?:outer(?: > | )a \\(b\\))$',
    ]);
    const c = narrowByName(VITEST, ['test/a.test.ts'], [{ suite: '', name: '--reporter=json' }]) as string[];
    assert.equal(c.at(-1), '--testNamePattern=^(?:--reporter=json)$');
    assert.equal(c.filter((a) => a.startsWith('--reporter')).length, 1);
  });
  it('jest: by path and by name', () => {
    assert.deepEqual(narrowByName(JEST, ['test/a.test.js'], t), [
      ...JEST,
      '--runTestsByPath',
      'test/a.test.js',
      '--testNamePattern=^(?:outer(?: > | )a \\(b\\))$',
    ]);
  });
  it("node:test: the pattern is a node option, before the file (after it, it would be the script's argument)", () => {
    const c = narrowByName(NODE, ['test/a.test.js'], t) as string[];
    assert.equal(c[0], 'node');
    assert.ok((c[1] as string).startsWith('--test-name-pattern=^(?:'), c.join(' '));
    assert.equal(c.at(-1), 'test/a.test.js');
    const two = narrowByName(NODE, ['test/a.test.js', 'test/b.test.js'], t) as string[];
    assert.ok(two.includes('--test') && (two[1] as string).startsWith('--test-name-pattern='));
  });
  it('a command that already filters by name, or that cannot be narrowed by file, is not narrowed by name', () => {
    assert.equal(narrowByName([...VITEST, '-t', 'x'], ['test/a.test.ts'], t), null);
    assert.equal(narrowByName([...JEST, '--testNamePattern=x'], ['test/a.test.js'], t), null);
    assert.equal(narrowByName(['node', '--test-skip-pattern=slow', '--test'], ['test/a.test.js'], t), null);
    assert.equal(narrowByName(['make', 'test'], ['test/a.test.js'], t), null);
    assert.equal(narrowByName(['node_modules/.bin/vitest', 'watch'], ['test/a.test.ts'], t), null);
    assert.equal(narrowByName(VITEST, ['-x.test.ts'], t), null);
  });
});

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readTestSources } from '../../src/credit/lang/tests.js';
import { matchCase } from '../../src/credit/tests/match.js';
import { classifyPyTests } from '../../src/credit/lang/python/classify.js';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import { tempDir, writeFiles } from '../helpers/git.js';
import type { TestSource } from '../../src/credit/tests/classify.js';

// cachetools keeps its cache tests in a mixin in tests/__init__.py (`class CacheTestMixin`) and
// collects them as `class LRUCacheTest(unittest.TestCase, CacheTestMixin)` in each test file:
// 98 of its 279 tests were "undefined" (no credit) while inheritance was read in one file only.

const rows = (xs: readonly TestSource[]): string[][] =>
  xs
    .map((t) => [t.file, t.suite.join('/'), t.name, t.verdict.kind === 'tautology' ? t.verdict.rule : 'property'])
    .sort((a, b) => a.join('|').localeCompare(b.join('|')));

async function sourcesOf(files: Record<string, string>): Promise<TestSource[]> {
  const t = tempDir();
  try {
    writeFiles(t.dir, files);
    return await readTestSources(t.dir, DEFAULT_CONFIG, [], Object.keys(files));
  } finally {
    t.dispose();
  }
}

const MIXIN = [
  'import unittest',
  'class CacheTestMixin:',
  '    Cache = None',
  '    def test_defaults(self):',
  '        self.assertEqual(0, len(self.Cache(maxsize=1)))',
  '    def test_quiet(self):',
  '        self.Cache(maxsize=1)',
  '    def test_override(self):',
  '        self.Cache(maxsize=1)',
  'class BaseTest(unittest.TestCase):',
  '    def test_base(self):',
  '        self.assertEqual(1, size(1))',
].join('\n');

describe('Python tests inherited from a class of another test file', () => {
  it('a mixin of tests/__init__.py (from . import), a TestCase of tests/base.py (absolute, aliased module, re-exported, star): collected under the inheriting class', async () => {
    const got = rows(
      await sourcesOf({
        'tests/__init__.py': MIXIN + '\n',
        'tests/base.py': 'from tests import BaseTest as Reexported\n',
        'tests/test_lru.py': [
          'import unittest',
          'from . import CacheTestMixin',
          'class LRUCacheTest(unittest.TestCase, CacheTestMixin):',
          '    Cache = LRU',
          '    def test_override(self):',
          '        self.assertEqual(2, lru(2))',
          '',
        ].join('\n'),
        'tests/test_abs.py': [
          'from tests.base import Reexported',
          'class AbsTests(Reexported):',
          '    def test_own(self):',
          '        self.assertEqual(3, size(3))',
          '',
        ].join('\n'),
        'tests/test_mod.py': ['import tests as t', 'class ModTests(t.BaseTest):', '    pass', ''].join('\n'),
        'tests/test_skip.py': [
          'import unittest',
          'from . import CacheTestMixin',
          '@unittest.skip("later")',
          'class SkipTest(unittest.TestCase, CacheTestMixin):',
          '    pass',
          '',
        ].join('\n'),
        'tests/test_star.py': [
          'from tests.base import *',
          'from tests import *',
          'class StarTests(BaseTest):',
          '    pass',
          '',
        ].join('\n'),
      }),
    );
    assert.deepEqual(got, [
      // tests/__init__.py's own TestCase: its test, under its own name.
      ['tests/__init__.py', 'BaseTest', 'test_base', 'property'],
      ['tests/test_abs.py', 'AbsTests', 'test_base', 'property'],
      ['tests/test_abs.py', 'AbsTests', 'test_own', 'property'],
      ['tests/test_lru.py', 'LRUCacheTest', 'test_defaults', 'property'],
      // Its own test_override wins over the mixin's (which asserts nothing).
      ['tests/test_lru.py', 'LRUCacheTest', 'test_override', 'property'],
      // The mixin's test that asserts nothing is no check under the class that inherits it either.
      ['tests/test_lru.py', 'LRUCacheTest', 'test_quiet', 'no-assertion'],
      ['tests/test_mod.py', 'ModTests', 'test_base', 'property'],
      ['tests/test_skip.py', 'SkipTest', 'test_defaults', 'skipped'],
      ['tests/test_skip.py', 'SkipTest', 'test_override', 'skipped'],
      ['tests/test_skip.py', 'SkipTest', 'test_quiet', 'skipped'],
      ['tests/test_star.py', 'StarTests', 'test_base', 'property'],
    ]);
  });

  it('a base in no test file, or one two test files could be, adds nothing: the tests only it defines stay undefined', async () => {
    const got = rows(
      await sourcesOf({
        'tests/__init__.py': MIXIN + '\n',
        'tests/a/__init__.py': '',
        'tests/a/helpers.py': 'class Mixin:\n    def test_x(self):\n        assert f(1) == 1\n',
        'tests/helpers.py': 'class Mixin:\n    def test_x(self):\n        assert f(1) == 1\n',
        // `helpers` from tests/a/test_amb.py: tests/a/helpers.py or tests/helpers.py (absolute): two candidates.
        'tests/a/test_amb.py':
          'import unittest\nfrom helpers import Mixin\nclass AmbTest(unittest.TestCase, Mixin):\n    def test_own(self):\n        assert f(2) == 2\n',
        'tests/test_pkg.py':
          'import unittest\nfrom somepackage.testing import PackageMixin\nclass PkgTest(unittest.TestCase, PackageMixin):\n    def test_own(self):\n        assert f(3) == 3\n',
      }),
    );
    assert.deepEqual(
      got.filter((r) => r[0]!.includes('test_')),
      [
        ['tests/a/test_amb.py', 'AmbTest', 'test_own', 'property'],
        ['tests/test_pkg.py', 'PkgTest', 'test_own', 'property'],
      ],
    );
  });

  it("a base it cannot read (two files could be it, a package's, a TestCase not from unittest) leaves every inherited test opaque-base; unittest's and django's TestCase and object hide nothing", async () => {
    const base = 'class Base:\n    def test_base(self):\n        self.assertEqual(1, f(1))\n';
    const got = rows(
      await sourcesOf({
        'tests/__init__.py': base,
        'tests/helpers.py': 'class Mixin:\n    pass\n',
        'tests/helpers/__init__.py': 'class Mixin:\n    def test_base(self):\n        f(1)\n',
        'tests/test_amb.py':
          'import unittest\nfrom helpers import Mixin\nfrom . import Base\nclass AmbTest(Mixin, Base, unittest.TestCase):\n    def test_own(self):\n        self.assertEqual(2, f(2))\n',
        'tests/test_pkg.py':
          'from somepackage import Helper\nfrom . import Base\nclass TestPkg(Base, Helper):\n    pass\n',
        'tests/test_fake.py':
          'from mylib import TestCase\nfrom . import Base\nclass FakeTests(Base, TestCase):\n    pass\n',
        'tests/test_trusted.py': [
          'import unittest as u',
          'from unittest import TestCase',
          'from django.test import SimpleTestCase',
          'from . import Base',
          'class A(Base, u.TestCase):',
          '    pass',
          'class B(Base, TestCase, object):',
          '    pass',
          'class C(Base, SimpleTestCase):',
          '    pass',
          '',
        ].join('\n'),
      }),
    );
    assert.deepEqual(
      got.filter((r) => r[0] !== 'tests/__init__.py').map((r) => [r[0], r[1], r[2], r[3]]),
      [
        ['tests/test_amb.py', 'AmbTest', 'test_base', 'opaque-base'],
        ['tests/test_amb.py', 'AmbTest', 'test_own', 'property'],
        ['tests/test_fake.py', 'FakeTests', 'test_base', 'opaque-base'],
        ['tests/test_pkg.py', 'TestPkg', 'test_base', 'opaque-base'],
        ['tests/test_trusted.py', 'A', 'test_base', 'property'],
        ['tests/test_trusted.py', 'B', 'test_base', 'property'],
        ['tests/test_trusted.py', 'C', 'test_base', 'property'],
      ],
    );
  });

  it("Python's method resolution order decides which body runs, not the order the bases are walked depth first", async () => {
    // C(A, B), A(Base), B(Base): Python runs B.test_x (C3: C, A, B, Base), which asserts nothing;
    // a depth-first walk (C, A, Base, B) would have read Base's property instead.
    const src = [
      'import unittest',
      'class Base(unittest.TestCase):',
      '    def test_x(self):',
      '        self.assertEqual(1, f(1))',
      'class A(Base):',
      '    pass',
      'class B(Base):',
      '    def test_x(self):',
      '        f(1)',
      'class C(A, B):',
      '    pass',
      // No consistent order: Python refuses the class, so none of its tests is defined.
      'class X(A, Base):',
      '    pass',
      'class Y(Base, A):',
      '    pass',
      '',
    ].join('\n');
    const got = rows(await classifyPyTests('tests/test_mro.py', src));
    assert.deepEqual(got, [
      ['tests/test_mro.py', 'A', 'test_x', 'property'],
      ['tests/test_mro.py', 'B', 'test_x', 'no-assertion'],
      ['tests/test_mro.py', 'Base', 'test_x', 'property'],
      ['tests/test_mro.py', 'C', 'test_x', 'no-assertion'],
      ['tests/test_mro.py', 'X', 'test_x', 'property'],
    ]);
  });

  it('property: a class whose bases repeat or loop (across files too) never hangs, and every test it gets comes from a class of its order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 3 })), {
          minLength: 1,
          maxLength: 6,
        }),
        async (edges) => {
          const bases = new Map<number, number[]>();
          for (const [a, b] of edges) bases.set(a, [...(bases.get(a) ?? []), b]);
          const files: Record<string, string> = { 'tests/__init__.py': '' };
          for (let i = 0; i < 4; i++) {
            const bs = (bases.get(i) ?? []).map((b) => `C${b}`);
            const imports = (bases.get(i) ?? []).filter((b) => b !== i).map((b) => `from .test_c${b} import C${b}\n`);
            files[`tests/test_c${i}.py`] =
              `import unittest\n${[...new Set(imports)].join('')}class C${i}(${[...bs, 'unittest.TestCase'].join(', ')}):\n    def test_c${i}(self):\n        self.assertEqual(${i}, f(${i}))\n`;
          }
          const got = await sourcesOf(files);
          const reach = (i: number): Set<number> => {
            const seen = new Set([i]);
            for (let grew = true; grew;) {
              grew = false;
              for (const j of [...seen])
                for (const b of bases.get(j) ?? []) if (!seen.has(b)) grew = seen.add(b) !== undefined;
            }
            return seen;
          };
          for (const t of got) {
            const own = Number(/^C(\d)$/.exec(t.suite[0] ?? '')?.[1]);
            const from = Number(/^test_c(\d)$/.exec(t.name)?.[1]);
            assert.ok(reach(own).has(from), `${t.suite[0] ?? ''} got ${t.name}`);
            assert.equal(t.file, `tests/test_c${own}.py`);
          }
          // A class with no base of its own among them keeps its own test.
          for (let i = 0; i < 4; i++)
            if (!bases.has(i)) assert.ok(got.some((t) => t.suite[0] === `C${i}` && t.name === `test_c${i}`));
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('matching a pytest case whose file is the mixin', () => {
  const sources: TestSource[] = [
    {
      file: 'tests/__init__.py',
      suite: ['BaseTest'],
      name: 'test_defaults',
      line: 1,
      verdict: { kind: 'tautology', rule: 'no-assertion', detail: '' },
    },
    {
      file: 'tests/test_lru.py',
      suite: ['LRUCacheTest'],
      name: 'test_defaults',
      line: 1,
      verdict: { kind: 'property' },
    },
    {
      file: 'tests/test_lfu.py',
      suite: ['LFUCacheTest'],
      name: 'test_defaults',
      line: 1,
      verdict: { kind: 'tautology', rule: 'no-assertion', detail: '' },
    },
  ];
  it("xunit1's file is where the function is written; the dotted classname (the node id's file and class) decides", () => {
    // pytest: classname="tests.test_lru.LRUCacheTest" file="tests/__init__.py"
    const c = {
      id: 'tests/__init__.py::tests.test_lru.LRUCacheTest::test_defaults',
      file: 'tests/__init__.py',
      suite: 'tests.test_lru.LRUCacheTest',
      name: 'test_defaults',
      status: 'passed' as const,
      duration_ms: 1,
    };
    const got = matchCase(c, sources);
    assert.deepEqual(got.verdict, { kind: 'property' });
    assert.deepEqual(got.files, ['tests/test_lru.py']);
    assert.deepEqual(got.nodeIds, ['tests/test_lru.py::LRUCacheTest::test_defaults']);
  });
  it('a classname that names no definition falls back to the file, then the suite, as before', () => {
    const c = {
      id: 'tests/__init__.py::other.BaseTest::test_defaults',
      file: 'tests/__init__.py',
      suite: 'other.BaseTest',
      name: 'test_defaults',
      status: 'passed' as const,
      duration_ms: 1,
    };
    assert.deepEqual(matchCase(c, sources).files, ['tests/__init__.py']);
  });
});

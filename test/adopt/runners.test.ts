import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfig } from '../../src/config/read.js';
import { LAYOUT } from '../../src/core/layout.js';
import { NOW, PROJECTS, RUNNER, adopt, proposeChange } from './projects.js';

// Adoption, per runner: `init` in a generated project detects the runner, writes a config
// and proves it by running the suite once; then the whole workflow (propose, runner,
// verify) runs with that config, untouched, and ends in ALLOW: the agent's new function is
// credited by the property test it added, every case id naming its file.

const EXPECT: Readonly<
  Record<keyof typeof PROJECTS, { command: RegExp; fixtures: string[]; junit: string[]; ran: RegExp; origin?: RegExp }>
> = {
  'node-test': {
    command:
      /^\["node","--test","--test-reporter=spec","--test-reporter-destination=stdout","--test-reporter=\.\/\.sealgate\/node-test-reporter\.mjs","--test-reporter-destination=junit\.xml"\]$/,
    fixtures: ['test/fixtures/**'],
    junit: ['junit.xml'],
    ran: /1 test\(s\) ran: 1 passed, 0 failed/,
  },
  vitest: {
    command:
      /^\["node_modules\/\.bin\/vitest","run","--reporter=default","--reporter=junit","--outputFile\.junit=junit\.xml"\]$/,
    fixtures: ['test/fixture/**'],
    junit: ['junit.xml'],
    ran: /1 test\(s\) ran: 1 passed, 0 failed/,
  },
  jest: {
    command: /^\["node_modules\/\.bin\/jest","--ci","--json","--outputFile=jest-results\.json"\]$/,
    fixtures: [],
    junit: ['jest-results.json'],
    ran: /1 test\(s\) ran: 1 passed, 0 failed/,
  },
  pytest: {
    command: /^\["python3","-m","pytest","-p","no:cacheprovider","--junitxml=junit\.xml","-o","junit_family=xunit1"\]$/,
    fixtures: [],
    junit: ['junit.xml'],
    ran: /1 test\(s\) ran: 1 passed, 0 failed/,
    origin: /production code: pricing imported from src\/pricing\/__init__\.py/,
  },
};

for (const kind of Object.keys(PROJECTS) as (keyof typeof PROJECTS)[]) {
  test(`adoption (${kind}): init detects and proves the config, then propose, runner and verify end in ALLOW with no edit`, async () => {
    const a = await adopt(kind);
    try {
      const e = EXPECT[kind];
      assert.equal(a.init.exit, 0, a.init.stdout + a.init.stderr);
      const config = readConfig(a.dir);
      assert.match(JSON.stringify(config.test.command), e.command, a.init.stderr);
      assert.deepEqual(config.test.junit, e.junit);
      assert.deepEqual(
        config.test.env,
        kind === 'pytest' ? { PYTHONPATH: 'src' } : {},
        'a src layout is importable from src/ through test.env',
      );
      assert.deepEqual(config.fixtures, e.fixtures);
      assert.match(a.init.stderr, e.ran);
      assert.match(a.init.stderr, /every test id names its file \(1 test file\(s\)\)/);
      if (e.origin) assert.match(a.init.stderr, e.origin);
      const p = await proposeChange(a, kind);
      assert.equal(p.exit, 0, p.stderr);
      const r = await a.cli([
        'runner',
        '--repo',
        a.dir,
        '--runner-job',
        RUNNER,
        '--seed',
        '42',
        '--now',
        NOW,
        '--workers',
        '1',
        '--verbose',
      ]);
      assert.equal(r.stdout, 'ALLOW\n', r.stderr);
      // pytest keeps to one process: the first round of credit runs went beside the sealed run,
      // and the credit step took them (made from the very inputs it uses). The others' own
      // workers keep the cores busy: nothing runs beside them.
      if (kind === 'pytest')
        assert.match(
          r.stderr,
          /credit: the first round of runs \(the control, with the trace or the probes\) ran beside the sealed run/,
        );
      else assert.doesNotMatch(r.stderr, /beside the sealed run/);
      const results = JSON.parse(readFileSync(join(a.dir, LAYOUT.results), 'utf8')) as {
        cases: { id: string; file: string | null; status: string }[];
      };
      assert.ok(results.cases.length >= 2, JSON.stringify(results.cases));
      for (const c of results.cases)
        assert.ok(c.file !== null && c.id.startsWith(`${c.file}::`), `${c.id} names its file`);
      const credit = JSON.parse(readFileSync(join(a.dir, LAYOUT.credit), 'utf8')) as {
        credited: string[];
        pass: boolean;
      };
      assert.equal(credit.pass, true);
      assert.ok(
        credit.credited.some((s) => s.endsWith('discounted')),
        credit.credited.join(', '),
      );
      const v = await a.cli(['verify', '--repo', a.dir, '--now', NOW]);
      assert.equal(v.stdout, 'ALLOW\n', v.stderr);
      // The report says which test command ran, and per symbol the decisive mutant and test.
      const x = await a.cli(['explain', '--repo', a.dir, '--now', NOW]);
      assert.ok(x.stdout.includes(`test command ${JSON.stringify(config.test.command)}`), x.stdout);
      assert.match(x.stdout, /decisive: mutant \S+ .*killed by \S+/);
    } finally {
      a.dispose();
    }
  });
}

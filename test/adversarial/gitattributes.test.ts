import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { followUpFiles, propose, runnerJob } from './example.js';

// A .gitattributes under a test folder (a test-pattern path) tells git how to write the files
// below it at checkout. With working-tree-encoding=ISO-2022-JP, four harmless-looking characters
// in a string of the diff ('Щ罔羽薩') are written to the runner's tree as `\x1b$B';f(1);'\x1b(B`:
// the string closes and a call the reviewer never saw runs (here, and in every later checkout).
const SMUGGLED =
  "const f = (n: number): void => {\n  console.log(`smuggled ${n}`);\n};\nconst note = '\x1b$B';f(1);'\x1b(B';\n";

test(
  'adversarial: a .gitattributes that re-encodes test files at checkout is a policy change (E_POLICY_CHANGED)',
  { timeout: 300_000 },
  async () => {
    const follow = followUpFiles();
    const tests = follow['test/pricing.test.ts'] as string;
    const at = tests.indexOf('\ndescribe(');
    // The work-tree file is the encoded text: git add stores it as UTF-8, which the diff shows.
    const s = await propose({
      'src/pricing.ts': follow['src/pricing.ts'] as string,
      'test/.gitattributes': 'pricing.test.ts working-tree-encoding=ISO-2022-JP\n',
      'test/pricing.test.ts': tests.slice(0, at) + SMUGGLED + tests.slice(at),
    });
    try {
      assert.ok(
        s.patch.includes("const note = 'Щ罔羽薩';") && !s.patch.includes('f(1)'),
        'the diff shows a string, not the call',
      );
      const out = await runnerJob(s);
      const log = join(s.dir, 'review/logs/stdout.log');
      assert.ok(
        !existsSync(log) || !readFileSync(log, 'utf8').includes('smuggled 1'),
        'the runner ran code the diff does not show',
      );
      assert.equal(out.code, 'E_POLICY_CHANGED', out.stderr);
      assert.match(out.stderr, /adds test\/\.gitattributes, a policy file \(matches "\.gitattributes"\)/);
    } finally {
      s.dispose();
    }
  },
);

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/git.js';
import { toHtmlReport } from '../../src/report/html.js';
import type { ReviewReport } from '../../src/report/model.js';
import { DISCOUNT, FLAKE, NOW, TAX, proposedAndSealed, writeScoring } from '../workflow/review.js';

/** Debian's chromium; CI installs it with `apt-get install -y chromium`. */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const skip =
  CHROMIUM === undefined
    ? 'chromium is not installed (apt-get install -y chromium); the HTML report was not rendered'
    : false;

interface Rendered {
  readonly requests: string[];
  readonly visible: (selector: string) => Promise<boolean>;
  readonly text: string;
  readonly close: () => Promise<void>;
}

async function render(file: string): Promise<Rendered> {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM as string,
    args: ['--no-sandbox', '--disable-gpu'],
    headless: true,
  });
  const page = await browser.newPage();
  const requests: string[] = [];
  page.on('request', (req) => requests.push(req.url()));
  // Anything but the page itself is recorded above and refused here.
  const url = pathToFileURL(file).href;
  await page.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
  await page.goto(url, { waitUntil: 'load' });
  const text = await page.innerText('body');
  return {
    requests: requests.filter((u) => u !== url),
    visible: async (selector) => page.locator(selector).first().isVisible(),
    text,
    close: () => browser.close(),
  };
}

test('html report renders in headless Chromium: decision and every symbol visible, no request', { skip }, async () => {
  const r = await proposedAndSealed();
  try {
    writeScoring(r, 'tautology');
    const out = await runCli(
      ['explain', '--repo', r.dir, '--now', NOW, '--format', 'html', '--out', join(r.dir, 'report.html')],
      { cwd: r.dir },
    );
    assert.equal(out.stdout, 'E_CREDIT_MISSING\n');
    const page = await render(join(r.dir, 'report.html'));
    try {
      assert.equal(await page.visible('#decision'), true);
      assert.match(page.text, /E_CREDIT_MISSING/);
      for (const id of [DISCOUNT, TAX]) {
        assert.equal(await page.visible(`[data-symbol="${id}"]`), true, id);
        assert.ok(page.text.includes(id), id);
      }
      assert.match(page.text, /missing/);
      assert.match(page.text, /tax is computed/, 'the tautology is shown');
      assert.deepEqual(page.requests, []);
    } finally {
      await page.close();
    }
  } finally {
    r.dispose();
  }
});

test('html report: hostile ids are shown as text and fetch nothing', { skip }, async () => {
  const evil = 'src/x.ts::<img src="http://127.0.0.1:9/x.png">';
  const css = 'src/y.ts::</style><link rel=stylesheet href="http://127.0.0.1:9/s.css">';
  const report: ReviewReport = {
    isolation: { run: 'bwrap', credit: 'bwrap', noneAllowed: false },
    now: NOW,
    run: { command: [evil], policyDigest: css, sandbox: evil },
    decision: {
      code: 'E_CREDIT_MISSING',
      exit: 1,
      row: 'Merge rule, row 3',
      condition: 'c',
      nextStep: 'n',
      decisive: { code: 'E_CREDIT_MISSING', path: 'credit', detail: '<script>fetch("http://127.0.0.1:9/")</script>' },
      findings: [],
    },
    patch: {
      proposalId: 'p-1',
      authorJob: 'a',
      path: 'p.diff',
      sha256: '0'.repeat(64),
      matchesRecord: true,
      files: [],
    },
    seal: {
      runnerJob: 'b',
      sealedBy: 'b',
      sealedAt: NOW,
      recordStatus: 'sealed',
      fileStatus: 'sealed',
      digest: 'abc123',
      recomputed: 'match',
      drift: [],
      logs: { present: false, afterSeal: true, visibility: 'hidden' },
      baseCommit: 'a'.repeat(40),
      treeSealed: 'b'.repeat(40),
      treeRebuilt: '<img src="http://127.0.0.1:9/">',
      policyDigest: 'default',
      policySource: '<script>fetch(1)</script>',
      testCommand: ['<iframe>'],
    },
    credit: null,
    symbols: [evil, css].map((id) => ({
      id,
      status: 'missing' as const,
      tests: [],
      killed: [],
      reached: [],
      insensitive: [],
      tautologies: [],
      reason: null,
      location: null,
    })),
    moved: [{ from: 'a.ts::f', to: 'b.ts::<iframe src="http://127.0.0.1:9/">' }],
    deleted: [],
    typeOnly: [],
    uncreditable: [],
    undefinedTests: ['pricing::<b>made up</b>'],
    importedTests: [{ path: 'src/spec/<i>x</i>.ts', importedBy: css }],
    tautologies: [],
    insensitive: [],
    freeze: {
      freezeId: 'fz-1',
      authorJob: 'r',
      testId: FLAKE,
      expiresAt: NOW,
      checks: [{ name: 'n', ok: false, expected: '<b>', actual: '<i>' }],
    },
    steps: [],
  };
  const t = tempDir();
  try {
    const file = join(t.dir, 'evil.html');
    writeFileSync(file, toHtmlReport(report));
    const page = await render(file);
    try {
      assert.deepEqual(page.requests, []);
      assert.ok(page.text.includes(evil));
      assert.ok(page.text.includes(css));
      assert.equal(await page.visible('#decision'), true);
    } finally {
      await page.close();
    }
  } finally {
    t.dispose();
  }
});

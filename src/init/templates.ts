/**
 * The templates `sealgate init` writes. The workflow is a copy of
 * examples/github-actions/sealgate.yml (a test keeps the two identical).
 */

export const WORKFLOW_PATH = '.github/workflows/sealgate.yml';

export const WORKFLOW_YML = [
  "# sealgate: an agent's patch goes to human review only when three files agree, in order.",
  "# Three jobs; the author and runner ids are built from the run id, the job name and the attempt:",
  "#   author  records the proposal (it may write patches/*.diff, never a freeze);",
  "#   runner  seals the fixture digest, then runs the tests, scores credit and publishes logs;",
  "#   gate    audits the files alone and writes the reviewer's report to the job summary.",
  "# Logs are uploaded only in a step after the seal (spec section 3).",
  "name: sealgate",
  "",
  "on:",
  "  pull_request:",
  "",
  "permissions:",
  "  contents: read",
  "",
  "env:",
  "  AUTHOR_JOB: gh-${{ github.run_id }}-author-${{ github.run_attempt }}",
  "  RUNNER_JOB: gh-${{ github.run_id }}-runner-${{ github.run_attempt }}",
  "  PROPOSAL_ID: pr-${{ github.event.pull_request.number }}-${{ github.event.pull_request.head.sha }}",
  "  PATCH: patches/pr-${{ github.event.pull_request.number }}.diff",
  "",
  "jobs:",
  "  author:",
  "    runs-on: ubuntu-latest",
  "    steps:",
  "      - uses: actions/checkout@v4",
  "        with:",
  "          fetch-depth: 0",
  "      - uses: actions/setup-node@v4",
  "        with:",
  "          node-version: 20",
  "      - run: npm ci",
  "      - name: Write the patch",
  "        run: |",
  "          mkdir -p patches",
  "          git diff --binary \"${{ github.event.pull_request.base.sha }}\" \"${{ github.event.pull_request.head.sha }}\" > \"$PATCH\"",
  "      - name: Record the proposal (both job ids, before any test runs)",
  "        run: npx sealgate propose --author-job \"$AUTHOR_JOB\" --runner-job \"$RUNNER_JOB\" --patch \"$PATCH\" --proposal-id \"$PROPOSAL_ID\"",
  "      - uses: actions/upload-artifact@v4",
  "        with:",
  "          name: proposal",
  "          path: |",
  "            patches/",
  "            review/proposal.json",
  "            review/proposals.jsonl",
  "",
  "  runner:",
  "    needs: author",
  "    runs-on: ubuntu-latest",
  "    env:",
  "      SEED: \"42\"",
  "    steps:",
  "      - uses: actions/checkout@v4",
  "        with:",
  "          ref: ${{ github.event.pull_request.base.sha }}",
  "      - uses: actions/setup-node@v4",
  "        with:",
  "          node-version: 20",
  "      - run: npm ci",
  "      - uses: actions/download-artifact@v4",
  "        with:",
  "          name: proposal",
  "      - name: Apply the patch",
  "        run: git apply --index \"$PATCH\"",
  "      - name: Seal the fixture digest",
  "        run: npx sealgate seal --runner-job \"$RUNNER_JOB\"",
  "      - name: Run, score credit, publish logs",
  "        run: npx sealgate runner --runner-job \"$RUNNER_JOB\"",
  "      - name: Upload the review files and the published logs (after the seal)",
  "        if: always()",
  "        uses: actions/upload-artifact@v4",
  "        with:",
  "          name: review",
  "          path: |",
  "            review/",
  "            patches/",
  "",
  "  gate:",
  "    needs: [author, runner]",
  "    if: always()",
  "    runs-on: ubuntu-latest",
  "    steps:",
  "      - uses: actions/checkout@v4",
  "        with:",
  "          ref: ${{ github.event.pull_request.base.sha }}",
  "      - uses: actions/setup-node@v4",
  "        with:",
  "          node-version: 20",
  "      - run: npm ci",
  "      - uses: actions/download-artifact@v4",
  "        with:",
  "          name: review",
  "      - name: Apply the patch",
  "        run: git apply --index \"$PATCH\"",
  "      - name: Verify (one code; ALLOW opens a human review, it is not an auto-merge)",
  "        run: npx sealgate verify --review review --now \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"",
  "      - name: Reviewer's report",
  "        if: always()",
  "        run: npx sealgate explain --format md --review review >> \"$GITHUB_STEP_SUMMARY\"",
  '',
].join('\n');

export const CONFIG_PATH = 'sealgate.config.json';

/** What `init` looks at in the repository to pick a starting config. */
export interface RepoFacts {
  /** Fixture folders that exist, e.g. ["test/fixtures"]. */
  readonly fixtureDirs: readonly string[];
  readonly node: boolean;
  readonly python: boolean;
}

export const FIXTURE_CANDIDATES = ['fixtures', 'test/fixtures', 'tests/fixtures', 'testdata', 'test/data', 'tests/data'] as const;

/**
 * A starting sealgate.config.json, pure. Every value is a guess to review: the fixture
 * globs the seal hashes, the clock and locale it pins, and a test command writing JUnit XML.
 */
export function toStartingConfig(facts: RepoFacts): Record<string, unknown> {
  const command = facts.node
    ? ['node', '--test', '--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=junit', '--test-reporter-destination=junit.xml']
    : facts.python
      ? ['python3', '-m', 'pytest', '-p', 'no:cacheprovider', '--junitxml=junit.xml']
      : ['./run-tests', '--junit', 'junit.xml'];
  return {
    fixtures: facts.fixtureDirs.length > 0 ? facts.fixtureDirs.map((d) => `${d}/**`) : ['fixtures/**'],
    clock: 'frozen',
    locale: 'C.UTF-8',
    test: { command, junit: ['junit.xml'], timeoutSeconds: 600 },
    credit: { mutantBudget: 8 },
  };
}

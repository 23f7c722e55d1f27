/**
 * The templates `sealgate init` writes. The workflow is a copy of
 * examples/github-actions/sealgate.yml (a test keeps the two identical).
 */

export const WORKFLOW_PATH = '.github/workflows/sealgate.yml';

export const WORKFLOW_YML = [
  "# sealgate: an agent's patch goes to human review only when three files agree, in order.",
  "# pull_request_target runs THIS file as it is on the base branch: a PR cannot rewrite its own",
  "# gate. Every job checks out the base (the tool's policy, the trusted keys) and takes the PR",
  "# head only as data: `git diff base...head` into a file. No job checks out, applies, installs",
  "# or runs the PR's files; sealgate is installed at a pinned version outside the checkout and",
  "# invoked by absolute path (never npx/npm in a tree the PR wrote). The runner builds its own",
  "# tree from the base commit and the patch and runs the tests there, inside bubblewrap",
  "# (docs/workflow.md, \"In CI\", says why that is the only safe way, and what never to do).",
  "#   author  writes the patch and records the proposal (it may write patches/*.diff, never a freeze);",
  "#   runner  seals, runs the tests sandboxed, scores credit, publishes logs, signs the evidence;",
  "#   gate    audits the files against the base policy's trusted keys, reports to the job summary.",
  "# Logs are uploaded only in a step after the seal (spec section 3).",
  "name: sealgate",
  "",
  "on:",
  "  pull_request_target:",
  "    types: [opened, synchronize, reopened]",
  "",
  "permissions: {}",
  "",
  "env:",
  "  AUTHOR_JOB: gh-${{ github.run_id }}-author-${{ github.run_attempt }}",
  "  RUNNER_JOB: gh-${{ github.run_id }}-runner-${{ github.run_attempt }}",
  "  PROPOSAL_ID: pr-${{ github.event.pull_request.number }}-${{ github.event.pull_request.head.sha }}",
  "  PATCH: patches/pr-${{ github.event.pull_request.number }}.diff",
  "  BASE_SHA: ${{ github.event.pull_request.base.sha }}",
  "  HEAD_SHA: ${{ github.event.pull_request.head.sha }}",
  "  SEALGATE_VERSION: 0.1.0",
  "  SEALGATE: ${{ github.workspace }}/../sealgate-tool/node_modules/sealgate/bin/sealgate.js",
  "",
  "jobs:",
  "  author:",
  "    runs-on: ubuntu-24.04",
  "    permissions:",
  "      contents: read",
  "    steps:",
  "      - uses: actions/checkout@v4",
  "        with:",
  "          ref: ${{ github.event.pull_request.base.sha }}",
  "          fetch-depth: 0",
  "          persist-credentials: false",
  "      - uses: actions/setup-node@v4",
  "        with:",
  "          node-version: 20",
  "      - name: Install sealgate (pinned, outside the checkout, no scripts)",
  "        working-directory: ${{ github.workspace }}/..",
  "        run: npm install --prefix sealgate-tool --no-save --ignore-scripts --no-audit --no-fund \"sealgate@$SEALGATE_VERSION\"",
  "      - name: Write the patch (the PR head is data here, never checked out)",
  "        run: |",
  "          git fetch --no-tags --no-recurse-submodules origin \"$HEAD_SHA\"",
  "          mkdir -p patches",
  "          git diff --binary --no-ext-diff --no-textconv \"$BASE_SHA...$HEAD_SHA\" > \"$PATCH\"",
  "      - name: Record the proposal (both job ids and the base commit, before any test runs)",
  "        run: node \"$SEALGATE\" propose --author-job \"$AUTHOR_JOB\" --runner-job \"$RUNNER_JOB\" --patch \"$PATCH\" --proposal-id \"$PROPOSAL_ID\" --base \"$BASE_SHA\"",
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
  "    runs-on: ubuntu-24.04",
  "    permissions:",
  "      contents: read",
  "    env:",
  "      SEED: \"42\"",
  "    steps:",
  "      - uses: actions/checkout@v4",
  "        with:",
  "          ref: ${{ github.event.pull_request.base.sha }}",
  "          persist-credentials: false",
  "      - uses: actions/setup-node@v4",
  "        with:",
  "          node-version: 20",
  "      - name: Install bubblewrap and allow unprivileged user namespaces (Ubuntu 24.04 restricts them)",
  "        run: |",
  "          sudo apt-get update",
  "          sudo apt-get install -y bubblewrap",
  "          sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
  "      - name: Install sealgate (pinned, outside the checkout, no scripts)",
  "        working-directory: ${{ github.workspace }}/..",
  "        run: npm install --prefix sealgate-tool --no-save --ignore-scripts --no-audit --no-fund \"sealgate@$SEALGATE_VERSION\"",
  "      - name: Install the base's dependencies (the base's lockfile, no scripts)",
  "        run: npm ci --ignore-scripts --no-audit --no-fund",
  "      - uses: actions/download-artifact@v4",
  "        with:",
  "          name: proposal",
  "      - name: The runner job (builds its tree from the base and the patch; seal, sandboxed run, credit, publish, sign)",
  "        env:",
  "          SIGNING_KEY_PEM: ${{ secrets.SEALGATE_RUNNER_KEY }}",
  "        run: |",
  "          key=\"$RUNNER_TEMP/sealgate-runner-key.pem\"",
  "          (umask 077 && printf '%s\\n' \"$SIGNING_KEY_PEM\" > \"$key\")",
  "          unset SIGNING_KEY_PEM",
  "          status=0",
  "          node \"$SEALGATE\" runner --runner-job \"$RUNNER_JOB\" --expect-base \"$BASE_SHA\" --signing-key \"$key\" || status=$?",
  "          rm -f \"$key\"",
  "          exit \"$status\"",
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
  "    runs-on: ubuntu-24.04",
  "    permissions:",
  "      contents: read",
  "    steps:",
  "      - uses: actions/checkout@v4",
  "        with:",
  "          ref: ${{ github.event.pull_request.base.sha }}",
  "          persist-credentials: false",
  "      - uses: actions/setup-node@v4",
  "        with:",
  "          node-version: 20",
  "      - name: Install sealgate (pinned, outside the checkout, no scripts)",
  "        working-directory: ${{ github.workspace }}/..",
  "        run: npm install --prefix sealgate-tool --no-save --ignore-scripts --no-audit --no-fund \"sealgate@$SEALGATE_VERSION\"",
  "      - uses: actions/download-artifact@v4",
  "        with:",
  "          name: review",
  "      - name: Verify against the base policy's trusted keys (one code; ALLOW opens a human review, it is not an auto-merge)",
  "        run: node \"$SEALGATE\" verify --review review --expect-base \"$BASE_SHA\" --now \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\"",
  "      - name: Reviewer's report",
  "        if: always()",
  "        run: node \"$SEALGATE\" explain --format md --review review --expect-base \"$BASE_SHA\" >> \"$GITHUB_STEP_SUMMARY\"",
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

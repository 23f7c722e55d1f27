import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { checkSchema } from '../../core/document.js';
import { SealgateError, inputInvalid } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/io.js';
import { toJsonText } from '../../core/json.js';
import { CONFIG_PATH, FIXTURE_CANDIDATES, WORKFLOW_PATH, WORKFLOW_YML, toStartingConfig } from '../../init/templates.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../context.js';

const isDir = (p: string): boolean => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

export const command: Command = {
  usage: `Usage: sealgate init [--repo DIR] [--force]

Writes a starting ${CONFIG_PATH} (fixture globs, clock, locale, a test command that
writes JUnit XML) and the GitHub Actions workflow ${WORKFLOW_PATH} (author, runner
and gate jobs) into a repository. Review both: every value is a starting guess.
Existing files are left alone unless --force.

  --repo DIR   the repository (default: .)
  --force      overwrite existing files

Exit: 0 written, 1 a file exists (E_INPUT_INVALID), 2 bad arguments.
`,
  async run(ctx) {
    const { values } = parseCommandArgs(ctx.argv, { repo: { type: 'string' }, force: { type: 'boolean' } });
    const repo = resolve(ctx.cwd, values.repo ?? '.');
    if (!isDir(repo)) throw inputInvalid('--repo', `"${repo}" is not a folder`);
    const facts = {
      fixtureDirs: FIXTURE_CANDIDATES.filter((d) => isDir(join(repo, d))),
      node: existsSync(join(repo, 'package.json')),
      python: ['pyproject.toml', 'setup.py', 'pytest.ini', 'setup.cfg'].some((f) => existsSync(join(repo, f))),
    };
    const config = toStartingConfig(facts);
    const checked = checkSchema(ConfigSchema, config, CONFIG_PATH);
    if (!checked.ok) throw new SealgateError('E_INTERNAL', checked.findings.map((f) => ({ ...f, code: 'E_INTERNAL' as const })));
    const files: [string, string][] = [
      [CONFIG_PATH, toJsonText(config)],
      [WORKFLOW_PATH, WORKFLOW_YML],
    ];
    const existing = files.filter(([p]) => existsSync(join(repo, p))).map(([p]) => p);
    if (existing.length > 0 && !values.force) throw inputInvalid(existing.join(', '), 'already exists; pass --force to overwrite');
    for (const [p, text] of files) {
      mkdirSync(dirname(join(repo, p)), { recursive: true });
      writeFileAtomic(join(repo, p), text);
      ctx.stdout(`${join(repo, p)}\n`);
    }
    ctx.stderr(`init: review ${CONFIG_PATH} (fixtures: ${(config['fixtures'] as string[]).join(', ')}) and the test command before the first run\n`);
    return 0;
  },
};

import { join } from 'node:path';
import { fileExists } from '../core/io.js';
import { readDocument } from '../core/document.js';
import { inputInvalid } from '../core/errors.js';
import { ConfigSchema, DEFAULT_CONFIG, normaliseConfig, type Config } from './schema.js';

export const CONFIG_NAMES = ['sealgate.config.json', 'sealgate.config.yaml', 'sealgate.config.yml'] as const;

/** Find and read the repository's config; defaults when there is none. Two config files are ambiguous. */
export function readConfig(repo: string, explicit?: string): Config {
  if (explicit) return normaliseConfig(readDocument(explicit, ConfigSchema, 'json-or-yaml'));
  const found = CONFIG_NAMES.map((n) => join(repo, n)).filter(fileExists);
  if (found.length > 1) throw inputInvalid(found.join(', '), 'more than one sealgate config file; keep one');
  const [path] = found;
  return path ? normaliseConfig(readDocument(path, ConfigSchema, 'json-or-yaml')) : DEFAULT_CONFIG;
}

import { existsSync } from 'node:fs';
import { ConfigError } from './app-config.js';

/**
 * Loads `.env` from the working directory, as `.env.example` invites, before the
 * configuration is read. Variables already in the environment win over the file.
 * `ENV_FILE` names another file, or `none` to read no file (the tests' child processes
 * do, so that a developer's own `.env` does not leak into them).
 * Returns the file loaded, if any.
 */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = env.ENV_FILE?.trim();
  if (named === 'none') return undefined;
  const file = named || '.env';
  if (!existsSync(file)) {
    if (named) throw new ConfigError(`ENV_FILE names ${named}, which does not exist`);
    return undefined;
  }
  try {
    process.loadEnvFile(file);
  } catch (error) {
    throw new ConfigError(`ENV_FILE: cannot read ${file}: ${(error as Error).message}`);
  }
  return file;
}

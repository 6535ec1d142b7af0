import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError } from './config-error.js';

/**
 * The random secret kept in `file` (mode 600), created on first use. When two processes
 * start at the same moment, the one that writes second reads the first one's secret.
 */
export function readOrCreateSecretFile(file: string): string {
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readFileSync(file, 'utf8').trim();
}

/**
 * `env` with each of `names` read from the file `<NAME>_FILE` names when that is set (a
 * Kubernetes or Docker secret mounted as a file, a systemd credential), its content trimmed
 * of the final newline editors add. Setting both `NAME` and `NAME_FILE` is refused: which
 * one wins would be a guess.
 */
export function withFileVariables(env: Record<string, string | undefined>, names: readonly string[]): Record<string, string | undefined> {
  const result = { ...env };
  for (const name of names) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (env[name]?.trim()) throw new ConfigError(`Set ${name} or ${name}_FILE, not both`);
    let content: string;
    try {
      content = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`${name}_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    if (!content.trim()) throw new ConfigError(`${name}_FILE names ${file}, which is empty`);
    result[name] = content.replace(/\r?\n$/, '');
  }
  return result;
}

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The text of `migrations/index.ts` for the migration files in `dir`: every migration class,
 * in order of its file's timestamp. Written by `npm run migration:generate` after TypeORM
 * writes a new file, since ESM code cannot load a directory's files by pattern.
 */
export function migrationsIndex(dir: string): string {
  const migrations = readdirSync(dir)
    .filter((file) => /^\d+-.+\.ts$/.test(file))
    .sort()
    .map((file) => ({ module: `./${file.replace(/\.ts$/, '.js')}`, name: migrationClass(join(dir, file)) }));
  return [
    ...migrations.map(({ name, module }) => `import { ${name} } from '${module}';`),
    '',
    '/** Every migration, in order of its timestamp. `npm run migration:generate` writes this file. */',
    'export const MIGRATIONS = [',
    ...migrations.map(({ name }) => `  ${name},`),
    '];',
    '',
  ].join('\n');
}

function migrationClass(file: string): string {
  const name = /export class (\w+)/.exec(readFileSync(file, 'utf8'))?.[1];
  if (!name) throw new Error(`${file} exports no migration class`);
  return name;
}

// Run directly (from the project's root): rewrites src/database/migrations/index.ts.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = join('src', 'database', 'migrations');
  writeFileSync(join(dir, 'index.ts'), migrationsIndex(dir));
}

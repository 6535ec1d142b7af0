import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The design card's rules, checked on the source: a module reaches another only through
 * that module's index.ts, and domain code never imports TypeORM or Nest's HTTP layer.
 */
const SRC = resolve('src');
const MODULES = join(SRC, 'modules');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)\s[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] ?? m[2]);
}

const moduleOf = (path: string) => (path.startsWith(MODULES + sep) ? relative(MODULES, path).split(sep)[0] : undefined);

test('modules import each other only through index.ts', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(MODULES)) {
    const own = moduleOf(file);
    for (const specifier of imports(file).filter((s) => s.startsWith('.'))) {
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      const other = moduleOf(target);
      if (other && other !== own && target !== join(MODULES, other, 'index.ts')) {
        violations.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
      }
    }
  }
  expect(violations).toEqual([]);
});

test('domain code does not depend on TypeORM, Nest HTTP or the AWS SDK', () => {
  const violations = sourceFiles(MODULES)
    .filter((file) => file.split(sep).includes('domain'))
    .flatMap((file) =>
      imports(file)
        .filter((s) => /^(typeorm|@nestjs\/typeorm|@nestjs\/platform-fastify|fastify|@aws-sdk\/)/.test(s))
        .map((s) => `${relative(SRC, file)} imports ${s}`),
    );
  expect(violations).toEqual([]);
});

test('shared code does not depend on any module', () => {
  const violations = sourceFiles(join(SRC, 'shared')).flatMap((file) =>
    imports(file)
      .filter((s) => s.startsWith('.') && moduleOf(resolve(dirname(file), s)))
      .map((s) => `${relative(SRC, file)} imports ${s}`),
  );
  expect(violations).toEqual([]);
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The design card's rules, checked on the source: a module reaches another only through
 * that module's index.ts, and domain code reaches no framework, persistence or HTTP code.
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

/** Imports that exist at run time: `import type` and `export type` are erased by the compiler. */
const runtimeImports = (file: string) =>
  [...readFileSync(file, 'utf8').matchAll(/(?:import|export)\s+(?!type\s)[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|import\s+'([^']+)'/g)].map((m) => m[1] ?? m[2] ?? m[3]);

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

/** What a domain file may not reach: frameworks, persistence, transport and the HTTP layer. */
const FORBIDDEN_IN_DOMAIN = /^(@nestjs\/|class-validator|class-transformer|typeorm|fastify|@fastify\/|@aws-sdk\/)/;
const SHARED_HTTP = join(SRC, 'shared', 'http') + sep;

const resolveRelative = (from: string, specifier: string) => resolve(dirname(from), specifier.replace(/\.js$/, '.ts'));

/**
 * Every forbidden import a file reaches, directly or through the files it imports
 * (followed recursively), each as the chain that leads to it.
 */
export function forbiddenReach(file: string, importsOf: (file: string) => string[] = runtimeImports): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const visit = (current: string, chain: string[]) => {
    if (seen.has(current)) return;
    seen.add(current);
    for (const specifier of importsOf(current)) {
      const target = specifier.startsWith('.') ? resolveRelative(current, specifier) : undefined;
      const via = [...chain, relative(SRC, current)];
      if (target?.startsWith(SHARED_HTTP)) found.push(`${via.join(' → ')} → ${relative(SRC, target)}`);
      else if (target) visit(target, via);
      else if (FORBIDDEN_IN_DOMAIN.test(specifier)) found.push(`${via.join(' → ')} → ${specifier}`);
    }
  };
  visit(file, []);
  return found;
}

test('domain code depends on no framework, persistence, transport or HTTP code, even through other files', () => {
  const violations = sourceFiles(MODULES)
    .filter((file) => file.split(sep).includes('domain'))
    .flatMap((file) => forbiddenReach(file));
  expect(violations).toEqual([]);
});

test('the domain check follows imports through other files', () => {
  const domainFile = join(MODULES, 'example', 'domain', 'rule.ts');
  const graph: Record<string, string[]> = {
    [domainFile]: ['./helper.js'],
    [join(MODULES, 'example', 'domain', 'helper.ts')]: ['../../../shared/util.js'],
    [join(SRC, 'shared', 'util.ts')]: ['./http/identifiers.js', 'class-validator'],
  };
  expect(forbiddenReach(domainFile, (file) => graph[file] ?? [])).toEqual([
    'modules/example/domain/rule.ts → modules/example/domain/helper.ts → shared/util.ts → shared/http/identifiers.ts',
    'modules/example/domain/rule.ts → modules/example/domain/helper.ts → shared/util.ts → class-validator',
  ]);
});

test('shared code does not depend on any module', () => {
  const violations = sourceFiles(join(SRC, 'shared')).flatMap((file) =>
    imports(file)
      .filter((s) => s.startsWith('.') && moduleOf(resolve(dirname(file), s)))
      .map((s) => `${relative(SRC, file)} imports ${s}`),
  );
  expect(violations).toEqual([]);
});

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
  [...readFileSync(file, 'utf8').matchAll(/(?:import|export)\s+(?!type\s)[^'"]*?from\s+'([^']+)'|import\(\s*'([^']+)'\s*\)|import\s+'([^']+)'/g)].map(
    (m) => m[1] ?? m[2] ?? m[3],
  );

const moduleOf = (path: string) => (path.startsWith(MODULES + sep) ? relative(MODULES, path).split(sep)[0] : undefined);

/**
 * A module reaches another through its index.ts; its statement builders (queries.ts, the one
 * door for SQL) only from the infrastructure or the queries.ts of another module.
 */
export function crossModuleViolations(files: string[], importsOf: (file: string) => string[] = imports): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const own = moduleOf(file);
    const mayEmbedSql = own !== undefined && (file.startsWith(join(MODULES, own, 'infrastructure') + sep) || file === join(MODULES, own, 'queries.ts'));
    for (const specifier of importsOf(file).filter((s) => s.startsWith('.'))) {
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      const other = moduleOf(target);
      if (!other || other === own || target === join(MODULES, other, 'index.ts')) continue;
      if (target === join(MODULES, other, 'queries.ts') && mayEmbedSql) continue;
      violations.push(`${relative(SRC, file)} → ${relative(SRC, target)}`);
    }
  }
  return violations;
}

test('modules import each other only through index.ts, and SQL builders only into infrastructure', () => {
  expect(crossModuleViolations(sourceFiles(MODULES))).toEqual([]);
});

test('the cross-module check finds a planted internal import and statement builders outside infrastructure', () => {
  const files = {
    [join(MODULES, 'playback', 'infrastructure', 'pg-x.repository.ts')]: ['../../reading/queries.js', '../../reading/index.js', '../../reading/domain/x.js'],
    [join(MODULES, 'playback', 'application', 'x.service.ts')]: ['../../reading/queries.js'],
    [join(MODULES, 'playback', 'queries.ts')]: ['../reading/queries.js'],
  };
  expect(crossModuleViolations(Object.keys(files), (file) => files[file])).toEqual([
    'modules/playback/infrastructure/pg-x.repository.ts → modules/reading/domain/x.ts',
    'modules/playback/application/x.service.ts → modules/reading/queries.ts',
  ]);
});

/** Domain code carries no SQL: no domain file imports the statement toolkit (`sql`, fragments, slot shapes). */
export function sqlInDomain(files: string[], importsOf: (file: string) => string[] = imports): string[] {
  const toolkit = [join(SRC, 'shared', 'persistence', 'sql.ts'), join(SRC, 'shared', 'persistence', 'subscriber-key.ts')];
  return files
    .filter((file) => file.includes(`${sep}domain${sep}`))
    .flatMap((file) =>
      importsOf(file)
        .filter((s) => s.startsWith('.') && toolkit.includes(resolveRelative(file, s)))
        .map((s) => `${relative(SRC, file)} imports ${s}`),
    );
}

test('domain ports and rules carry no SQL', () => {
  expect(sqlInDomain(sourceFiles(MODULES))).toEqual([]);
});

test('the SQL-in-domain check finds a planted fragment type in a port', () => {
  const port = join(MODULES, 'example', 'domain', 'x.repository.ts');
  expect(sqlInDomain([port], () => ['../../../shared/persistence/sql.js'])).toEqual([
    'modules/example/domain/x.repository.ts imports ../../../shared/persistence/sql.js',
  ]);
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

/** A module's layer of a file: domain, application, infrastructure, http, or its root (module file, index). */
const layerOf = (file: string) => {
  const parts = relative(MODULES, file).split(sep);
  return parts.length > 2 ? parts[1] : 'root';
};

/**
 * Imports a layer may not make inside its module (issue 26): application code and HTTP
 * code reach persistence and adapters only through the ports of domain/. Exceptions are
 * named here with their reason.
 */
const LAYER_EXCEPTIONS: Record<string, string> = {
  // The local media route exists only for STORAGE=local: it serves that adapter's files.
  'modules/media/http/local-media.controller.ts → modules/media/infrastructure/local-media.storage.ts': 'the route of the local storage adapter',
};

export function layerViolations(files: string[], importsOf: (file: string) => string[] = runtimeImports): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    if (from !== 'application' && from !== 'http') continue;
    for (const specifier of importsOf(file).filter((s) => s.startsWith('.'))) {
      const target = resolveRelative(file, specifier);
      if (moduleOf(target) !== moduleOf(file) || layerOf(target) !== 'infrastructure') continue;
      const edge = `${relative(SRC, file)} → ${relative(SRC, target)}`;
      if (!LAYER_EXCEPTIONS[edge]) violations.push(edge);
    }
  }
  return violations;
}

test('application and HTTP code reach infrastructure only through domain ports (named exceptions aside)', () => {
  expect(layerViolations(sourceFiles(MODULES))).toEqual([]);
});

test('the layer check finds a planted application → infrastructure import', () => {
  const service = join(MODULES, 'example', 'application', 'thing.service.ts');
  expect(layerViolations([service], () => ['../infrastructure/thing.repository.js', '../domain/thing.js'])).toEqual([
    'modules/example/application/thing.service.ts → modules/example/infrastructure/thing.repository.ts',
  ]);
});

/**
 * What a module's door may hand out: its Nest module, application services and facades,
 * and domain types and rules. Never entities, SQL, row mappers or HTTP DTOs. The HTTP
 * exports are route decorators: identity's access, which every controller uses, and
 * idempotency's, which every write that takes a key uses.
 */
const DOOR_EXCEPTIONS = new Set(['modules/identity/http/access.decorators.ts', 'modules/idempotency/http/idempotency.decorators.ts']);

export function doorViolations(indexFiles: string[], importsOf: (file: string) => string[] = imports): string[] {
  return indexFiles.flatMap((index) =>
    importsOf(index)
      .map((specifier) => resolveRelative(index, specifier))
      .filter((target) => !DOOR_EXCEPTIONS.has(relative(SRC, target)))
      .filter((target) => {
        const layer = layerOf(target);
        return !(layer === 'domain' || layer === 'application' || (layer === 'root' && target.endsWith('.module.ts')));
      })
      .map((target) => `${relative(SRC, index)} exports from ${relative(SRC, target)}`),
  );
}

test('a module exports only its Nest module, application services and domain types (an allow-list)', () => {
  const doors = readdirSync(MODULES).map((name) => join(MODULES, name, 'index.ts'));
  expect(doorViolations(doors)).toEqual([]);
});

test('the door check finds a planted entity, SQL or DTO export', () => {
  const door = join(MODULES, 'example', 'index.ts');
  expect(doorViolations([door], () => ['./example.module.js', './application/x.service.js', './infrastructure/x.entities.js', './http/x.dto.js'])).toEqual([
    'modules/example/index.ts exports from modules/example/infrastructure/x.entities.ts',
    'modules/example/index.ts exports from modules/example/http/x.dto.ts',
  ]);
});

/** Every cycle of runtime imports among `files`, each as the path around it. */
export function importCycles(files: string[], importsOf: (file: string) => string[] = runtimeImports): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'visiting');
    stack.push(file);
    for (const specifier of importsOf(file).filter((s) => s.startsWith('.'))) {
      const target = resolveRelative(file, specifier);
      if (state.get(target) === 'visiting') cycles.push([...stack.slice(stack.indexOf(target)), target].map((f) => relative(SRC, f)).join(' → '));
      else if (!state.has(target) && files.includes(target)) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}

test('no file reaches itself through the runtime imports of src/', () => {
  expect(importCycles(sourceFiles(SRC))).toEqual([]);
});

test('the cycle check finds a planted cycle', () => {
  const [a, b, c] = ['a.ts', 'b.ts', 'c.ts'].map((name) => join(SRC, name));
  const graph: Record<string, string[]> = { [a]: ['./b.js'], [b]: ['./c.js'], [c]: ['./a.js'] };
  expect(importCycles([a, b, c], (file) => graph[file] ?? [])).toEqual(['a.ts → b.ts → c.ts → a.ts']);
});

test('configuration depends on nothing of the service but itself', () => {
  const violations = sourceFiles(join(SRC, 'config')).flatMap((file) =>
    imports(file)
      .filter((s) => s.startsWith('.') && !resolveRelative(file, s).startsWith(join(SRC, 'config') + sep))
      .map((s) => `${relative(SRC, file)} imports ${s}`),
  );
  expect(violations).toEqual([]);
});

const BENCH = resolve('bench');
const BENCH_ROOMS = ['load', 'soak', 'baseline', 'probes', 'shared'];
/** Which rooms a bench room may import: load and soak drive servers built from shared code; the baseline and probes stand alone. */
const BENCH_ROOM_IMPORTS: Record<string, string[]> = {
  load: ['load', 'shared', 'baseline', 'probes'],
  soak: ['soak', 'shared'],
  shared: ['shared'],
  baseline: ['baseline'],
  probes: ['probes'],
};

/**
 * The bench's rules: its code lives in rooms; a room imports only the rooms it may; and it
 * reaches the service like another module's infrastructure would, through a module's index.ts
 * or its statement builders (queries.ts), plus the service's non-module code.
 */
export function benchViolations(files: string[], importsOf: (file: string) => string[] = imports): string[] {
  const violations: string[] = [];
  for (const file of files) {
    const room = relative(BENCH, file).split(sep)[0];
    if (!BENCH_ROOMS.includes(room)) {
      violations.push(`${relative(BENCH, file)}: outside the rooms ${BENCH_ROOMS.join(', ')}`);
      continue;
    }
    for (const specifier of importsOf(file).filter((s) => s.startsWith('.'))) {
      const target = resolve(dirname(file), specifier.replace(/\.js$/, '.ts'));
      if (target.startsWith(BENCH + sep)) {
        const targetRoom = relative(BENCH, target).split(sep)[0];
        if (!BENCH_ROOM_IMPORTS[room].includes(targetRoom))
          violations.push(`${relative(BENCH, file)} → ${relative(BENCH, target)}: ${room} may not import ${targetRoom}`);
      } else if (target.startsWith(MODULES + sep)) {
        const module = relative(MODULES, target).split(sep)[0];
        if (target !== join(MODULES, module, 'index.ts') && target !== join(MODULES, module, 'queries.ts'))
          violations.push(`${relative(BENCH, file)} → ${relative(SRC, target)}: past the module's door`);
      }
    }
  }
  return violations;
}

const benchFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'results' ? [] : benchFiles(path);
    return /\.(ts|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });

test('the bench keeps to its rooms and reaches modules through their doors', () => {
  const files = benchFiles(BENCH);
  expect(files.length).toBeGreaterThan(20);
  expect(benchViolations(files)).toEqual([]);
});

test('the bench check finds a planted file outside the rooms, a forbidden room and a module internal', () => {
  const planted = {
    [join(BENCH, 'stray.ts')]: [],
    [join(BENCH, 'shared', 'x.ts')]: ['../load/run.js'],
    [join(BENCH, 'load', 'y.ts')]: ['../../src/modules/webhooks/application/waiting-polls.js', '../../src/modules/webhooks/index.js', '../shared/x.js'],
  };
  expect(benchViolations(Object.keys(planted), (file) => planted[file])).toEqual([
    'stray.ts: outside the rooms load, soak, baseline, probes, shared',
    'shared/x.ts → load/run.ts: shared may not import load',
    "load/y.ts → modules/webhooks/application/waiting-polls.ts: past the module's door",
  ]);
});

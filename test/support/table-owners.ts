import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { getMetadataArgsStorage } from 'typeorm';

/**
 * Which module owns which table, read from `src/database/entities.ts`: each module's entity
 * list is imported from its own infrastructure there, and each entity names its table.
 */
export async function tableOwners(): Promise<Map<string, string>> {
  const entitiesFile = resolve('src/database/entities.ts');
  const owners = new Map<string, string>();
  const imports = [...readFileSync(entitiesFile, 'utf8').matchAll(/import \{ (\w+) \} from '\.\.\/modules\/([\w-]+)\/(infrastructure\/[\w.-]+)\.js'/g)];
  for (const [, list, module, path] of imports) {
    const loaded = (await import(pathToFileURL(resolve('src/modules', module, `${path}.ts`)).href)) as Record<string, unknown[]>;
    for (const entity of loaded[list]) {
      const table = getMetadataArgsStorage().tables.find((t) => t.target === entity)?.name;
      if (table) owners.set(table, module);
    }
  }
  return owners;
}

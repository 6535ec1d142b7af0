/**
 * Version 1 of the signed-count trigger texts (ADR 0129), shared by the count migrations
 * from 1764100300000 on. Frozen like the migrations that use it
 * (test/architecture/landed-migrations.spec.ts): a change is a new version of this file.
 */

/**
 * The longest reporting period, in days, plus one: counts fold every previous day older than
 * `day - WINDOW_CLAMP_DAYS` into one, which is sound because no period is longer.
 */
export const WINDOW_CLAMP_DAYS = 366;

/** The rows a trigger counts, signed: +1 for a row that is there now, -1 for one that is gone. */
export type Change = 'inserted' | 'deleted' | 'updated';

export function signedRows(columns: string[], change: Change): string {
  const list = (prefix: string) => columns.map((column) => prefix + column).join(', ');
  if (change === 'inserted') return `SELECT ${list('')}, 1 AS sign FROM new_rows`;
  if (change === 'deleted') return `SELECT ${list('')}, -1 AS sign FROM old_rows`;
  return `SELECT ${list('OLD.')}, -1 AS sign UNION ALL SELECT ${list('NEW.')}, 1`;
}

/**
 * Inserts and deletes are counted once per statement, from its transition table (a bulk
 * load costs one statement more, not one per row); updates row by row, and only those that
 * change a counted column: the frequent ones (a reader's current chapter) call nothing.
 */
export function countTriggers(table: string, fn: string, measure: string | null, changed: string, name = 'signed_count'): string {
  const args = measure === null ? '' : `'${measure}'`;
  return `
      CREATE TRIGGER ${name}_insert AFTER INSERT ON ${table}
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${args});
      CREATE TRIGGER ${name}_update AFTER UPDATE ON ${table}
        FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION ${fn}(${args});
      CREATE TRIGGER ${name}_delete AFTER DELETE ON ${table}
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${fn}(${args});`;
}

/** The trigger function of a signed-count table: `deltas` writes a statement's (or a row's) deltas for each kind of change. */
export function countFunction(name: string, deltas: (change: Change) => string): string {
  return `
      CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN ${deltas('inserted')}
        ELSIF TG_OP = 'DELETE' THEN ${deltas('deleted')}
        ELSE ${deltas('updated')}
        END IF;
        RETURN NULL;
      END $$;`;
}

import { Injectable } from '@nestjs/common';
import { Db } from '../../../shared/persistence/db.js';
import { deletionOrder, type TableReference } from '../domain/deletion-order.js';
import { PartnerRowsRepository, type PartnerTable } from '../domain/partner-rows.repository.js';

/**
 * The tables are read from the catalog at each run, not listed here: a table added later
 * with a `partner_id` column is swept without a change (the test checks none is left).
 */
@Injectable()
export class PgPartnerRowsRepository extends PartnerRowsRepository {
  constructor(private readonly db: Db) {
    super();
  }

  async partnerName(partnerId: string): Promise<string | null> {
    const [row] = await this.db.query<{ name: string }>('SELECT name FROM partners WHERE id = $1', [partnerId]);
    return row?.name ?? null;
  }

  async tablesInDeletionOrder(): Promise<PartnerTable[]> {
    // Plain tables and partitions (relkind r); a partitioned parent holds no rows of its own.
    const tables = await this.db.query<PartnerTable>(
      `SELECT format('%I', c.relname) AS relation, COALESCE(pg_partition_root(c.oid), c.oid)::regclass::text AS table
         FROM information_schema.columns col
         JOIN pg_class c ON c.relname = col.table_name AND c.relnamespace = col.table_schema::regnamespace
        WHERE col.table_schema = current_schema() AND col.column_name = 'partner_id' AND c.relkind = 'r'`,
    );
    const references = await this.db.query<TableReference>(
      `SELECT COALESCE(pg_partition_root(conrelid), conrelid)::regclass::text AS referencing,
              COALESCE(pg_partition_root(confrelid), confrelid)::regclass::text AS referenced
         FROM pg_constraint WHERE contype = 'f' AND connamespace = current_schema()::regnamespace`,
    );
    const order = deletionOrder([...new Set(tables.map((t) => t.table))], references);
    return tables.sort((a, b) => order.indexOf(a.table) - order.indexOf(b.table) || a.relation.localeCompare(b.relation));
  }

  async deleteBatch(relation: string, partnerId: string, limit: number): Promise<number> {
    // By physical row address: one short statement that locks only the rows it deletes.
    const rows = await this.db.query<{ deleted: string }>(
      `WITH gone AS (
         DELETE FROM ${relation} WHERE ctid = ANY (ARRAY(SELECT ctid FROM ${relation} WHERE partner_id = $1 LIMIT $2)) RETURNING 1
       ) SELECT count(*) AS deleted FROM gone`,
      [partnerId, limit],
    );
    return Number(rows[0].deleted);
  }

  async deletePartner(partnerId: string): Promise<void> {
    await this.db.query('DELETE FROM partners WHERE id = $1', [partnerId]);
  }
}

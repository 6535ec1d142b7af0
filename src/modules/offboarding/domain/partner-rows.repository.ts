/** A table that holds partner rows; a partitioned table is swept partition by partition. */
export interface PartnerTable {
  /** What deletes address: the table itself, or one partition of it. */
  relation: string;
  /** The table as people name it: the partitioned parent of a partition. */
  table: string;
}

/** Every row a partner left in the database, found by its `partner_id` column (DECISIONS 29). */
export abstract class PartnerRowsRepository {
  abstract partnerName(partnerId: string): Promise<string | null>;
  /** Every table with a `partner_id` column, in an order where no batch breaks a foreign key. */
  abstract tablesInDeletionOrder(): Promise<PartnerTable[]>;
  /** Deletes at most `limit` of the partner's rows from `relation`; how many it deleted. */
  abstract deleteBatch(relation: string, partnerId: string, limit: number): Promise<number>;
  /** Deletes the partner itself, once no row refers to it. */
  abstract deletePartner(partnerId: string): Promise<void>;
}

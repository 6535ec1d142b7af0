/** A foreign key: rows of `referencing` point at rows of `referenced`. */
export interface TableReference {
  referencing: string;
  referenced: string;
}

/**
 * The tables in an order where each comes before every table it references, so a batch
 * never deletes a row another table still points at. Ties keep name order, so runs agree.
 * References to tables outside the list are ignored (the caller deletes those itself).
 */
export function deletionOrder(tables: readonly string[], references: readonly TableReference[]): string[] {
  const pending = new Set([...tables].sort());
  const edges = references.filter((edge) => edge.referencing !== edge.referenced && pending.has(edge.referencing) && pending.has(edge.referenced));
  const ordered: string[] = [];
  while (pending.size > 0) {
    // A table may go once nothing still pending references it.
    const next = [...pending].find((table) => !edges.some((edge) => edge.referenced === table && pending.has(edge.referencing)));
    if (next === undefined) throw new Error(`foreign keys form a cycle among ${[...pending].join(', ')}`);
    ordered.push(next);
    pending.delete(next);
  }
  return ordered;
}

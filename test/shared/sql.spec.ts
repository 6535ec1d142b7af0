import fc from 'fast-check';
import { defineStatement, sql } from '../../src/shared/persistence/sql.js';

describe('defineStatement', () => {
  it('numbers placeholders in order, binds a slot once wherever it is named, and fixed values where they stand', () => {
    const inner = (s: Record<'partner' | 'subscriber', unknown>) =>
      sql`SELECT x FROM t WHERE grants = ANY (${['a', 'b']}) AND partner = ${s.partner} AND subscriber = ${s.subscriber}`;
    const statement = defineStatement(
      ['partner', 'subscriber', 'novel'],
      (s) => sql`WITH r AS (${inner(s)}) SELECT * FROM r, u WHERE u.partner = ${s.partner} AND u.novel = ${s.novel} AND u.kind = ${'audio'}`,
    );
    expect(statement.text).toBe(
      'WITH r AS (SELECT x FROM t WHERE grants = ANY ($1) AND partner = $2 AND subscriber = $3) SELECT * FROM r, u WHERE u.partner = $2 AND u.novel = $4 AND u.kind = $5',
    );
    expect(statement.bind({ partner: 'p', subscriber: 's', novel: 'n' })).toEqual([['a', 'b'], 'p', 's', 'n', 'audio']);
  });

  it('binds each placeholder the value PostgreSQL will read for it (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 12 }),
        fc.record({ a: fc.integer(), b: fc.string(), c: fc.boolean() }),
        (order, args) => {
          const statement = defineStatement(['a', 'b', 'c'], (s) => order.reduce((fragment, name) => sql`${fragment} ${s[name as 'a' | 'b' | 'c']}`, sql``));
          const values = statement.bind(args);
          const placeholders = [...statement.text.matchAll(/\$(\d+)/g)].map((match) => values[Number(match[1]) - 1]);
          expect(placeholders).toEqual(order.map((name) => args[name as 'a' | 'b' | 'c']));
          expect(values).toHaveLength(new Set(order).size);
        },
      ),
    );
  });
});

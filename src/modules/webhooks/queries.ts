/**
 * The webhooks module's statements that the bench runs too (ADR 0025): the delivery queue's
 * fair claim, which the bench explains when it misses its target (bench/load/webhook-backlog.ts).
 */

/** The delivery is leased and its lease has not ended: its attempt is in flight. */
export const LEASE_IS_LIVE = (table: string) => `${table}.status = 'pending' AND ${table}.claim_token IS NOT NULL AND ${table}.next_attempt_at > now()`;

/**
 * Every tenant that has an endpoint, once: every pending delivery belongs to an endpoint of
 * its own tenant, so the claim and the backlog gauges probe these, never the queue's index.
 */
export const TENANTS_WITH_ENDPOINTS = `(SELECT DISTINCT partner_id, environment FROM webhook_endpoints)`;

/**
 * The fair claim ($1 deliveries at most, $2 live leases per tenant, leases of $3 ms).
 * Each tenant with due deliveries offers its earliest ones, as many as it has lease room
 * for; the offers are taken in turns (every tenant's first, then every tenant's second…),
 * so a tenant with a backlog of slow deliveries cannot crowd the others out. The rows are
 * locked with SKIP LOCKED and updated in the same statement, as a redelivery may hold one.
 * (The UPDATE sits in a CTE because TypeORM answers a top-level UPDATE with a row count.)
 *
 * Its cost grows with the tenants that have endpoints, never with a backlog (ADR 0060):
 * each tenant with an endpoint is asked whether its earliest pending row is due, its live
 * leases are counted in the index of leased rows, and only its offers are read. Tenants come
 * from the endpoints, not from the queue's index: a deleted endpoint takes its backlog with it,
 * and the dead index entries it leaves until vacuum are then never walked, even while another
 * transaction's snapshot keeps them from being skipped cheaply.
 */
export const CLAIM_SQL = `
  WITH tenants AS (
    SELECT t.partner_id, t.environment FROM ${TENANTS_WITH_ENDPOINTS} t
    WHERE (SELECT min(d.next_attempt_at) FROM webhook_deliveries d
           WHERE d.partner_id = t.partner_id AND d.environment = t.environment AND d.status = 'pending') <= now()
  ), offers AS (
    SELECT o.id, o.turn, o.next_attempt_at
    FROM tenants t
    CROSS JOIN LATERAL (
      SELECT count(*)::int AS n FROM webhook_deliveries l
      WHERE l.partner_id = t.partner_id AND l.environment = t.environment AND ${LEASE_IS_LIVE('l')}
    ) live
    CROSS JOIN LATERAL (
      SELECT d.id, d.next_attempt_at, row_number() OVER (ORDER BY d.next_attempt_at, d.id) AS turn
      FROM webhook_deliveries d
      WHERE d.partner_id = t.partner_id AND d.environment = t.environment
        AND d.status = 'pending' AND d.next_attempt_at <= now()
      ORDER BY d.next_attempt_at, d.id
      LIMIT greatest($2 - live.n, 0)
    ) o
    ORDER BY o.turn, o.next_attempt_at, o.id
    LIMIT $1
  ), due AS (
    SELECT id FROM webhook_deliveries
    WHERE id IN (SELECT id FROM offers) AND status = 'pending' AND next_attempt_at <= now()
    FOR UPDATE SKIP LOCKED
  ), claimed AS (
    UPDATE webhook_deliveries d
    SET next_attempt_at = now() + make_interval(secs => $3::double precision / 1000),
        claim_token = gen_random_uuid(), updated_at = now()
    FROM due
    WHERE d.id = due.id
    RETURNING d.id, d.claim_token, d.attempts_made, d.event_id, d.endpoint_id, d.environment
  )
  SELECT c.id, c.claim_token, c.attempts_made, c.event_id, c.environment, e.seq, e.payload::text AS body, ep.url,
    ARRAY(SELECT s.sealed_secret FROM webhook_endpoint_secrets s
          WHERE s.endpoint_id = c.endpoint_id AND (s.expires_at IS NULL OR s.expires_at > now())
          ORDER BY s.created_at DESC) AS sealed_secrets
  FROM claimed c
  JOIN webhook_events e ON e.event_id = c.event_id
  JOIN webhook_endpoints ep ON ep.id = c.endpoint_id`;

// What the bare probes and the framework probes share: the same statement and the same answers,
// so that the two differ only in what serves them.

/**
 * The probes' own rows live in their own schema, created at start: they do not depend on the
 * service's tables, which change with the work the probes are there to measure.
 */
export const PROBE_SCHEMA = 'limit_probe';

/** How many rows the database probes spread their requests over (one per bench subscriber of the quick run). */
export const PROBE_ROWS = 10_000;

/** The json probe's answer: small and fixed, like a category list. */
export const JSON_PROBE_ANSWER = { data: [{ id: 'romance', name: 'Romance', sort_order: 1 }] };

/** The json-page answer's JSON around its padding: `{"data":"xxx…"}`. */
const PAGE_FRAME = '{"data":""}';

/**
 * The json-page probes' answer: JSON text of exactly `bytes` bytes, sent as text as the
 * catalog sends its pages (catalog.controller.ts). What the answer's size alone costs, beside
 * the json probe. The size is measured, not assumed: the bench reads the service's
 * GET /v1/novels?page=1 after seeding, passes its length to the probes it starts next
 * (PROBE_PAGE_BYTES, see bench/load/run.ts) and checks their answers' length before loading
 * them. One padded string rather than a copy of the page: what is measured is the bytes (the
 * loopback TCP, the load generator reading them), which nothing compresses and autocannon
 * reads by length without parsing, so their content does not count; the text is made once.
 */
export function pageProbeAnswer(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < PAGE_FRAME.length) throw new Error(`probe: a page answer of ${bytes} bytes: at least ${PAGE_FRAME.length}`);
  return `{"data":"${'x'.repeat(bytes - PAGE_FRAME.length)}"}`;
}

/**
 * PROBE_PAGE_BYTES, the size of the json-page probes' answer. Required: a default would be a
 * size nobody measured.
 */
export function probePageBytes(env: NodeJS.ProcessEnv = process.env): number {
  const bytes = Number(env.PROBE_PAGE_BYTES);
  if (!env.PROBE_PAGE_BYTES || !Number.isInteger(bytes) || bytes < PAGE_FRAME.length) {
    throw new Error(`probe: PROBE_PAGE_BYTES, the size of a catalog page the bench measured, is required (got ${env.PROBE_PAGE_BYTES ?? 'nothing'})`);
  }
  return bytes;
}

/*
 * The probes' statements are named, on both stacks, as the service and the baseline send
 * their hot statements (ADR 0123): PostgreSQL parses and plans each once per connection.
 * Sent unnamed, the bare probes' were parsed and planned at every request (backend CPU per
 * pk-select 0.045 ms against 0.026 named, measured 2026-11-29), so the framework probe,
 * which sends them named, outran the bare probe meant to bound it (8 825 against 7 777 req/s
 * in the sitting of 2026-11-29 17:20).
 */

/** The pk-select probe's statement, over the rows bench/probes/pk-select.ts creates. */
export const PK_SELECT = {
  name: 'bench_probe_pk_select',
  text: `SELECT novel_id, chapter_number, position_seconds, updated_at FROM ${PROBE_SCHEMA}.rows WHERE id = $1`,
} as const;

export interface ProbeRow {
  novel_id: string;
  chapter_number: number;
  position_seconds: number;
  updated_at: Date;
}

export const probeRowAnswer = (row: ProbeRow) => ({
  novel_id: row.novel_id,
  chapter_number: row.chapter_number,
  position_seconds: row.position_seconds,
  updated_at: row.updated_at.toISOString(),
});

/** The upsert probe's statement and body, over the table bench/probes/upsert.ts creates. */
export const UPSERT = {
  name: 'bench_probe_upsert',
  text: `INSERT INTO ${PROBE_SCHEMA}.positions (id, novel_id, chapter_number, position_seconds, updated_at) VALUES ($1, $2, $3, $4, now())
  ON CONFLICT (id) DO UPDATE SET novel_id = EXCLUDED.novel_id, chapter_number = EXCLUDED.chapter_number, position_seconds = EXCLUDED.position_seconds, updated_at = EXCLUDED.updated_at
  RETURNING updated_at`,
} as const;

export interface UpsertBody {
  novel_id: string;
  chapter_number: number;
  position_seconds: number;
}

/** The framework probes' routes (bench/probes/framework.ts), on the /v1 mount so that the access guard runs as on the endpoints. */
export const FRAMEWORK_PROBE_PATHS = {
  json: 'v1/bench-probe/json',
  jsonPage: 'v1/bench-probe/json-page',
  pkSelect: 'v1/bench-probe/pk-select',
  upsert: 'v1/bench-probe/upsert',
} as const;

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

/**
 * The json-page probe's answer: JSON text of exactly `bytes` bytes (the size of a catalog
 * page the service answers, measured by the bench at start: PROBE_PAGE_BYTES), sent as text
 * as the catalog sends its pages. What the answer's size alone costs, beside the json probe.
 */
export function pageProbeAnswer(bytes: number): string {
  const frame = '{"data":""}';
  return `{"data":"${'x'.repeat(Math.max(0, bytes - frame.length))}"}`;
}

/** PROBE_PAGE_BYTES, the size of the json-page probes' answer. */
export const probePageBytes = (): number => Number(process.env.PROBE_PAGE_BYTES ?? 12_000);

/** The pk-select probe's statement, over the rows bench/probes/pk-select.ts creates. */
export const PK_SELECT = `SELECT novel_id, chapter_number, position_seconds, updated_at FROM ${PROBE_SCHEMA}.rows WHERE id = $1`;

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
export const UPSERT = `INSERT INTO ${PROBE_SCHEMA}.positions (id, novel_id, chapter_number, position_seconds, updated_at) VALUES ($1, $2, $3, $4, now())
  ON CONFLICT (id) DO UPDATE SET novel_id = EXCLUDED.novel_id, chapter_number = EXCLUDED.chapter_number, position_seconds = EXCLUDED.position_seconds, updated_at = EXCLUDED.updated_at
  RETURNING updated_at`;

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

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * All SQL parameterized. Every value reaches PostgreSQL as a bind parameter
 * ($1, $2…); text is spliced into SQL only for identifiers and fixed fragments. This
 * lists every splice into SQL-looking text in src/ (template literals and string
 * concatenation), so that a new one fails here and is reviewed before it is added below.
 */
const REVIEWED: Record<string, string[]> = {
  // Column names from constant lists (the catalog's writes; its reads come from memory).
  'src/modules/catalog/infrastructure/typeorm-catalog.repository.ts': [
    "columnsOf(NOVEL_COLUMNS, '')",
    "columnsOf(NOVEL_COLUMNS, 'n.')",
    "NOVEL_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')",
    "columnsOf(NOVEL_COLUMNS, 'novels.')",
    "columnsOf(NOVEL_COLUMNS, 'EXCLUDED.')",
    "columnsOf(CHAPTER_COLUMNS, '')",
    "columnsOf(CHAPTER_COLUMNS, 'c.')",
    "CHAPTER_COLUMNS.map((c) => `${c} = EXCLUDED.${c}`).join(', ')",
    "columnsOf(CHAPTER_COLUMNS, 'chapters.')",
    "columnsOf(CHAPTER_COLUMNS, 'EXCLUDED.')",
  ],
  // A constant column list, and a constant sub-select of the published novels' ids.
  'src/modules/catalog/infrastructure/catalog-snapshot.ts': ['NOVEL_SELECT', 'published'],
  // A migration's DDL: table and column names, lock classes and batch sizes from constants,
  // and the trigger's fast path, a constant fragment included or not.
  'src/database/migrations/1763900400000-reading-rollup.ts': [
    'rollUpFunction({ skipWhenRolledUp: false })',
    "rollUp('reading_reader_days', READER_KEY, 'reading_activity')",
    "rollUp('reading_chapter_days', CHAPTER_KEY, 'reading_activity')",
  ],
  // Version 1 of the rollup trigger's text (frozen with the migrations that use it): lock classes,
  // batch sizes, table and column names from constants, and the fast path included or not.
  'src/database/migrations/helpers/reading-rollup.v1.ts': [
    "skipWhenRolledUp ? skip : ''",
    'BULK_SUBSCRIBERS',
    'BULK_SUBSCRIBERS + 1',
    'PARTNER_LOCK_CLASS',
    'PARTNER_LOCK_CLASS',
    'SUBSCRIBER_LOCK_CLASS',
    "rollUp('reading_reader_days', READER_KEY, 'new_activity')",
    "rollUp('reading_chapter_days', CHAPTER_KEY, 'new_activity')",
    'table',
    'columns',
    'table',
    "sameKey('earlier', 'incoming')",
    'columns',
    'day',
    'source',
    'columns',
    'table',
    "key.map((column) => `stored.${column}`).join(', ')",
    'columns',
    'day',
    'source',
    'columns',
    'table',
    "sameKey('stored', 'touched')",
    "sameKey('target', 'chain')",
  ],
  'src/database/migrations/1763900800000-monthly-partitions.ts': ['PARTITIONS_LOCK_CLASS', 'PARTITIONS_LOCK_CLASS', 'MONTHS_AHEAD', 'MONTHS_AHEAD'],
  // Trigger bodies and triggers from constant column lists, measures and conditions.
  'src/database/migrations/1764100400000-entitlement-counts.ts': [
    "countFunction('entitlement_count_records', (change) => deltas(change, RECORD_COLUMNS, RECORD_MEASURES))",
    "countFunction('entitlement_count_history', (change) => deltas(change, HISTORY_COLUMNS, HISTORY_MEASURES))",
    "countTriggers('entitlements', 'entitlement_count_records', null, RECORD_CHANGED)",
    "countTriggers('entitlement_history', 'entitlement_count_history', null, HISTORY_CHANGED)",
    'RECORD_MEASURES',
    'HISTORY_MEASURES',
    'signedRows(columns, change)',
    'measures',
  ],
  // Trigger bodies and triggers from constant column lists and conditions.
  'src/database/migrations/1764100600000-webhook-delivery-counts.ts': [
    "countFunction('webhook_delivery_count', deltas)",
    "countTriggers('webhook_deliveries', 'webhook_delivery_count', null, 'OLD.status IS DISTINCT FROM NEW.status')",
    "signedRows(['status'], change)",
  ],
  // Constant statements, column lists and trigger bodies of the children's summary counts.
  'src/database/migrations/1764100800000-kids-summary-counts.ts': [
    'INACTIVE_RUNS',
    'SAME_SUBSCRIBER',
    'SAME_SUBSCRIBER',
    'SAME_SUBSCRIBER',
    'ACTIVATION_MEASURES',
    "countFunction('entitlement_count_activations', activationDeltas)",
    "countTriggers('entitlement_history', 'entitlement_count_activations', null, ACTIVATION_CHANGED, 'activation_count')",
    'MARKS',
    'MARKS',
    'MARKS',
    'SESSION_MEASURES',
    "countFunction('kids_count_sessions', sessionDeltas)",
    "countTriggers('kids_activity', 'kids_count_sessions', null, SESSION_CHANGED)",
    'WINDOW_CLAMP_DAYS',
    'signedRows(ACTIVATION_COLUMNS, change)',
    'ACTIVATION_MEASURES',
    'signedRows(SESSION_COLUMNS, change)',
    'SESSION_MEASURES',
  ],
  // The summary function's move, the marking trigger bodies and triggers from constant column lists.
  'src/database/migrations/1764100500000-entitlement-day-peaks.ts': [
    'MOVE',
    "countFunction('entitlement_day_peak_marks', marks)",
    "countTriggers('entitlement_history', 'entitlement_day_peak_marks', null, HISTORY_CHANGED, 'day_peak_mark')",
    'signedRows(HISTORY_COLUMNS, change)',
    'MOVE',
  ],
  // Summary columns from a constant list; the instant a summary must precede is a bind parameter's name or a constant.
  'src/modules/entitlements/infrastructure/entitlement-day-peaks.ts': [
    'column',
    "SUMMARY_COLUMNS.map((column) => `p.${column}`).join(', ')",
    "daySummaryBase(`'infinity'::timestamptz`)",
    "SUMMARY_COLUMNS.join(', ')",
  ],
  'src/modules/entitlements/infrastructure/typeorm-entitlement.repository.ts': ["daySummaryBase('$5::timestamptz')"],
  // The report's count rows of constant measure lists (its three statements have fixed texts).
  'src/modules/analytics/queries.ts': [
    'measures',
    'measures',
    "countRows(`'readers', 'chapters'`)",
    "countRows(`'started', 'finished'`)",
    "countRows(`'endings'`)",
  ],
  // The two rollup tables, from a constant list.
  'src/modules/analytics/infrastructure/pg-rollup-retention.repository.ts': ['table', 'table'],
  // Table names read from the catalog, quoted by format('%I') in the query that lists them.
  'src/modules/offboarding/infrastructure/pg-partner-rows.repository.ts': ['relation', 'relation'],
  // Trigger bodies and triggers from constant column lists, measures and conditions.
  'src/database/migrations/1764100300000-engagement-day-counts.ts': [
    "countFunction('engagement_count_activity_days', activityDayDeltas)",
    "countFunction('engagement_count_progress', progressDeltas)",
    "countTriggers('reading_reader_days', 'engagement_count_activity_days', 'readers', ACTIVITY_DAY_CHANGED)",
    "countTriggers('reading_chapter_days', 'engagement_count_activity_days', 'chapters', ACTIVITY_DAY_CHANGED)",
    "countTriggers('novel_progress', 'engagement_count_progress', null, PROGRESS_CHANGED)",
    'WINDOW_CLAMP_DAYS',
    'WINDOW_CLAMP_DAYS',
    'PROGRESS_MEASURES',
    'WINDOW_CLAMP_DAYS',
    "signedRows(['partner_id', 'environment', 'day', 'previous_day'], change)",
    'signedRows(columns, change)',
    'PROGRESS_MEASURES',
  ],
  // Version 1 of the signed-count trigger texts: column lists with a constant prefix.
  'src/database/migrations/helpers/signed-counts.v1.ts': ["list('')", "list('')", "list('OLD.')", "list('NEW.')"],
  // A constant column list.
  'src/modules/reading/infrastructure/pg-unlock-schedule.repository.ts': ['SELECT_ROW', 'SELECT_ROW', 'SELECT_ROW'],
  // A constant filter of the clocks' query.
  'src/modules/test-clocks/infrastructure/pg-test-clock.repository.ts': ['where'],
  // Table names a module lists as constants, and a constant key condition.
  'src/shared/persistence/subscriber-rows.ts': [
    'table',
    'SUBSCRIBER_KEY',
    'exists',
    'table',
    'SUBSCRIBER_KEY',
    'table',
    'SUBSCRIBER_KEY',
    'table',
    'SUBSCRIBER_KEY',
    'statement',
  ],
  // A subscriber's rows for export and erasure: constant key conditions and advisory lock classes.
  'src/modules/analytics/infrastructure/analytics.subscriber-data.ts': [
    'SUBSCRIBER_KEY',
    'ROLLUP_PARTNER_LOCK_CLASS',
    'ROLLUP_SUBSCRIBER_LOCK_CLASS',
    'SUBSCRIBER_KEY',
  ],
  'src/modules/entitlements/infrastructure/entitlement.subscriber-data.ts': ['SUBSCRIBER_KEY', 'SUBSCRIBER_KEY', 'SUBSCRIBER_KEY'],
  'src/modules/kids-engagement/infrastructure/kids-engagement.subscriber-data.ts': ['SESSIONS_OF', 'SESSIONS_OF', 'SESSIONS_OF', 'SESSIONS_OF'],
  'src/modules/media/infrastructure/media.subscriber-data.ts': ['SUBSCRIBER_KEY'],
  'src/modules/playback/infrastructure/playback.subscriber-data.ts': ['SUBSCRIBER_KEY'],
  'src/modules/reading/infrastructure/reading.subscriber-data.ts': ['SUBSCRIBER_KEY'],
  'src/modules/webhooks/infrastructure/webhook.subscriber-data.ts': ['EVENTS_OF', 'EVENTS_OF'],
  // A constant column list.
  'src/modules/reading/infrastructure/typeorm-reading-progress.repository.ts': ['PROGRESS_SELECT'],
  // A fixed SQL fragment naming a table alias.
  'src/modules/webhooks/infrastructure/typeorm-webhook-delivery.repository.ts': ['TENANTS_WITH_ENDPOINTS', "LEASE_IS_LIVE('webhook_deliveries')"],
  'src/modules/webhooks/queries.ts': ['TENANTS_WITH_ENDPOINTS', "LEASE_IS_LIVE('l')"],
  // A fixed SQL expression, written once because it is used twice.
  'src/modules/rate-limiting/infrastructure/postgres-rate-limit.store.ts': ['refill', 'refill', 'refill'],
  // Database names, quoted as identifiers (CREATE DATABASE takes no bind parameters).
  'src/database/database-location.ts': ['pg.escapeIdentifier(template)', 'pg.escapeIdentifier(name)', 'from'],
  // The folding of a signed-count table: its name and key columns, constants of the module that registers it.
  'src/shared/persistence/signed-counts.ts': [
    'table',
    'prefixed',
    'table',
    'table',
    "key.map((column) => `c.${column} = k.${column}`).join(' AND ')",
    'prefixed',
    'table',
    'columns',
    'columns',
    'columns',
  ],
};

const SQL = /\b(SELECT\s|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|DATABASE|INDEX)|WHERE\s|TEMPLATE\s)/i;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** The expressions spliced into SQL-looking text in one file's code. */
function splicesIn(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    // The `sql` tag binds every `${value}` as a parameter and embeds fragments (shared/persistence/sql.ts).
    const boundBySqlTag = node.parent !== undefined && ts.isTaggedTemplateExpression(node.parent) && node.parent.tag.getText(source) === 'sql';
    if (ts.isTemplateExpression(node) && !boundBySqlTag) {
      const text = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ');
      if (SQL.test(text)) {
        found.push(...node.templateSpans.map((span) => span.expression.getText(source)));
        return; // expressions inside belong to this splice
      }
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      const literal = [node.left, node.right].find((side) => ts.isStringLiteralLike(side) && SQL.test(side.text));
      if (literal) found.push([node.left, node.right].find((side) => side !== literal)!.getText(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test('SQL takes values only as bind parameters: every splice into SQL text is a reviewed identifier or fragment', () => {
  const root = process.cwd();
  const splices = Object.fromEntries(
    sourceFiles(join(root, 'src'))
      .map((file) => [relative(root, file), splicesIn(file, readFileSync(file, 'utf8'))] as const)
      .filter(([, found]) => found.length > 0),
  );
  expect(splices).toEqual(REVIEWED);
});

test('the scan finds a value spliced into SQL, in a template or by concatenation (the control case)', () => {
  const code =
    'db.query(`SELECT * FROM novels WHERE id = ${novelId}`); db.query("DELETE FROM t WHERE a = " + x); log(`${a} items`);' +
    ' sql`SELECT * FROM novels WHERE id = ${bound} AND ${raw(`WHERE x = ${spliced}`)}`;';
  expect(splicesIn('probe.ts', code)).toEqual(['novelId', 'x', 'spliced']);
});

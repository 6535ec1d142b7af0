import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `reading_activity` and `stream_url_issues` become tables partitioned by month of
 * `occurred_at` / `issued_at`, so retention drops whole months instead of deleting rows and
 * the cost of a write or of retention does not grow with history (ADR 0100).
 *
 * The rows already stored stay where they are: each old table is renamed and attached as
 * one partition from MINVALUE to the start of the month after its newest row (or after the
 * current month), and the months after it get a partition each, up to three ahead. The
 * partition maintenance job keeps creating months ahead from there and drops the ones past
 * retention. No DEFAULT partition (ADR 0100).
 *
 * The reading rollup trigger moves to the partitioned parent: PostgreSQL (13 and later) fires
 * a statement-level trigger with a transition table on the root for inserts routed into any
 * partition, with the rows of every partition in the transition table.
 */
export class MonthlyPartitions1763900800000 implements MigrationInterface {
  name = 'MonthlyPartitions1763900800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE reading_activity RENAME TO reading_activity_before;
      ALTER INDEX reading_activity_period RENAME TO reading_activity_before_period;
      DROP TRIGGER reading_activity_roll_up ON reading_activity_before;

      CREATE TABLE reading_activity (
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        subscriber_id text NOT NULL,
        novel_id text NOT NULL,
        chapter_number integer NOT NULL,
        kind text NOT NULL CONSTRAINT reading_activity_kind_check CHECK (kind IN ('text', 'audio')),
        occurred_at timestamptz NOT NULL
      ) PARTITION BY RANGE (occurred_at);
      -- (Constraints named as on the old tables: attaching one requires the same names.)

      ALTER TABLE stream_url_issues RENAME TO stream_url_issues_before;
      -- Replaced by the parent's key, which attaching builds on it.
      ALTER TABLE stream_url_issues_before DROP CONSTRAINT stream_url_issues_pkey;
      ALTER INDEX stream_url_issues_by_subscriber RENAME TO stream_url_issues_before_by_subscriber;

      -- The key holds the partition column, as PostgreSQL requires of a partitioned table's
      -- unique keys; ids still come from the one sequence, now owned by the parent so that
      -- dropping the oldest partition keeps it.
      CREATE TABLE stream_url_issues (
        partner_id uuid NOT NULL,
        id bigint NOT NULL DEFAULT nextval('stream_url_issues_id_seq'::regclass),
        environment text NOT NULL CONSTRAINT stream_url_issues_environment_check CHECK (environment IN ('live', 'sandbox')),
        client_id text NOT NULL,
        subscriber_id text NOT NULL,
        novel_id text NOT NULL,
        chapter_number integer NOT NULL CONSTRAINT stream_url_issues_chapter_number_check CHECK (chapter_number >= 1),
        issued_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL CONSTRAINT stream_url_issues_check CHECK (expires_at > issued_at),
        CONSTRAINT stream_url_issues_pkey PRIMARY KEY (partner_id, id, issued_at)
      ) PARTITION BY RANGE (issued_at);
      ALTER SEQUENCE stream_url_issues_id_seq OWNED BY stream_url_issues.id;
    `);
    await db.query(`
      -- Which months a partition holds, read from its bound: the upper end of its range
      -- (NULL for a partition without one). A function so the job and this migration agree.
      CREATE FUNCTION monthly_partition_bounds(parent regclass)
      RETURNS TABLE (partition regclass, upper_bound timestamptz) LANGUAGE sql STABLE AS $$
        SELECT c.oid::regclass, (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)'))[1]::timestamptz
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = parent
      $$;

      -- Creates one partition per UTC month after the newest one, until a partition holds
      -- \`through\`; returns how many. Callers take turns on an advisory lock per parent, so
      -- replicas running it at once create each month once. \`<table>_p2026_12\` holds
      -- December 2026.
      CREATE FUNCTION monthly_partitions_create(parent regclass, through timestamptz) RETURNS integer
      LANGUAGE plpgsql AS $$
      DECLARE
        start timestamptz;
        created integer := 0;
      BEGIN
        PERFORM pg_advisory_xact_lock(${PARTITIONS_LOCK_CLASS}, hashtext(parent::text));
        SELECT coalesce(max(upper_bound), date_trunc('month', now(), 'UTC')) INTO start FROM monthly_partition_bounds(parent);
        WHILE start <= through LOOP
          EXECUTE format('CREATE TABLE IF NOT EXISTS %I.%I PARTITION OF %s FOR VALUES FROM (%L) TO (%L)',
            (SELECT nspname FROM pg_namespace n JOIN pg_class c ON c.relnamespace = n.oid WHERE c.oid = parent),
            (SELECT relname FROM pg_class WHERE oid = parent) || to_char(start AT TIME ZONE 'UTC', '"_p"YYYY_MM'),
            parent, start, start + interval '1 month');
          start := start + interval '1 month';
          created := created + 1;
        END LOOP;
        RETURN created;
      END $$;

      -- Drops every partition whose whole range ends at or before \`cutoff\`; returns how
      -- many. A drop waits at most a few seconds for the parent's lock (writers in flight):
      -- past that it fails, and the next run tries again.
      CREATE FUNCTION monthly_partitions_drop_before(parent regclass, cutoff timestamptz) RETURNS integer
      LANGUAGE plpgsql AS $$
      DECLARE
        old regclass;
        dropped integer := 0;
      BEGIN
        PERFORM pg_advisory_xact_lock(${PARTITIONS_LOCK_CLASS}, hashtext(parent::text));
        SET LOCAL lock_timeout = '5s';
        FOR old IN SELECT partition FROM monthly_partition_bounds(parent) WHERE upper_bound <= cutoff LOOP
          EXECUTE format('DROP TABLE %s', old);
          dropped := dropped + 1;
        END LOOP;
        RETURN dropped;
      END $$;

      -- The rows stored so far stay in their table, attached as the partition of every time up
      -- to the month after the newest row (at least after the current month, UTC).
      DO $$
      DECLARE
        bound timestamptz;
      BEGIN
        SELECT date_trunc('month', greatest(now(), max(occurred_at)), 'UTC') + interval '1 month' INTO bound FROM reading_activity_before;
        EXECUTE format('ALTER TABLE reading_activity ATTACH PARTITION reading_activity_before FOR VALUES FROM (MINVALUE) TO (%L)', bound);
        SELECT date_trunc('month', greatest(now(), max(issued_at)), 'UTC') + interval '1 month' INTO bound FROM stream_url_issues_before;
        EXECUTE format('ALTER TABLE stream_url_issues ATTACH PARTITION stream_url_issues_before FOR VALUES FROM (MINVALUE) TO (%L)', bound);
      END $$;
      SELECT monthly_partitions_create('reading_activity', now() + interval '${MONTHS_AHEAD} months');
      SELECT monthly_partitions_create('stream_url_issues', now() + interval '${MONTHS_AHEAD} months');
    `);
    await db.query(`
      -- Indexes on the parents: PostgreSQL adopts the matching index of an attached partition
      -- and builds it on every partition created later.
      CREATE INDEX reading_activity_period
        ON reading_activity (partner_id, environment, occurred_at) INCLUDE (subscriber_id, novel_id, chapter_number);
      CREATE INDEX stream_url_issues_by_subscriber
        ON stream_url_issues (partner_id, environment, subscriber_id, issued_at);

      CREATE TRIGGER reading_activity_roll_up
        AFTER INSERT ON reading_activity
        REFERENCING NEW TABLE AS new_activity
        FOR EACH STATEMENT EXECUTE FUNCTION reading_activity_roll_up();
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE reading_activity_flat (LIKE reading_activity INCLUDING CONSTRAINTS INCLUDING DEFAULTS);
      INSERT INTO reading_activity_flat SELECT * FROM reading_activity;
      DROP TABLE reading_activity;
      ALTER TABLE reading_activity_flat RENAME TO reading_activity;
      CREATE INDEX reading_activity_period
        ON reading_activity (partner_id, environment, occurred_at) INCLUDE (subscriber_id, novel_id, chapter_number);
      CREATE TRIGGER reading_activity_roll_up
        AFTER INSERT ON reading_activity
        REFERENCING NEW TABLE AS new_activity
        FOR EACH STATEMENT EXECUTE FUNCTION reading_activity_roll_up();
      DROP FUNCTION monthly_partitions_drop_before(regclass, timestamptz), monthly_partitions_create(regclass, timestamptz),
        monthly_partition_bounds(regclass);

      CREATE TABLE stream_url_issues_flat (LIKE stream_url_issues INCLUDING CONSTRAINTS INCLUDING DEFAULTS);
      INSERT INTO stream_url_issues_flat SELECT * FROM stream_url_issues;
      ALTER SEQUENCE stream_url_issues_id_seq OWNED BY NONE;
      DROP TABLE stream_url_issues;
      ALTER TABLE stream_url_issues_flat RENAME TO stream_url_issues;
      ALTER TABLE stream_url_issues ADD PRIMARY KEY (partner_id, id);
      ALTER SEQUENCE stream_url_issues_id_seq OWNED BY stream_url_issues.id;
      CREATE INDEX stream_url_issues_by_subscriber
        ON stream_url_issues (partner_id, environment, subscriber_id, issued_at);
    `);
  }
}

/** Months with a partition ahead of the current one, so writes never wait on the job. */
const MONTHS_AHEAD = 3;

/** Class of the two-key advisory lock that partition changes of one table take turns on. */
const PARTITIONS_LOCK_CLASS = 7_340_116;

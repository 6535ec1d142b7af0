import type { MigrationInterface, QueryRunner } from 'typeorm';
import { countFunction, countTriggers, signedRows, WINDOW_CLAMP_DAYS, type Change } from './helpers/signed-counts.v1.js';

/**
 * What the children's summary reads instead of the window's sessions and the kidsapp
 * history (ADR 0133), so that it reads a number of rows that grows with the days of its
 * period, not with the accounts.
 *
 * Entitlements, for any product:
 * - `entitlement_history.inactive_since`: on an applied change that makes the subscriber
 *   active, the instant since which it was not (`-infinity`: never active before); NULL on
 *   every other row. Applied changes arrive in `effective_at` order (an earlier one is stale,
 *   ADR 0009), so the previous rows are known when a row is written.
 * - `entitlement_activation_counts`: those activations per UTC day of `effective_at`
 *   (`at_midnight` when exactly at its 00:00) and `since_day`, the first 00:00 at or after
 *   `inactive_since`, clamped to `day - 366` as in migration 1764100300000. A subscriber
 *   not active at a period's start and active inside it has exactly one activation inside
 *   it whose `since_day` is at or before the start.
 *
 * Children's sessions:
 * - `kids_activity.entitled_at_occurrence` / `entitled_at_completion`: whether the account
 *   held an active kidsapp entitlement at `occurred_at` / `completed_at`, set when a session
 *   is written and again when a kidsapp change arrives that takes effect at or before it.
 * - `kids_day_counts`: the minutes (by the day of `occurred_at`) and completions (by the day
 *   of `completed_at`) of the sessions so marked. A marked session always counts in a
 *   period holding its instant; the others are read one by one.
 */
export class KidsSummaryCounts1764100800000 implements MigrationInterface {
  name = 'KidsSummaryCounts1764100800000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      ALTER TABLE entitlement_history ADD COLUMN inactive_since timestamptz;
      -- One subscriber's applied rows in order: what the triggers and the summary's checks
      -- read. Without it the planner may walk the partner's whole product history by time.
      CREATE INDEX entitlement_history_subscriber_effective ON entitlement_history (partner_id, environment, subscriber_id, product, effective_at, id)
        WHERE NOT stale;
      UPDATE entitlement_history h SET inactive_since = r.since
        FROM (${INACTIVE_RUNS}) AS r
       WHERE h.id = r.id AND r.new_status = 'active' AND (r.actives_before = 0 OR r.run_length > 1);

      CREATE FUNCTION entitlement_inactive_since() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        previous_active boolean;
        last_active record;
      BEGIN
        SELECT new_status = 'active' INTO previous_active FROM entitlement_history
         WHERE ${SAME_SUBSCRIBER} AND NOT stale ORDER BY effective_at DESC, id DESC LIMIT 1;
        IF previous_active THEN RETURN NEW; END IF;
        SELECT effective_at, id INTO last_active FROM entitlement_history
         WHERE ${SAME_SUBSCRIBER} AND NOT stale AND new_status = 'active' ORDER BY effective_at DESC, id DESC LIMIT 1;
        IF NOT FOUND THEN
          NEW.inactive_since := '-infinity';
        ELSE
          SELECT min(effective_at) INTO NEW.inactive_since FROM entitlement_history
           WHERE ${SAME_SUBSCRIBER} AND NOT stale AND (effective_at, id) > (last_active.effective_at, last_active.id);
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER entitlement_inactive_since BEFORE INSERT ON entitlement_history
        FOR EACH ROW WHEN (NOT NEW.stale AND NEW.new_status = 'active') EXECUTE FUNCTION entitlement_inactive_since();

      CREATE TABLE entitlement_activation_counts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        product text NOT NULL,
        day date NOT NULL,
        at_midnight boolean NOT NULL,
        since_day date NOT NULL,
        count bigint NOT NULL,
        settled boolean NOT NULL DEFAULT false
      );
      CREATE INDEX entitlement_activation_counts_period ON entitlement_activation_counts (partner_id, environment, product, day)
        INCLUDE (at_midnight, since_day, count);
      CREATE INDEX entitlement_activation_counts_unsettled ON entitlement_activation_counts (id) WHERE NOT settled;
      INSERT INTO entitlement_activation_counts (partner_id, environment, product, day, at_midnight, since_day, count, settled)
      SELECT r.partner_id, r.environment, r.product, m.day, m.at_midnight, m.since_day, count(*), true
        FROM entitlement_history r, LATERAL (${ACTIVATION_MEASURES}) AS m GROUP BY 1, 2, 3, 4, 5, 6;

      ${countFunction('entitlement_count_activations', activationDeltas)}
      ${countTriggers('entitlement_history', 'entitlement_count_activations', null, ACTIVATION_CHANGED, 'activation_count')}
    `);

    await db.query(`
      CREATE FUNCTION entitlement_active_at(p_partner uuid, p_environment text, p_product text, p_subscriber text, p_at timestamptz)
      RETURNS boolean LANGUAGE sql STABLE AS $$
        SELECT coalesce((SELECT new_status = 'active' FROM entitlement_history
                          WHERE partner_id = p_partner AND environment = p_environment AND subscriber_id = p_subscriber
                            AND product = p_product AND NOT stale AND effective_at <= p_at
                          ORDER BY effective_at DESC, id DESC LIMIT 1), false)
      $$;

      ALTER TABLE kids_activity
        ADD COLUMN entitled_at_occurrence boolean NOT NULL DEFAULT false,
        ADD COLUMN entitled_at_completion boolean NOT NULL DEFAULT false;
      UPDATE kids_activity SET ${MARKS};
      DROP INDEX kids_activity_period;
      DROP INDEX kids_activity_completions;
      CREATE INDEX kids_activity_entitled_occurrences ON kids_activity (partner_id, environment, occurred_at) INCLUDE (account_id)
        WHERE entitled_at_occurrence;
      CREATE INDEX kids_activity_entitled_completions ON kids_activity (partner_id, environment, completed_at) INCLUDE (account_id)
        WHERE entitled_at_completion;
      CREATE INDEX kids_activity_unentitled_occurrences ON kids_activity (partner_id, environment, occurred_at)
        WHERE NOT entitled_at_occurrence;
      CREATE INDEX kids_activity_unentitled_completions ON kids_activity (partner_id, environment, completed_at)
        WHERE completed_at IS NOT NULL AND NOT entitled_at_completion;

      CREATE FUNCTION kids_activity_mark_entitled() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.entitled_at_occurrence := entitlement_active_at(NEW.partner_id, NEW.environment, 'kidsapp', NEW.account_id, NEW.occurred_at);
        NEW.entitled_at_completion := entitlement_active_at(NEW.partner_id, NEW.environment, 'kidsapp', NEW.account_id, NEW.completed_at);
        RETURN NEW;
      END $$;
      CREATE TRIGGER kids_activity_mark_entitled BEFORE INSERT OR UPDATE OF account_id, occurred_at, completed_at ON kids_activity
        FOR EACH ROW EXECUTE FUNCTION kids_activity_mark_entitled();

      -- A kidsapp change marks again the sessions from its instant on; an erasure those of its accounts.
      CREATE FUNCTION kids_activity_remark_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE kids_activity SET ${MARKS}
         WHERE partner_id = NEW.partner_id AND environment = NEW.environment AND account_id = NEW.subscriber_id
           AND (occurred_at >= NEW.effective_at OR completed_at >= NEW.effective_at);
        RETURN NULL;
      END $$;
      CREATE TRIGGER kids_activity_remark_changed AFTER INSERT ON entitlement_history
        FOR EACH ROW WHEN (NEW.product = 'kidsapp' AND NOT NEW.stale) EXECUTE FUNCTION kids_activity_remark_changed();
      CREATE FUNCTION kids_activity_remark_erased() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE kids_activity SET ${MARKS}
          FROM (SELECT DISTINCT partner_id, environment, subscriber_id FROM old_rows WHERE product = 'kidsapp') AS gone (tenant, env, account)
         WHERE partner_id = gone.tenant AND environment = gone.env AND account_id = gone.account;
        RETURN NULL;
      END $$;
      CREATE TRIGGER kids_activity_remark_erased AFTER DELETE ON entitlement_history
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kids_activity_remark_erased();

      CREATE TABLE kids_day_counts (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        partner_id uuid NOT NULL,
        environment text NOT NULL,
        measure text NOT NULL CHECK (measure IN ('minutes', 'completions')),
        day date NOT NULL,
        count numeric NOT NULL,
        settled boolean NOT NULL DEFAULT false
      );
      CREATE INDEX kids_day_counts_period ON kids_day_counts (partner_id, environment, day) INCLUDE (measure, count);
      CREATE INDEX kids_day_counts_unsettled ON kids_day_counts (id) WHERE NOT settled;
      INSERT INTO kids_day_counts (partner_id, environment, measure, day, count, settled)
      SELECT r.partner_id, r.environment, m.measure, m.day, sum(m.value), true
        FROM kids_activity r, LATERAL (${SESSION_MEASURES}) AS m GROUP BY 1, 2, 3, 4 HAVING sum(m.value) <> 0;

      ${countFunction('kids_count_sessions', sessionDeltas)}
      ${countTriggers('kids_activity', 'kids_count_sessions', null, SESSION_CHANGED)}
    `);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`
      DROP TRIGGER signed_count_insert ON kids_activity;
      DROP TRIGGER signed_count_update ON kids_activity;
      DROP TRIGGER signed_count_delete ON kids_activity;
      DROP FUNCTION kids_count_sessions();
      DROP TABLE kids_day_counts;
      DROP TRIGGER kids_activity_remark_erased ON entitlement_history;
      DROP FUNCTION kids_activity_remark_erased();
      DROP TRIGGER kids_activity_remark_changed ON entitlement_history;
      DROP FUNCTION kids_activity_remark_changed();
      DROP TRIGGER kids_activity_mark_entitled ON kids_activity;
      DROP FUNCTION kids_activity_mark_entitled();
      DROP INDEX kids_activity_entitled_occurrences;
      DROP INDEX kids_activity_entitled_completions;
      DROP INDEX kids_activity_unentitled_occurrences;
      DROP INDEX kids_activity_unentitled_completions;
      CREATE INDEX kids_activity_period ON kids_activity (partner_id, environment, occurred_at) INCLUDE (account_id, minutes);
      CREATE INDEX kids_activity_completions ON kids_activity (partner_id, environment, completed_at) WHERE completed_at IS NOT NULL;
      ALTER TABLE kids_activity DROP COLUMN entitled_at_occurrence, DROP COLUMN entitled_at_completion;
      DROP FUNCTION entitlement_active_at(uuid, text, text, text, timestamptz);

      DROP TRIGGER activation_count_insert ON entitlement_history;
      DROP TRIGGER activation_count_update ON entitlement_history;
      DROP TRIGGER activation_count_delete ON entitlement_history;
      DROP FUNCTION entitlement_count_activations();
      DROP TABLE entitlement_activation_counts;
      DROP TRIGGER entitlement_inactive_since ON entitlement_history;
      DROP FUNCTION entitlement_inactive_since();
      DROP INDEX entitlement_history_subscriber_effective;
      ALTER TABLE entitlement_history DROP COLUMN inactive_since;
    `);
  }
}

const SAME_SUBSCRIBER = `partner_id = NEW.partner_id AND environment = NEW.environment AND subscriber_id = NEW.subscriber_id AND product = NEW.product`;

/**
 * Each applied history row with the number of active rows before it (of its subscriber and
 * product) and, over the rows sharing that number (the inactive run since the last active
 * row, and the row that ends it), the run's first instant and its length.
 */
const INACTIVE_RUNS = `
  SELECT id, new_status, actives_before,
         CASE WHEN actives_before = 0 THEN '-infinity'::timestamptz ELSE min(effective_at) OVER run END AS since,
         count(*) OVER run AS run_length
    FROM (SELECT id, partner_id, environment, subscriber_id, product, effective_at, new_status,
                 coalesce(count(*) FILTER (WHERE new_status = 'active') OVER (
                   PARTITION BY partner_id, environment, subscriber_id, product ORDER BY effective_at, id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS actives_before
            FROM entitlement_history WHERE NOT stale) AS h
  WINDOW run AS (PARTITION BY partner_id, environment, subscriber_id, product, actives_before)`;

const ACTIVATION_COLUMNS = ['partner_id', 'environment', 'product', 'stale', 'effective_at', 'inactive_since'];
const ACTIVATION_CHANGED = `OLD.stale IS DISTINCT FROM NEW.stale OR OLD.effective_at IS DISTINCT FROM NEW.effective_at
  OR OLD.inactive_since IS DISTINCT FROM NEW.inactive_since`;
/** The activation key of one entitlement_history row `r`, if it is an applied activation. */
const ACTIVATION_MEASURES = `
  SELECT (r.effective_at AT TIME ZONE 'UTC')::date AS day,
         r.effective_at = date_trunc('day', r.effective_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS at_midnight,
         greatest(((r.inactive_since AT TIME ZONE 'UTC') + interval '1 day' - interval '1 microsecond')::date,
                  (r.effective_at AT TIME ZONE 'UTC')::date - ${WINDOW_CLAMP_DAYS}) AS since_day
   WHERE NOT r.stale AND r.inactive_since IS NOT NULL`;

function activationDeltas(change: Change): string {
  return `INSERT INTO entitlement_activation_counts (partner_id, environment, product, day, at_midnight, since_day, count)
          SELECT r.partner_id, r.environment, r.product, m.day, m.at_midnight, m.since_day, sum(r.sign)
            FROM (${signedRows(ACTIVATION_COLUMNS, change)}) AS r, LATERAL (${ACTIVATION_MEASURES}) AS m
           GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.sign) <> 0;`;
}

/** Whether the session's account held kidsapp at its two instants (false for no completion). */
const MARKS = `
  entitled_at_occurrence = entitlement_active_at(partner_id, environment, 'kidsapp', account_id, occurred_at),
  entitled_at_completion = entitlement_active_at(partner_id, environment, 'kidsapp', account_id, completed_at)`;

const SESSION_COLUMNS = ['partner_id', 'environment', 'occurred_at', 'completed_at', 'minutes', 'entitled_at_occurrence', 'entitled_at_completion'];
const SESSION_CHANGED = `OLD.minutes <> NEW.minutes OR OLD.occurred_at <> NEW.occurred_at OR OLD.completed_at IS DISTINCT FROM NEW.completed_at
  OR OLD.entitled_at_occurrence <> NEW.entitled_at_occurrence OR OLD.entitled_at_completion <> NEW.entitled_at_completion`;
/** The counted measures of one kids_activity row `r`: those of an entitled account only. */
const SESSION_MEASURES = `
  SELECT 'minutes' AS measure, (r.occurred_at AT TIME ZONE 'UTC')::date AS day, r.minutes AS value WHERE r.entitled_at_occurrence
  UNION ALL SELECT 'completions', (r.completed_at AT TIME ZONE 'UTC')::date, 1 WHERE r.entitled_at_completion`;

function sessionDeltas(change: Change): string {
  return `INSERT INTO kids_day_counts (partner_id, environment, measure, day, count)
          SELECT r.partner_id, r.environment, m.measure, m.day, sum(r.sign * m.value)
            FROM (${signedRows(SESSION_COLUMNS, change)}) AS r, LATERAL (${SESSION_MEASURES}) AS m
           GROUP BY 1, 2, 3, 4 HAVING sum(r.sign * m.value) <> 0;`;
}

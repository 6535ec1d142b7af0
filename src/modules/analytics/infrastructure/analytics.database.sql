-- The rules of the analytics module that live in the database: the rollup of reading
-- activity into reader and chapter days, and the signed per-day counts of the engagement
-- report (ADR 0129), summed by month for its whole months. The current text, as PostgreSQL prints it;
-- test/architecture/database-definitions.e2e-spec.ts keeps it equal to a freshly migrated
-- database. Change it with a migration, then rewrite this file.
--
-- Reading's trigger on novel_progress appends the report's started, finished and endings
-- deltas; the count folding job (src/database/signed-count-folding.job.ts) folds them.
-- cascaded into: engagement_day_counts by engagement_count_progress (reading)

-- function engagement_count_activity_days()
CREATE OR REPLACE FUNCTION public.engagement_count_activity_days()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN INSERT INTO engagement_day_counts (partner_id, environment, measure, day, since_day, count)
          SELECT partner_id, environment, TG_ARGV[0], day, greatest(previous_day, day - 366), sum(sign)
            FROM (SELECT partner_id, environment, day, previous_day, 1 AS sign FROM new_rows) AS r
           GROUP BY 1, 2, 4, 5 HAVING sum(sign) <> 0;
        ELSIF TG_OP = 'DELETE' THEN INSERT INTO engagement_day_counts (partner_id, environment, measure, day, since_day, count)
          SELECT partner_id, environment, TG_ARGV[0], day, greatest(previous_day, day - 366), sum(sign)
            FROM (SELECT partner_id, environment, day, previous_day, -1 AS sign FROM old_rows) AS r
           GROUP BY 1, 2, 4, 5 HAVING sum(sign) <> 0;
        ELSE INSERT INTO engagement_day_counts (partner_id, environment, measure, day, since_day, count)
          SELECT partner_id, environment, TG_ARGV[0], day, greatest(previous_day, day - 366), sum(sign)
            FROM (SELECT OLD.partner_id, OLD.environment, OLD.day, OLD.previous_day, -1 AS sign UNION ALL SELECT NEW.partner_id, NEW.environment, NEW.day, NEW.previous_day, 1) AS r
           GROUP BY 1, 2, 4, 5 HAVING sum(sign) <> 0;
        END IF;
        RETURN NULL;
      END $function$

-- function engagement_count_months()
CREATE OR REPLACE FUNCTION public.engagement_count_months()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        INSERT INTO engagement_month_counts (partner_id, environment, measure, month, since_day, novel_id, choice_id, count)
        SELECT partner_id, environment, measure, date_trunc('month', day::timestamp)::date, since_day, novel_id, choice_id, sum(count)
          FROM new_rows WHERE NOT settled
         GROUP BY 1, 2, 3, 4, 5, 6, 7 HAVING sum(count) <> 0;
        RETURN NULL;
      END $function$

-- function reading_activity_roll_up()
CREATE OR REPLACE FUNCTION public.reading_activity_roll_up()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      DECLARE
        bulk boolean;
        lock_key integer;
      BEGIN
        IF NOT EXISTS (
          SELECT FROM new_activity n
           WHERE NOT EXISTS (
             SELECT FROM reading_chapter_days c
              WHERE c.partner_id = n.partner_id AND c.environment = n.environment AND c.subscriber_id = n.subscriber_id
                AND c.novel_id = n.novel_id AND c.chapter_number = n.chapter_number
                AND c.day = (n.occurred_at AT TIME ZONE 'UTC')::date)) THEN
          RETURN NULL;
        END IF;
        -- A bulk load locks whole partners rather than exhaust the lock table.
        bulk := (
          SELECT count(*) > 32
          FROM (SELECT DISTINCT partner_id, environment, subscriber_id FROM new_activity LIMIT 33) AS subscribers);
        -- Partners before subscribers, each in one global order: no two writers deadlock.
        FOR lock_key IN SELECT DISTINCT hashtext(partner_id::text || ' ' || environment) FROM new_activity ORDER BY 1 LOOP
          IF bulk THEN
            PERFORM pg_advisory_xact_lock(7340114, lock_key);
          ELSE
            PERFORM pg_advisory_xact_lock_shared(7340114, lock_key);
          END IF;
        END LOOP;
        IF NOT bulk THEN
          FOR lock_key IN
            SELECT DISTINCT hashtext(partner_id::text || ' ' || environment || ' ' || subscriber_id) FROM new_activity ORDER BY 1
          LOOP
            PERFORM pg_advisory_xact_lock(7340115, lock_key);
          END LOOP;
        END IF;
        
    -- New (key, day) rows, linked to the key's latest earlier day already stored.
    INSERT INTO reading_reader_days (partner_id, environment, subscriber_id, day, previous_day)
    SELECT incoming.*, coalesce(
      (SELECT max(earlier.day) FROM reading_reader_days earlier WHERE earlier.partner_id = incoming.partner_id AND earlier.environment = incoming.environment AND earlier.subscriber_id = incoming.subscriber_id AND earlier.day < incoming.day),
      '-infinity')
    FROM (SELECT DISTINCT partner_id, environment, subscriber_id, (occurred_at AT TIME ZONE 'UTC')::date AS day FROM new_activity) AS incoming
    ORDER BY partner_id, environment, subscriber_id, day
    ON CONFLICT DO NOTHING;

    -- Re-link every later day of the keys touched: the in-batch days the first statement
    -- could not see, and days stored earlier that the new rows now precede.
    UPDATE reading_reader_days AS target SET previous_day = chain.linked_day
    FROM (
      SELECT stored.*, lag(stored.day) OVER (PARTITION BY stored.partner_id, stored.environment, stored.subscriber_id ORDER BY stored.day) AS linked_day
      FROM (SELECT partner_id, environment, subscriber_id, min((occurred_at AT TIME ZONE 'UTC')::date) AS first_day FROM new_activity GROUP BY partner_id, environment, subscriber_id) AS touched
      JOIN reading_reader_days AS stored ON stored.partner_id = touched.partner_id AND stored.environment = touched.environment AND stored.subscriber_id = touched.subscriber_id AND stored.day >= touched.first_day
    ) AS chain
    WHERE target.partner_id = chain.partner_id AND target.environment = chain.environment AND target.subscriber_id = chain.subscriber_id AND target.day = chain.day
      AND chain.linked_day IS NOT NULL AND target.previous_day <> chain.linked_day;
        
    -- New (key, day) rows, linked to the key's latest earlier day already stored.
    INSERT INTO reading_chapter_days (partner_id, environment, subscriber_id, novel_id, chapter_number, day, previous_day)
    SELECT incoming.*, coalesce(
      (SELECT max(earlier.day) FROM reading_chapter_days earlier WHERE earlier.partner_id = incoming.partner_id AND earlier.environment = incoming.environment AND earlier.subscriber_id = incoming.subscriber_id AND earlier.novel_id = incoming.novel_id AND earlier.chapter_number = incoming.chapter_number AND earlier.day < incoming.day),
      '-infinity')
    FROM (SELECT DISTINCT partner_id, environment, subscriber_id, novel_id, chapter_number, (occurred_at AT TIME ZONE 'UTC')::date AS day FROM new_activity) AS incoming
    ORDER BY partner_id, environment, subscriber_id, novel_id, chapter_number, day
    ON CONFLICT DO NOTHING;

    -- Re-link every later day of the keys touched: the in-batch days the first statement
    -- could not see, and days stored earlier that the new rows now precede.
    UPDATE reading_chapter_days AS target SET previous_day = chain.linked_day
    FROM (
      SELECT stored.*, lag(stored.day) OVER (PARTITION BY stored.partner_id, stored.environment, stored.subscriber_id, stored.novel_id, stored.chapter_number ORDER BY stored.day) AS linked_day
      FROM (SELECT partner_id, environment, subscriber_id, novel_id, chapter_number, min((occurred_at AT TIME ZONE 'UTC')::date) AS first_day FROM new_activity GROUP BY partner_id, environment, subscriber_id, novel_id, chapter_number) AS touched
      JOIN reading_chapter_days AS stored ON stored.partner_id = touched.partner_id AND stored.environment = touched.environment AND stored.subscriber_id = touched.subscriber_id AND stored.novel_id = touched.novel_id AND stored.chapter_number = touched.chapter_number AND stored.day >= touched.first_day
    ) AS chain
    WHERE target.partner_id = chain.partner_id AND target.environment = chain.environment AND target.subscriber_id = chain.subscriber_id AND target.novel_id = chain.novel_id AND target.chapter_number = chain.chapter_number AND target.day = chain.day
      AND chain.linked_day IS NOT NULL AND target.previous_day <> chain.linked_day;
        RETURN NULL;
      END $function$

-- trigger engagement_day_counts.engagement_month_counts
CREATE TRIGGER engagement_month_counts AFTER INSERT ON public.engagement_day_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_count_months();

-- trigger reading_activity.reading_activity_roll_up
CREATE TRIGGER reading_activity_roll_up AFTER INSERT ON public.reading_activity REFERENCING NEW TABLE AS new_activity FOR EACH STATEMENT EXECUTE FUNCTION reading_activity_roll_up();

-- trigger reading_chapter_days.signed_count_delete
CREATE TRIGGER signed_count_delete AFTER DELETE ON public.reading_chapter_days REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_count_activity_days('chapters');

-- trigger reading_chapter_days.signed_count_insert
CREATE TRIGGER signed_count_insert AFTER INSERT ON public.reading_chapter_days REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_count_activity_days('chapters');

-- trigger reading_chapter_days.signed_count_update
CREATE TRIGGER signed_count_update AFTER UPDATE ON public.reading_chapter_days FOR EACH ROW WHEN ((old.previous_day <> new.previous_day)) EXECUTE FUNCTION engagement_count_activity_days('chapters');

-- trigger reading_reader_days.signed_count_delete
CREATE TRIGGER signed_count_delete AFTER DELETE ON public.reading_reader_days REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_count_activity_days('readers');

-- trigger reading_reader_days.signed_count_insert
CREATE TRIGGER signed_count_insert AFTER INSERT ON public.reading_reader_days REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_count_activity_days('readers');

-- trigger reading_reader_days.signed_count_update
CREATE TRIGGER signed_count_update AFTER UPDATE ON public.reading_reader_days FOR EACH ROW WHEN ((old.previous_day <> new.previous_day)) EXECUTE FUNCTION engagement_count_activity_days('readers');

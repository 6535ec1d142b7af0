-- The rules of the reading module that live in the database: the signed-count triggers on
-- novel_progress that feed the engagement report (ADR 0129). The current text, as
-- PostgreSQL prints it; test/architecture/database-definitions.e2e-spec.ts keeps it equal to
-- a freshly migrated database. Change it with a migration, then rewrite this file.
--
-- Opening, finishing and erasing a reading appends the report's deltas in the writer's
-- statement, so the counts can never miss a write; the counting rule is analytics'.
-- cascade: engagement_count_progress writes engagement_day_counts (analytics)

-- function engagement_count_progress()
CREATE OR REPLACE FUNCTION public.engagement_count_progress()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN INSERT INTO engagement_day_counts (partner_id, environment, measure, day, novel_id, choice_id, count)
          SELECT r.partner_id, r.environment, m.measure, m.day, m.novel_id, m.choice_id, sum(r.sign)
            FROM (SELECT partner_id, environment, novel_id, started_at, finished_at, chosen_choice_id, 1 AS sign FROM new_rows) AS r, LATERAL (
  SELECT 'started' AS measure, (r.started_at AT TIME ZONE 'UTC')::date AS day, '' AS novel_id, '' AS choice_id
  UNION ALL SELECT 'finished', (r.started_at AT TIME ZONE 'UTC')::date, '', '' WHERE r.finished_at IS NOT NULL
  UNION ALL SELECT 'endings', (r.finished_at AT TIME ZONE 'UTC')::date, r.novel_id, r.chosen_choice_id
   WHERE r.finished_at IS NOT NULL AND r.chosen_choice_id IS NOT NULL) AS m
           GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.sign) <> 0;
        ELSIF TG_OP = 'DELETE' THEN INSERT INTO engagement_day_counts (partner_id, environment, measure, day, novel_id, choice_id, count)
          SELECT r.partner_id, r.environment, m.measure, m.day, m.novel_id, m.choice_id, sum(r.sign)
            FROM (SELECT partner_id, environment, novel_id, started_at, finished_at, chosen_choice_id, -1 AS sign FROM old_rows) AS r, LATERAL (
  SELECT 'started' AS measure, (r.started_at AT TIME ZONE 'UTC')::date AS day, '' AS novel_id, '' AS choice_id
  UNION ALL SELECT 'finished', (r.started_at AT TIME ZONE 'UTC')::date, '', '' WHERE r.finished_at IS NOT NULL
  UNION ALL SELECT 'endings', (r.finished_at AT TIME ZONE 'UTC')::date, r.novel_id, r.chosen_choice_id
   WHERE r.finished_at IS NOT NULL AND r.chosen_choice_id IS NOT NULL) AS m
           GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.sign) <> 0;
        ELSE INSERT INTO engagement_day_counts (partner_id, environment, measure, day, novel_id, choice_id, count)
          SELECT r.partner_id, r.environment, m.measure, m.day, m.novel_id, m.choice_id, sum(r.sign)
            FROM (SELECT OLD.partner_id, OLD.environment, OLD.novel_id, OLD.started_at, OLD.finished_at, OLD.chosen_choice_id, -1 AS sign UNION ALL SELECT NEW.partner_id, NEW.environment, NEW.novel_id, NEW.started_at, NEW.finished_at, NEW.chosen_choice_id, 1) AS r, LATERAL (
  SELECT 'started' AS measure, (r.started_at AT TIME ZONE 'UTC')::date AS day, '' AS novel_id, '' AS choice_id
  UNION ALL SELECT 'finished', (r.started_at AT TIME ZONE 'UTC')::date, '', '' WHERE r.finished_at IS NOT NULL
  UNION ALL SELECT 'endings', (r.finished_at AT TIME ZONE 'UTC')::date, r.novel_id, r.chosen_choice_id
   WHERE r.finished_at IS NOT NULL AND r.chosen_choice_id IS NOT NULL) AS m
           GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.sign) <> 0;
        END IF;
        RETURN NULL;
      END $function$

-- trigger novel_progress.signed_count_delete
CREATE TRIGGER signed_count_delete AFTER DELETE ON public.novel_progress REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_count_progress();

-- trigger novel_progress.signed_count_insert
CREATE TRIGGER signed_count_insert AFTER INSERT ON public.novel_progress REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION engagement_count_progress();

-- trigger novel_progress.signed_count_update
CREATE TRIGGER signed_count_update AFTER UPDATE ON public.novel_progress FOR EACH ROW WHEN (((old.started_at IS DISTINCT FROM new.started_at) OR (old.finished_at IS DISTINCT FROM new.finished_at) OR (old.chosen_choice_id IS DISTINCT FROM new.chosen_choice_id))) EXECUTE FUNCTION engagement_count_progress();

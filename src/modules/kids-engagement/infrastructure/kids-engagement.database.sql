-- The rules of the kids-engagement module that live in the database: each session is
-- marked with whether its account was entitled when it happened, and counted per day
-- (ADR 0133). The current text, as PostgreSQL prints it;
-- test/architecture/database-definitions.e2e-spec.ts keeps it equal to a freshly migrated
-- database. Change it with a migration, then rewrite this file.
--
-- Entitlements' triggers on entitlement_history re-mark sessions when a kidsapp change
-- arrives or history is erased; the marking rule is this module's, run on its behalf.
-- cascaded into: kids_activity by kids_activity_remark_changed (entitlements)
-- cascaded into: kids_activity by kids_activity_remark_erased (entitlements)

-- function kids_activity_mark_entitled()
CREATE OR REPLACE FUNCTION public.kids_activity_mark_entitled()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        NEW.entitled_at_occurrence := entitlement_active_at(NEW.partner_id, NEW.environment, 'kidsapp', NEW.account_id, NEW.occurred_at);
        NEW.entitled_at_completion := entitlement_active_at(NEW.partner_id, NEW.environment, 'kidsapp', NEW.account_id, NEW.completed_at);
        RETURN NEW;
      END $function$

-- function kids_count_sessions()
CREATE OR REPLACE FUNCTION public.kids_count_sessions()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN INSERT INTO kids_day_counts (partner_id, environment, measure, day, count)
          SELECT r.partner_id, r.environment, m.measure, m.day, sum(r.sign * m.value)
            FROM (SELECT partner_id, environment, occurred_at, completed_at, minutes, entitled_at_occurrence, entitled_at_completion, 1 AS sign FROM new_rows) AS r, LATERAL (
  SELECT 'minutes' AS measure, (r.occurred_at AT TIME ZONE 'UTC')::date AS day, r.minutes AS value WHERE r.entitled_at_occurrence
  UNION ALL SELECT 'completions', (r.completed_at AT TIME ZONE 'UTC')::date, 1 WHERE r.entitled_at_completion) AS m
           GROUP BY 1, 2, 3, 4 HAVING sum(r.sign * m.value) <> 0;
        ELSIF TG_OP = 'DELETE' THEN INSERT INTO kids_day_counts (partner_id, environment, measure, day, count)
          SELECT r.partner_id, r.environment, m.measure, m.day, sum(r.sign * m.value)
            FROM (SELECT partner_id, environment, occurred_at, completed_at, minutes, entitled_at_occurrence, entitled_at_completion, -1 AS sign FROM old_rows) AS r, LATERAL (
  SELECT 'minutes' AS measure, (r.occurred_at AT TIME ZONE 'UTC')::date AS day, r.minutes AS value WHERE r.entitled_at_occurrence
  UNION ALL SELECT 'completions', (r.completed_at AT TIME ZONE 'UTC')::date, 1 WHERE r.entitled_at_completion) AS m
           GROUP BY 1, 2, 3, 4 HAVING sum(r.sign * m.value) <> 0;
        ELSE INSERT INTO kids_day_counts (partner_id, environment, measure, day, count)
          SELECT r.partner_id, r.environment, m.measure, m.day, sum(r.sign * m.value)
            FROM (SELECT OLD.partner_id, OLD.environment, OLD.occurred_at, OLD.completed_at, OLD.minutes, OLD.entitled_at_occurrence, OLD.entitled_at_completion, -1 AS sign UNION ALL SELECT NEW.partner_id, NEW.environment, NEW.occurred_at, NEW.completed_at, NEW.minutes, NEW.entitled_at_occurrence, NEW.entitled_at_completion, 1) AS r, LATERAL (
  SELECT 'minutes' AS measure, (r.occurred_at AT TIME ZONE 'UTC')::date AS day, r.minutes AS value WHERE r.entitled_at_occurrence
  UNION ALL SELECT 'completions', (r.completed_at AT TIME ZONE 'UTC')::date, 1 WHERE r.entitled_at_completion) AS m
           GROUP BY 1, 2, 3, 4 HAVING sum(r.sign * m.value) <> 0;
        END IF;
        RETURN NULL;
      END $function$

-- trigger kids_activity.kids_activity_mark_entitled
CREATE TRIGGER kids_activity_mark_entitled BEFORE INSERT OR UPDATE OF account_id, occurred_at, completed_at ON public.kids_activity FOR EACH ROW EXECUTE FUNCTION kids_activity_mark_entitled();

-- trigger kids_activity.signed_count_delete
CREATE TRIGGER signed_count_delete AFTER DELETE ON public.kids_activity REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kids_count_sessions();

-- trigger kids_activity.signed_count_insert
CREATE TRIGGER signed_count_insert AFTER INSERT ON public.kids_activity REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kids_count_sessions();

-- trigger kids_activity.signed_count_update
CREATE TRIGGER signed_count_update AFTER UPDATE ON public.kids_activity FOR EACH ROW WHEN (((old.minutes <> new.minutes) OR (old.occurred_at <> new.occurred_at) OR (old.completed_at IS DISTINCT FROM new.completed_at) OR (old.entitled_at_occurrence <> new.entitled_at_occurrence) OR (old.entitled_at_completion <> new.entitled_at_completion))) EXECUTE FUNCTION kids_count_sessions();

-- The rules of the entitlements module that live in the database: the count triggers on
-- its tables (ADR 0129), the per-day peak summary its billing report and the signed-count
-- job extend, and entitlement_active_at, which the children's marking trigger and
-- entitlements' own queries call. The current text, as PostgreSQL prints it;
-- test/architecture/database-definitions.e2e-spec.ts keeps it equal to a freshly migrated
-- database. Change it with a migration, then rewrite this file.
--
-- Two triggers on entitlement_history re-mark children's sessions in the same transaction
-- (ADR 0133): an entitlement change of an account decides whether its sessions counted.
-- cascade: kids_activity_remark_changed writes kids_activity (kids-engagement)
-- cascade: kids_activity_remark_erased writes kids_activity (kids-engagement)

-- function entitlement_active_at(p_partner uuid, p_environment text, p_product text, p_subscriber text, p_at timestamp with time zone)
CREATE OR REPLACE FUNCTION public.entitlement_active_at(p_partner uuid, p_environment text, p_product text, p_subscriber text, p_at timestamp with time zone)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
        SELECT coalesce((SELECT new_status = 'active' FROM entitlement_history
                          WHERE partner_id = p_partner AND environment = p_environment AND subscriber_id = p_subscriber
                            AND product = p_product AND NOT stale AND effective_at <= p_at
                          ORDER BY effective_at DESC, id DESC LIMIT 1), false)
      $function$

-- function entitlement_count_activations()
CREATE OR REPLACE FUNCTION public.entitlement_count_activations()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN INSERT INTO entitlement_activation_counts (partner_id, environment, product, day, at_midnight, since_day, count)
          SELECT r.partner_id, r.environment, r.product, m.day, m.at_midnight, m.since_day, sum(r.sign)
            FROM (SELECT partner_id, environment, product, stale, effective_at, inactive_since, 1 AS sign FROM new_rows) AS r, LATERAL (
  SELECT (r.effective_at AT TIME ZONE 'UTC')::date AS day,
         r.effective_at = date_trunc('day', r.effective_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS at_midnight,
         greatest(((r.inactive_since AT TIME ZONE 'UTC') + interval '1 day' - interval '1 microsecond')::date,
                  (r.effective_at AT TIME ZONE 'UTC')::date - 366) AS since_day
   WHERE NOT r.stale AND r.inactive_since IS NOT NULL) AS m
           GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.sign) <> 0;
        ELSIF TG_OP = 'DELETE' THEN INSERT INTO entitlement_activation_counts (partner_id, environment, product, day, at_midnight, since_day, count)
          SELECT r.partner_id, r.environment, r.product, m.day, m.at_midnight, m.since_day, sum(r.sign)
            FROM (SELECT partner_id, environment, product, stale, effective_at, inactive_since, -1 AS sign FROM old_rows) AS r, LATERAL (
  SELECT (r.effective_at AT TIME ZONE 'UTC')::date AS day,
         r.effective_at = date_trunc('day', r.effective_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS at_midnight,
         greatest(((r.inactive_since AT TIME ZONE 'UTC') + interval '1 day' - interval '1 microsecond')::date,
                  (r.effective_at AT TIME ZONE 'UTC')::date - 366) AS since_day
   WHERE NOT r.stale AND r.inactive_since IS NOT NULL) AS m
           GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.sign) <> 0;
        ELSE INSERT INTO entitlement_activation_counts (partner_id, environment, product, day, at_midnight, since_day, count)
          SELECT r.partner_id, r.environment, r.product, m.day, m.at_midnight, m.since_day, sum(r.sign)
            FROM (SELECT OLD.partner_id, OLD.environment, OLD.product, OLD.stale, OLD.effective_at, OLD.inactive_since, -1 AS sign UNION ALL SELECT NEW.partner_id, NEW.environment, NEW.product, NEW.stale, NEW.effective_at, NEW.inactive_since, 1) AS r, LATERAL (
  SELECT (r.effective_at AT TIME ZONE 'UTC')::date AS day,
         r.effective_at = date_trunc('day', r.effective_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS at_midnight,
         greatest(((r.inactive_since AT TIME ZONE 'UTC') + interval '1 day' - interval '1 microsecond')::date,
                  (r.effective_at AT TIME ZONE 'UTC')::date - 366) AS since_day
   WHERE NOT r.stale AND r.inactive_since IS NOT NULL) AS m
           GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(r.sign) <> 0;
        END IF;
        RETURN NULL;
      END $function$

-- function entitlement_count_history()
CREATE OR REPLACE FUNCTION public.entitlement_count_history()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN INSERT INTO entitlement_counts (partner_id, environment, product, measure, day, count)
          SELECT r.partner_id, r.environment, r.product, m.measure, m.day, sum(r.sign * m.value)
            FROM (SELECT partner_id, environment, product, old_status, new_status, stale, effective_at, 1 AS sign FROM new_rows) AS r, LATERAL (
  SELECT 'created' AS measure, '-infinity'::date AS day, 1 AS value WHERE r.old_status IS NULL AND NOT r.stale
  UNION ALL SELECT 'moves', (r.effective_at AT TIME ZONE 'UTC')::date,
                   (r.new_status = 'active')::int - (r.old_status IS NOT DISTINCT FROM 'active')::int
   WHERE NOT r.stale) AS m
           GROUP BY 1, 2, 3, 4, 5 HAVING sum(r.sign * m.value) <> 0;
        ELSIF TG_OP = 'DELETE' THEN INSERT INTO entitlement_counts (partner_id, environment, product, measure, day, count)
          SELECT r.partner_id, r.environment, r.product, m.measure, m.day, sum(r.sign * m.value)
            FROM (SELECT partner_id, environment, product, old_status, new_status, stale, effective_at, -1 AS sign FROM old_rows) AS r, LATERAL (
  SELECT 'created' AS measure, '-infinity'::date AS day, 1 AS value WHERE r.old_status IS NULL AND NOT r.stale
  UNION ALL SELECT 'moves', (r.effective_at AT TIME ZONE 'UTC')::date,
                   (r.new_status = 'active')::int - (r.old_status IS NOT DISTINCT FROM 'active')::int
   WHERE NOT r.stale) AS m
           GROUP BY 1, 2, 3, 4, 5 HAVING sum(r.sign * m.value) <> 0;
        ELSE INSERT INTO entitlement_counts (partner_id, environment, product, measure, day, count)
          SELECT r.partner_id, r.environment, r.product, m.measure, m.day, sum(r.sign * m.value)
            FROM (SELECT OLD.partner_id, OLD.environment, OLD.product, OLD.old_status, OLD.new_status, OLD.stale, OLD.effective_at, -1 AS sign UNION ALL SELECT NEW.partner_id, NEW.environment, NEW.product, NEW.old_status, NEW.new_status, NEW.stale, NEW.effective_at, 1) AS r, LATERAL (
  SELECT 'created' AS measure, '-infinity'::date AS day, 1 AS value WHERE r.old_status IS NULL AND NOT r.stale
  UNION ALL SELECT 'moves', (r.effective_at AT TIME ZONE 'UTC')::date,
                   (r.new_status = 'active')::int - (r.old_status IS NOT DISTINCT FROM 'active')::int
   WHERE NOT r.stale) AS m
           GROUP BY 1, 2, 3, 4, 5 HAVING sum(r.sign * m.value) <> 0;
        END IF;
        RETURN NULL;
      END $function$

-- function entitlement_count_records()
CREATE OR REPLACE FUNCTION public.entitlement_count_records()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN INSERT INTO entitlement_counts (partner_id, environment, product, measure, day, count)
          SELECT r.partner_id, r.environment, r.product, m.measure, m.day, sum(r.sign * m.value)
            FROM (SELECT partner_id, environment, product, status, 1 AS sign FROM new_rows) AS r, LATERAL (
  SELECT 'records' AS measure, '-infinity'::date AS day, 1 AS value
  UNION ALL SELECT 'active', '-infinity', 1 WHERE r.status = 'active') AS m
           GROUP BY 1, 2, 3, 4, 5 HAVING sum(r.sign * m.value) <> 0;
        ELSIF TG_OP = 'DELETE' THEN INSERT INTO entitlement_counts (partner_id, environment, product, measure, day, count)
          SELECT r.partner_id, r.environment, r.product, m.measure, m.day, sum(r.sign * m.value)
            FROM (SELECT partner_id, environment, product, status, -1 AS sign FROM old_rows) AS r, LATERAL (
  SELECT 'records' AS measure, '-infinity'::date AS day, 1 AS value
  UNION ALL SELECT 'active', '-infinity', 1 WHERE r.status = 'active') AS m
           GROUP BY 1, 2, 3, 4, 5 HAVING sum(r.sign * m.value) <> 0;
        ELSE INSERT INTO entitlement_counts (partner_id, environment, product, measure, day, count)
          SELECT r.partner_id, r.environment, r.product, m.measure, m.day, sum(r.sign * m.value)
            FROM (SELECT OLD.partner_id, OLD.environment, OLD.product, OLD.status, -1 AS sign UNION ALL SELECT NEW.partner_id, NEW.environment, NEW.product, NEW.status, 1) AS r, LATERAL (
  SELECT 'records' AS measure, '-infinity'::date AS day, 1 AS value
  UNION ALL SELECT 'active', '-infinity', 1 WHERE r.status = 'active') AS m
           GROUP BY 1, 2, 3, 4, 5 HAVING sum(r.sign * m.value) <> 0;
        END IF;
        RETURN NULL;
      END $function$

-- function entitlement_day_peak_marks()
CREATE OR REPLACE FUNCTION public.entitlement_day_peak_marks()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN INSERT INTO entitlement_day_peaks (partner_id, environment, product, day, changed_from)
          SELECT partner_id, environment, product, (effective_at AT TIME ZONE 'UTC')::date, min(effective_at)
            FROM (SELECT partner_id, environment, product, old_status, new_status, stale, effective_at, 1 AS sign FROM new_rows) AS r
           WHERE NOT stale AND (new_status = 'active')::int - (old_status IS NOT DISTINCT FROM 'active')::int <> 0
           GROUP BY 1, 2, 3, 4;
        ELSIF TG_OP = 'DELETE' THEN INSERT INTO entitlement_day_peaks (partner_id, environment, product, day, changed_from)
          SELECT partner_id, environment, product, (effective_at AT TIME ZONE 'UTC')::date, min(effective_at)
            FROM (SELECT partner_id, environment, product, old_status, new_status, stale, effective_at, -1 AS sign FROM old_rows) AS r
           WHERE NOT stale AND (new_status = 'active')::int - (old_status IS NOT DISTINCT FROM 'active')::int <> 0
           GROUP BY 1, 2, 3, 4;
        ELSE INSERT INTO entitlement_day_peaks (partner_id, environment, product, day, changed_from)
          SELECT partner_id, environment, product, (effective_at AT TIME ZONE 'UTC')::date, min(effective_at)
            FROM (SELECT OLD.partner_id, OLD.environment, OLD.product, OLD.old_status, OLD.new_status, OLD.stale, OLD.effective_at, -1 AS sign UNION ALL SELECT NEW.partner_id, NEW.environment, NEW.product, NEW.old_status, NEW.new_status, NEW.stale, NEW.effective_at, 1) AS r
           WHERE NOT stale AND (new_status = 'active')::int - (old_status IS NOT DISTINCT FROM 'active')::int <> 0
           GROUP BY 1, 2, 3, 4;
        END IF;
        RETURN NULL;
      END $function$

-- function entitlement_day_summary(p_partner uuid, p_environment text, p_product text, p_day date, b_net bigint, b_peak bigint, b_midnight bigint, b_through timestamp with time zone, p_until timestamp with time zone)
CREATE OR REPLACE FUNCTION public.entitlement_day_summary(p_partner uuid, p_environment text, p_product text, p_day date, b_net bigint, b_peak bigint, b_midnight bigint, b_through timestamp with time zone, p_until timestamp with time zone)
 RETURNS TABLE(net bigint, peak bigint, midnight bigint, through timestamp with time zone)
 LANGUAGE sql
 STABLE
AS $function$
        SELECT coalesce(b_net, 0) + coalesce(sum(move), 0),
               greatest(b_peak, coalesce(b_net, 0) + max(running)),
               coalesce(b_midnight, 0) + coalesce(sum(move) FILTER (WHERE effective_at = p_day::timestamp AT TIME ZONE 'UTC'), 0),
               coalesce(max(effective_at), b_through)
          FROM (SELECT effective_at, move, sum(move) OVER (ORDER BY effective_at) AS running
                  FROM (SELECT effective_at, sum((new_status = 'active')::int - (old_status IS NOT DISTINCT FROM 'active')::int) AS move
                          FROM entitlement_history
                         WHERE partner_id = p_partner AND environment = p_environment AND product = p_product AND NOT stale
                           AND effective_at >= p_day::timestamp AT TIME ZONE 'UTC' AND effective_at > coalesce(b_through, '-infinity')
                           AND effective_at < least((p_day + 1)::timestamp AT TIME ZONE 'UTC', p_until)
                         GROUP BY effective_at) AS instants) AS counted
      $function$

-- function entitlement_inactive_since()
CREATE OR REPLACE FUNCTION public.entitlement_inactive_since()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      DECLARE
        previous_active boolean;
        last_active record;
      BEGIN
        SELECT new_status = 'active' INTO previous_active FROM entitlement_history
         WHERE partner_id = NEW.partner_id AND environment = NEW.environment AND subscriber_id = NEW.subscriber_id AND product = NEW.product AND NOT stale ORDER BY effective_at DESC, id DESC LIMIT 1;
        IF previous_active THEN RETURN NEW; END IF;
        SELECT effective_at, id INTO last_active FROM entitlement_history
         WHERE partner_id = NEW.partner_id AND environment = NEW.environment AND subscriber_id = NEW.subscriber_id AND product = NEW.product AND NOT stale AND new_status = 'active' ORDER BY effective_at DESC, id DESC LIMIT 1;
        IF NOT FOUND THEN
          NEW.inactive_since := '-infinity';
        ELSE
          SELECT min(effective_at) INTO NEW.inactive_since FROM entitlement_history
           WHERE partner_id = NEW.partner_id AND environment = NEW.environment AND subscriber_id = NEW.subscriber_id AND product = NEW.product AND NOT stale AND (effective_at, id) > (last_active.effective_at, last_active.id);
        END IF;
        RETURN NEW;
      END $function$

-- function kids_activity_remark_changed()
CREATE OR REPLACE FUNCTION public.kids_activity_remark_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        UPDATE kids_activity SET 
  entitled_at_occurrence = entitlement_active_at(partner_id, environment, 'kidsapp', account_id, occurred_at),
  entitled_at_completion = entitlement_active_at(partner_id, environment, 'kidsapp', account_id, completed_at)
         WHERE partner_id = NEW.partner_id AND environment = NEW.environment AND account_id = NEW.subscriber_id
           AND (occurred_at >= NEW.effective_at OR completed_at >= NEW.effective_at);
        RETURN NULL;
      END $function$

-- function kids_activity_remark_erased()
CREATE OR REPLACE FUNCTION public.kids_activity_remark_erased()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        UPDATE kids_activity SET 
  entitled_at_occurrence = entitlement_active_at(partner_id, environment, 'kidsapp', account_id, occurred_at),
  entitled_at_completion = entitlement_active_at(partner_id, environment, 'kidsapp', account_id, completed_at)
          FROM (SELECT DISTINCT partner_id, environment, subscriber_id FROM old_rows WHERE product = 'kidsapp') AS gone (tenant, env, account)
         WHERE partner_id = gone.tenant AND environment = gone.env AND account_id = gone.account;
        RETURN NULL;
      END $function$

-- trigger entitlement_history.activation_count_delete
CREATE TRIGGER activation_count_delete AFTER DELETE ON public.entitlement_history REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_count_activations();

-- trigger entitlement_history.activation_count_insert
CREATE TRIGGER activation_count_insert AFTER INSERT ON public.entitlement_history REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_count_activations();

-- trigger entitlement_history.activation_count_update
CREATE TRIGGER activation_count_update AFTER UPDATE ON public.entitlement_history FOR EACH ROW WHEN (((old.stale IS DISTINCT FROM new.stale) OR (old.effective_at IS DISTINCT FROM new.effective_at) OR (old.inactive_since IS DISTINCT FROM new.inactive_since))) EXECUTE FUNCTION entitlement_count_activations();

-- trigger entitlement_history.day_peak_mark_delete
CREATE TRIGGER day_peak_mark_delete AFTER DELETE ON public.entitlement_history REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_day_peak_marks();

-- trigger entitlement_history.day_peak_mark_insert
CREATE TRIGGER day_peak_mark_insert AFTER INSERT ON public.entitlement_history REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_day_peak_marks();

-- trigger entitlement_history.day_peak_mark_update
CREATE TRIGGER day_peak_mark_update AFTER UPDATE ON public.entitlement_history FOR EACH ROW WHEN (((old.stale IS DISTINCT FROM new.stale) OR (old.effective_at IS DISTINCT FROM new.effective_at) OR (old.old_status IS DISTINCT FROM new.old_status) OR (old.new_status IS DISTINCT FROM new.new_status))) EXECUTE FUNCTION entitlement_day_peak_marks();

-- trigger entitlement_history.entitlement_inactive_since
CREATE TRIGGER entitlement_inactive_since BEFORE INSERT ON public.entitlement_history FOR EACH ROW WHEN (((NOT new.stale) AND (new.new_status = 'active'::text))) EXECUTE FUNCTION entitlement_inactive_since();

-- trigger entitlement_history.kids_activity_remark_changed
CREATE TRIGGER kids_activity_remark_changed AFTER INSERT ON public.entitlement_history FOR EACH ROW WHEN (((new.product = 'kidsapp'::text) AND (NOT new.stale))) EXECUTE FUNCTION kids_activity_remark_changed();

-- trigger entitlement_history.kids_activity_remark_erased
CREATE TRIGGER kids_activity_remark_erased AFTER DELETE ON public.entitlement_history REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kids_activity_remark_erased();

-- trigger entitlement_history.signed_count_delete
CREATE TRIGGER signed_count_delete AFTER DELETE ON public.entitlement_history REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_count_history();

-- trigger entitlement_history.signed_count_insert
CREATE TRIGGER signed_count_insert AFTER INSERT ON public.entitlement_history REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_count_history();

-- trigger entitlement_history.signed_count_update
CREATE TRIGGER signed_count_update AFTER UPDATE ON public.entitlement_history FOR EACH ROW WHEN (((old.stale IS DISTINCT FROM new.stale) OR (old.effective_at IS DISTINCT FROM new.effective_at) OR (old.old_status IS DISTINCT FROM new.old_status) OR (old.new_status IS DISTINCT FROM new.new_status))) EXECUTE FUNCTION entitlement_count_history();

-- trigger entitlements.signed_count_delete
CREATE TRIGGER signed_count_delete AFTER DELETE ON public.entitlements REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_count_records();

-- trigger entitlements.signed_count_insert
CREATE TRIGGER signed_count_insert AFTER INSERT ON public.entitlements REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION entitlement_count_records();

-- trigger entitlements.signed_count_update
CREATE TRIGGER signed_count_update AFTER UPDATE ON public.entitlements FOR EACH ROW WHEN ((old.status IS DISTINCT FROM new.status)) EXECUTE FUNCTION entitlement_count_records();

-- The rules of the webhooks module that live in the database: signed counts of pending and
-- failed deliveries behind the backlog gauges (ADR 0060). The current text, as PostgreSQL
-- prints it; test/architecture/database-definitions.e2e-spec.ts keeps it equal to a freshly
-- migrated database. Change it with a migration, then rewrite this file.

-- function webhook_delivery_count()
CREATE OR REPLACE FUNCTION public.webhook_delivery_count()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        IF TG_OP = 'INSERT' THEN INSERT INTO webhook_delivery_counts (status, count)
          SELECT status, sum(sign) FROM (SELECT status, 1 AS sign FROM new_rows) AS r
           WHERE status IN ('pending', 'failed') GROUP BY status HAVING sum(sign) <> 0;
        ELSIF TG_OP = 'DELETE' THEN INSERT INTO webhook_delivery_counts (status, count)
          SELECT status, sum(sign) FROM (SELECT status, -1 AS sign FROM old_rows) AS r
           WHERE status IN ('pending', 'failed') GROUP BY status HAVING sum(sign) <> 0;
        ELSE INSERT INTO webhook_delivery_counts (status, count)
          SELECT status, sum(sign) FROM (SELECT OLD.status, -1 AS sign UNION ALL SELECT NEW.status, 1) AS r
           WHERE status IN ('pending', 'failed') GROUP BY status HAVING sum(sign) <> 0;
        END IF;
        RETURN NULL;
      END $function$

-- trigger webhook_deliveries.signed_count_delete
CREATE TRIGGER signed_count_delete AFTER DELETE ON public.webhook_deliveries REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_count();

-- trigger webhook_deliveries.signed_count_insert
CREATE TRIGGER signed_count_insert AFTER INSERT ON public.webhook_deliveries REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION webhook_delivery_count();

-- trigger webhook_deliveries.signed_count_update
CREATE TRIGGER signed_count_update AFTER UPDATE ON public.webhook_deliveries FOR EACH ROW WHEN ((old.status IS DISTINCT FROM new.status)) EXECUTE FUNCTION webhook_delivery_count();

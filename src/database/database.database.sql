-- Partition upkeep shared by every monthly-partitioned table (ADR 0100), called by
-- src/database/partition-maintenance.job.ts. The current text of each function, as
-- PostgreSQL prints it; test/architecture/database-definitions.e2e-spec.ts keeps it equal
-- to a freshly migrated database. Change it with a migration, then rewrite this file.

-- function monthly_partition_bounds(parent regclass)
CREATE OR REPLACE FUNCTION public.monthly_partition_bounds(parent regclass)
 RETURNS TABLE(partition regclass, upper_bound timestamp with time zone)
 LANGUAGE sql
 STABLE
AS $function$
        SELECT c.oid::regclass, (regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \(''([^'']+)''\)'))[1]::timestamptz
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = parent
      $function$

-- function monthly_partitions_create(parent regclass, through timestamp with time zone)
CREATE OR REPLACE FUNCTION public.monthly_partitions_create(parent regclass, through timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
      DECLARE
        start timestamptz;
        created integer := 0;
      BEGIN
        PERFORM pg_advisory_xact_lock(7340116, hashtext(parent::text));
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
      END $function$

-- function monthly_partitions_drop_before(parent regclass, cutoff timestamp with time zone)
CREATE OR REPLACE FUNCTION public.monthly_partitions_drop_before(parent regclass, cutoff timestamp with time zone)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
      DECLARE
        old regclass;
        dropped integer := 0;
      BEGIN
        PERFORM pg_advisory_xact_lock(7340116, hashtext(parent::text));
        SET LOCAL lock_timeout = '5s';
        FOR old IN SELECT partition FROM monthly_partition_bounds(parent) WHERE upper_bound <= cutoff LOOP
          EXECUTE format('DROP TABLE %s', old);
          dropped := dropped + 1;
        END LOOP;
        RETURN dropped;
      END $function$

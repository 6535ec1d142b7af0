-- The rule of the operator-audit module that lives in the database: operator_actions is
-- append-only (ADR 0155). The current text, as PostgreSQL prints it;
-- test/architecture/database-definitions.e2e-spec.ts keeps it equal to a freshly migrated
-- database. Change it with a migration, then rewrite this file.

-- function operator_actions_append_only()
CREATE OR REPLACE FUNCTION public.operator_actions_append_only()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
      BEGIN
        RAISE EXCEPTION 'operator_actions is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $function$

-- trigger operator_actions.operator_actions_no_change
CREATE TRIGGER operator_actions_no_change BEFORE DELETE OR UPDATE ON public.operator_actions FOR EACH ROW EXECUTE FUNCTION operator_actions_append_only();

-- trigger operator_actions.operator_actions_no_truncate
CREATE TRIGGER operator_actions_no_truncate BEFORE TRUNCATE ON public.operator_actions FOR EACH STATEMENT EXECUTE FUNCTION operator_actions_append_only();

-- Explicit privileges, whatever the project's default privileges are. Older Supabase projects grant every
-- new table, function and sequence in `public` to anon, authenticated and service_role; new projects grant
-- nothing. The earlier migrations grant and revoke table by table and function by function; what they
-- left to the defaults is settled here, so both kinds of project end with the same privileges:
-- - sequences: the API roles never call nextval directly (identity columns need no grant on theirs);
-- - trigger functions: a trigger runs its function without EXECUTE, and no role should call one.

revoke all on all sequences in schema public from anon, authenticated, service_role;

do $$
declare
  v_function regprocedure;
begin
  for v_function in
    select p.oid::regprocedure
    from pg_proc p
    where p.pronamespace = 'public'::regnamespace and p.prorettype = 'trigger'::regtype
  loop
    execute format('revoke execute on function %s from public, anon, authenticated, service_role', v_function);
  end loop;
end
$$;

import type { PGlite } from '@electric-sql/pglite';

/** The role the embedded database's statements run as: not a superuser, so row-level security applies. */
export const EMBEDDED_SERVICE_ROLE = 'pcs_service';

/**
 * PGlite opens its one session as a superuser, whom row-level security never binds. The service's
 * statements run as an ordinary role that owns the tables instead, as on a PostgreSQL deployment;
 * tables a data directory from before tenants holds are handed to it first.
 */
export async function useServiceRole(pglite: PGlite): Promise<void> {
  await pglite.exec(`
    DO $$
    DECLARE
      r record;
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${EMBEDDED_SERVICE_ROLE}') THEN
        CREATE ROLE ${EMBEDDED_SERVICE_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS;
      END IF;
      EXECUTE format('GRANT CREATE ON DATABASE %I TO ${EMBEDDED_SERVICE_ROLE}', current_database());
      GRANT ALL ON SCHEMA public TO ${EMBEDDED_SERVICE_ROLE};
      FOR r IN
        SELECT c.oid::regclass AS rel FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relowner <> '${EMBEDDED_SERVICE_ROLE}'::regrole
      LOOP
        EXECUTE format('ALTER TABLE %s OWNER TO ${EMBEDDED_SERVICE_ROLE}', r.rel);
      END LOOP;
      FOR r IN
        SELECT p.oid::regprocedure AS fn FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.proowner <> '${EMBEDDED_SERVICE_ROLE}'::regrole
          AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
      LOOP
        EXECUTE format('ALTER FUNCTION %s OWNER TO ${EMBEDDED_SERVICE_ROLE}', r.fn);
      END LOOP;
    END
    $$;
    SET ROLE ${EMBEDDED_SERVICE_ROLE};
  `);
}

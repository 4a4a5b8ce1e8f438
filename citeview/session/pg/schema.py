"""The server's schema: versioned like the file's (:mod:`citeview.session.migrations`), one
ordered list of migrations, each applied in one transaction with its version row.

Everything lives in the schema ``citeview`` of one database; a project is a row of
``citeview.projects`` and every other row carries its project. The tables belong to the role
``citeview_owner``, which nobody logs in as (NOLOGIN); row-level security is forced on every
table, so even the owner (the routing functions run as it) passes a policy. Reviewers log in as
their own role, granted ``citeview_annotator``; leads are granted ``citeview_lead``. Who is a
member of which project is ``citeview.members`` (by role name): the policies ask it through
small SECURITY DEFINER functions (``is_member``, ``is_lead``, ``is_blind``).

A database at a version past :data:`SCHEMA_VERSION` (a newer citeview migrated it) is opened
read-only with a message; an older one is migrated by whoever may (a lead or the admin), else it
is read-only too.
"""

from __future__ import annotations

from typing import Any

import psycopg
from psycopg import sql

OWNER = "citeview_owner"
ANNOTATOR = "citeview_annotator"
LEAD = "citeview_lead"

_ROLES = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{OWNER}') THEN
        CREATE ROLE {OWNER} NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ANNOTATOR}') THEN
        CREATE ROLE {ANNOTATOR} NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{LEAD}') THEN
        CREATE ROLE {LEAD} NOLOGIN;
    END IF;
END
$$"""

# Tables a member reads and writes through the policies below (rows of their own).
_OWN_ROWS = ("annotations", "reviews")


def _row_policies(table: str) -> list[str]:
    """The policies of a table of reviewers' rows (the first migration's and the second's)."""
    return [
        # an annotator's own rows: read, write, change, delete
        f"""CREATE POLICY own_rows ON citeview.{table} TO {ANNOTATOR}
            USING (annotator = CURRENT_USER AND citeview.is_member(project, CURRENT_USER))
            WITH CHECK (annotator = CURRENT_USER
                        AND citeview.is_member(project, CURRENT_USER))""",
        # others' rows, read only, unless the project is blind
        f"""CREATE POLICY open_reads ON citeview.{table} FOR SELECT TO {ANNOTATOR}
            USING (citeview.is_member(project, CURRENT_USER) AND NOT citeview.is_blind(project))""",
        # a lead reads everything and adjudicates (writes any row of the project)
        f"""CREATE POLICY lead_all ON citeview.{table} TO {LEAD}
            USING (citeview.is_lead(project, CURRENT_USER))
            WITH CHECK (citeview.is_lead(project, CURRENT_USER))""",
    ]

MIGRATION_1: list[str] = [
    _ROLES,
    f"CREATE SCHEMA IF NOT EXISTS citeview AUTHORIZATION {OWNER}",
    f"GRANT {OWNER} TO CURRENT_USER",
    f"SET LOCAL ROLE {OWNER}",
    # The version row: one row, the schema version of the whole database.
    """CREATE TABLE citeview.version (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        version integer NOT NULL
    )""",
    # A project: settings as the file's meta (JSON), blind flag and routing (overlap: reviewers
    # per case, NULL for every reviewer every case), the lease a hand-out lasts.
    """CREATE TABLE citeview.projects (
        name text PRIMARY KEY,
        meta text NOT NULL DEFAULT '{}',
        blind boolean NOT NULL DEFAULT false,
        overlap integer CHECK (overlap IS NULL OR overlap > 0),
        lease_seconds integer NOT NULL DEFAULT 600 CHECK (lease_seconds > 0),
        created timestamptz NOT NULL DEFAULT now()
    )""",
    """CREATE TABLE citeview.members (
        project text NOT NULL REFERENCES citeview.projects ON DELETE CASCADE,
        role name NOT NULL,
        kind text NOT NULL CHECK (kind IN ('annotator', 'lead')),
        PRIMARY KEY (project, role)
    )""",
    # Cases in input order; ``active`` counts the reviewers holding or done with the case (the
    # routing's N), kept on the row so that a concurrent hand-out re-checks it under the lock;
    # ``full_up`` says it reached N (never, for full overlap).
    """CREATE TABLE citeview.cases (
        project text NOT NULL REFERENCES citeview.projects ON DELETE CASCADE,
        pos integer NOT NULL,
        id text NOT NULL,
        data text NOT NULL,
        active integer NOT NULL DEFAULT 0,
        full_up boolean NOT NULL DEFAULT false,
        PRIMARY KEY (project, id),
        UNIQUE (project, pos)
    )""",
    # The cases still open to hand out, in order: a hand-out reads past no finished case.
    "CREATE INDEX cases_open ON citeview.cases (project, pos) WHERE NOT full_up",
    """CREATE TABLE citeview.case_stats (
        project text NOT NULL,
        case_id text NOT NULL,
        sizes integer[] NOT NULL,
        PRIMARY KEY (project, case_id),
        FOREIGN KEY (project, case_id) REFERENCES citeview.cases ON DELETE CASCADE
            ON UPDATE CASCADE
    )""",
    # The file's annotation row plus: ``late`` (written on a lease handed on meanwhile) and the
    # client's op id of the write that stored it.
    """CREATE TABLE citeview.annotations (
        rowid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        project text NOT NULL,
        case_id text NOT NULL,
        number integer NOT NULL,
        raw text NOT NULL,
        source_id text NOT NULL,
        annotator text NOT NULL DEFAULT CURRENT_USER,
        verdict text,
        note text NOT NULL DEFAULT '',
        timestamp text NOT NULL DEFAULT '',
        claim text NOT NULL DEFAULT '',
        recovered integer NOT NULL DEFAULT 0,
        orphaned integer NOT NULL DEFAULT 0,
        extra text NOT NULL DEFAULT '{}',
        late boolean NOT NULL DEFAULT false,
        op_id uuid,
        FOREIGN KEY (project, case_id) REFERENCES citeview.cases ON DELETE CASCADE
            ON UPDATE CASCADE
    )""",
    """CREATE UNIQUE INDEX annotations_key ON citeview.annotations
        (project, case_id, number, raw, source_id, annotator) WHERE orphaned = 0""",
    "CREATE INDEX annotations_by_annotator ON citeview.annotations (project, annotator)",
    """CREATE TABLE citeview.reviews (
        project text NOT NULL,
        case_id text NOT NULL,
        annotator text NOT NULL DEFAULT CURRENT_USER,
        state text NOT NULL,
        verdict text,
        note text NOT NULL DEFAULT '',
        timestamp text NOT NULL DEFAULT '',
        extra text NOT NULL DEFAULT '{}',
        late boolean NOT NULL DEFAULT false,
        op_id uuid,
        PRIMARY KEY (project, case_id, annotator),
        FOREIGN KEY (project, case_id) REFERENCES citeview.cases ON DELETE CASCADE
            ON UPDATE CASCADE
    )""",
    # Who was handed which case: one row per (case, reviewer) ever, so nobody gets one twice.
    """CREATE TABLE citeview.assignments (
        project text NOT NULL,
        case_id text NOT NULL,
        reviewer text NOT NULL,
        state text NOT NULL CHECK (state IN ('leased', 'done', 'expired')),
        leased_at timestamptz NOT NULL DEFAULT now(),
        lease_until timestamptz NOT NULL,
        done_at timestamptz,
        PRIMARY KEY (project, case_id, reviewer),
        FOREIGN KEY (project, case_id) REFERENCES citeview.cases ON DELETE CASCADE
            ON UPDATE CASCADE
    )""",
    "CREATE INDEX assignments_open ON citeview.assignments (project, state, lease_until)",
    "CREATE INDEX assignments_by_reviewer ON citeview.assignments (project, reviewer, state)",
    # Applied writes by their client-made op id: a write sent twice is stored once. ``seq``
    # orders them (changed_elsewhere), ``token`` names the open session that made it.
    """CREATE TABLE citeview.ops (
        op_id uuid PRIMARY KEY,
        project text NOT NULL REFERENCES citeview.projects ON DELETE CASCADE,
        seq bigint GENERATED ALWAYS AS IDENTITY,
        token text NOT NULL DEFAULT '',
        actor text NOT NULL DEFAULT CURRENT_USER,
        at timestamptz NOT NULL DEFAULT now()
    )""",
    "CREATE INDEX ops_seq ON citeview.ops (project, seq)",
    # One writing window per (project, role): the file's lock row.
    """CREATE TABLE citeview.writers (
        project text NOT NULL REFERENCES citeview.projects ON DELETE CASCADE,
        role name NOT NULL DEFAULT CURRENT_USER,
        token text NOT NULL,
        pid integer NOT NULL,
        since timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (project, role)
    )""",
    # -- membership, asked by the policies (SECURITY DEFINER: a member need not read members)
    """CREATE FUNCTION citeview.is_member(p text, r name) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = citeview, pg_temp AS
        $$ SELECT EXISTS (SELECT 1 FROM citeview.members m
                          WHERE m.project = p AND m.role = r) $$""",
    """CREATE FUNCTION citeview.is_lead(p text, r name) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = citeview, pg_temp AS
        $$ SELECT EXISTS (SELECT 1 FROM citeview.members m
                          WHERE m.project = p AND m.role = r AND m.kind = 'lead') $$""",
    """CREATE FUNCTION citeview.is_blind(p text) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = citeview, pg_temp AS
        $$ SELECT coalesce((SELECT blind FROM citeview.projects WHERE name = p), true) $$""",
    # Whether the login role may act for ``reviewer``: itself when a member of the project, a
    # lead of the project, or a superuser (the admin, the tests' contract store).
    """CREATE FUNCTION citeview.may_act(p text, reviewer text) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = citeview, pg_temp AS
        $$ SELECT (reviewer = session_user::text AND citeview.is_member(p, session_user))
                  OR citeview.is_lead(p, session_user)
                  OR (SELECT rolsuper FROM pg_roles WHERE rolname = session_user) $$""",
    # A new project, made by the admin or by a lead (a member of citeview_lead), who becomes
    # its lead; ``replace`` drops one of the same name the caller leads.
    """CREATE FUNCTION citeview.create_project(p text, meta text, blind boolean,
            overlap integer, lease integer, replace boolean) RETURNS void
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        DECLARE
            admin boolean := (SELECT rolsuper FROM pg_roles WHERE rolname = session_user);
        BEGIN
            IF NOT admin AND NOT pg_has_role(session_user, 'citeview_lead', 'MEMBER') THEN
                RAISE EXCEPTION 'citeview: % is not a lead (citeview_lead)', session_user
                    USING ERRCODE = 'insufficient_privilege';
            END IF;
            IF EXISTS (SELECT 1 FROM citeview.projects WHERE name = p) THEN
                IF NOT replace THEN
                    RAISE EXCEPTION 'citeview: project % exists', p
                        USING ERRCODE = 'unique_violation';
                END IF;
                IF NOT admin AND NOT citeview.is_lead(p, session_user) THEN
                    RAISE EXCEPTION 'citeview: % may not replace project %', session_user, p
                        USING ERRCODE = 'insufficient_privilege';
                END IF;
                DELETE FROM citeview.projects WHERE name = p;
            END IF;
            INSERT INTO citeview.projects (name, meta, blind, overlap, lease_seconds)
                VALUES (p, meta, blind, overlap, lease);
            IF NOT admin THEN
                INSERT INTO citeview.members (project, role, kind)
                    VALUES (p, session_user, 'lead');
            END IF;
        END $$""",
    # -- routing: leases handed out under the case row's lock (SKIP LOCKED)
    """CREATE FUNCTION citeview.expire_leases(p text) RETURNS integer
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        DECLARE n integer;
        BEGIN
            WITH gone AS (
                UPDATE citeview.assignments a SET state = 'expired'
                WHERE (a.project, a.case_id, a.reviewer) IN (
                    SELECT x.project, x.case_id, x.reviewer FROM citeview.assignments x
                    WHERE x.project = p AND x.state = 'leased' AND x.lease_until < now()
                    FOR UPDATE SKIP LOCKED)
                RETURNING a.case_id),
            counted AS (SELECT case_id, count(*) AS n FROM gone GROUP BY case_id),
            fixed AS (
                UPDATE citeview.cases c SET active = c.active - counted.n, full_up = false
                FROM counted
                WHERE c.project = p AND c.id = counted.case_id RETURNING 1)
            SELECT count(*) INTO n FROM fixed;
            RETURN n;
        END $$""",
    """CREATE FUNCTION citeview.next_cases(p text, reviewer text, k integer)
        RETURNS TABLE (case_id text, pos integer)
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        DECLARE
            cap integer;
            lease integer;
            have integer;
            picked record;
        BEGIN
            IF NOT citeview.may_act(p, reviewer) THEN
                RAISE EXCEPTION 'citeview: % may not take cases for %', session_user, reviewer
                    USING ERRCODE = 'insufficient_privilege';
            END IF;
            SELECT overlap, lease_seconds INTO cap, lease FROM citeview.projects WHERE name = p;
            IF NOT FOUND THEN
                RAISE EXCEPTION 'citeview: no project %', p USING ERRCODE = 'no_data_found';
            END IF;
            PERFORM citeview.expire_leases(p);
            UPDATE citeview.assignments a SET lease_until = now() + make_interval(secs => lease)
                WHERE a.project = p AND a.reviewer = next_cases.reviewer AND a.state = 'leased';
            SELECT count(*) INTO have FROM citeview.assignments a
                WHERE a.project = p AND a.reviewer = next_cases.reviewer AND a.state = 'leased';
            WHILE have < k LOOP
                SELECT c.id, c.pos INTO picked FROM citeview.cases c
                    WHERE c.project = p AND NOT c.full_up
                      AND (cap IS NULL OR c.active < cap)
                      -- one primary-key probe per case read (OFFSET 0: never an anti-join
                      -- that reads all the reviewer's assignments for every case)
                      AND NOT EXISTS (SELECT 1 FROM citeview.assignments a
                                      WHERE a.project = p AND a.case_id = c.id
                                        AND a.reviewer = next_cases.reviewer OFFSET 0)
                    ORDER BY c.pos LIMIT 1 FOR UPDATE SKIP LOCKED;
                EXIT WHEN NOT FOUND;
                INSERT INTO citeview.assignments (project, case_id, reviewer, state, lease_until)
                    VALUES (p, picked.id, next_cases.reviewer, 'leased',
                            now() + make_interval(secs => lease));
                UPDATE citeview.cases c SET active = c.active + 1,
                        full_up = cap IS NOT NULL AND c.active + 1 >= cap
                    WHERE c.project = p AND c.id = picked.id;
                have := have + 1;
            END LOOP;
            RETURN QUERY SELECT a.case_id, c.pos FROM citeview.assignments a
                JOIN citeview.cases c ON c.project = a.project AND c.id = a.case_id
                WHERE a.project = p AND a.reviewer = next_cases.reviewer AND a.state = 'leased'
                ORDER BY c.pos;
        END $$""",
    """CREATE FUNCTION citeview.renew_leases(p text, reviewer text) RETURNS integer
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        DECLARE n integer;
        BEGIN
            IF NOT citeview.may_act(p, reviewer) THEN
                RAISE EXCEPTION 'citeview: % may not renew leases of %', session_user, reviewer
                    USING ERRCODE = 'insufficient_privilege';
            END IF;
            UPDATE citeview.assignments a SET lease_until = now() + make_interval(
                    secs => (SELECT lease_seconds FROM citeview.projects WHERE name = p))
                WHERE a.project = p AND a.reviewer = renew_leases.reviewer
                  AND a.state = 'leased' AND a.lease_until >= now();
            GET DIAGNOSTICS n = ROW_COUNT;
            RETURN n;
        END $$""",
    # A member taken off the project: the cases they hold return to the queue at once.
    """CREATE FUNCTION citeview.release_leases(p text, reviewer text) RETURNS integer
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        BEGIN
            IF NOT citeview.may_act(p, reviewer) THEN
                RAISE EXCEPTION 'citeview: % may not release leases of %', session_user,
                    reviewer USING ERRCODE = 'insufficient_privilege';
            END IF;
            UPDATE citeview.assignments a SET lease_until = now() - interval '1 second'
                WHERE a.project = p AND a.reviewer = release_leases.reviewer
                  AND a.state = 'leased';
            RETURN citeview.expire_leases(p);
        END $$""",
    # ``late``: kept but not counted toward N. A verdict or review written by a reviewer whose
    # lease was handed on meanwhile, or (a project routed to N reviewers) by an annotator who
    # was never handed the case, which would make it N + 1. A lead's rows always count (an
    # adjudication is no review). A review set done closes the reviewer's lease.
    """CREATE FUNCTION citeview.mark_late() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        DECLARE held text;
        BEGIN
            SELECT a.state INTO held FROM citeview.assignments a
                WHERE a.project = NEW.project AND a.case_id = NEW.case_id
                  AND a.reviewer = NEW.annotator;
            NEW.late := coalesce(held = 'expired', false) OR (
                held IS NULL
                AND (SELECT overlap FROM citeview.projects WHERE name = NEW.project) IS NOT NULL
                AND EXISTS (SELECT 1 FROM citeview.members m WHERE m.project = NEW.project
                            AND m.role = NEW.annotator AND m.kind = 'annotator'));
            RETURN NEW;
        END $$""",
    """CREATE FUNCTION citeview.review_done() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        BEGIN
            IF NEW.state = 'done' THEN
                UPDATE citeview.assignments a SET state = 'done', done_at = now()
                    WHERE a.project = NEW.project AND a.case_id = NEW.case_id
                      AND a.reviewer = NEW.annotator AND a.state = 'leased';
            END IF;
            RETURN NULL;
        END $$""",
    # Live progress: one notification per changed row, on the channel ``citeview``.
    """CREATE FUNCTION citeview.announce() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        DECLARE r record;
        BEGIN
            IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
            PERFORM pg_notify('citeview', json_build_object(
                'project', r.project, 'table', TG_TABLE_NAME,
                'case_id', coalesce(to_jsonb(r) ->> 'case_id', to_jsonb(r) ->> 'id'),
                'who', CASE WHEN TG_TABLE_NAME = 'assignments' THEN to_jsonb(r) ->> 'reviewer'
                            ELSE to_jsonb(r) ->> 'annotator' END,
                'pid', pg_backend_pid())::text);
            RETURN NULL;
        END $$""",
    # A lead's changes to the project: its settings (table "projects"), cases added (one
    # announcement a statement: a project of 100,000 cases is one) or a case's content changed.
    """CREATE FUNCTION citeview.announce_project() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        BEGIN
            PERFORM pg_notify('citeview', json_build_object(
                'project', NEW.name, 'table', 'projects', 'pid', pg_backend_pid())::text);
            RETURN NULL;
        END $$""",
    """CREATE FUNCTION citeview.announce_cases() RETURNS trigger
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = citeview, pg_temp AS $$
        DECLARE p text;
        BEGIN
            FOR p IN SELECT DISTINCT project FROM new_rows LOOP
                PERFORM pg_notify('citeview', json_build_object(
                    'project', p, 'table', 'cases', 'pid', pg_backend_pid())::text);
            END LOOP;
            RETURN NULL;
        END $$""",
    """CREATE TRIGGER projects_announce AFTER UPDATE ON citeview.projects
        FOR EACH ROW EXECUTE FUNCTION citeview.announce_project()""",
    """CREATE TRIGGER cases_added_announce AFTER INSERT ON citeview.cases
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
        EXECUTE FUNCTION citeview.announce_cases()""",
    """CREATE TRIGGER cases_changed_announce AFTER UPDATE OF data ON citeview.cases
        FOR EACH ROW EXECUTE FUNCTION citeview.announce()""",
    """CREATE TRIGGER annotations_late BEFORE INSERT OR UPDATE ON citeview.annotations
        FOR EACH ROW EXECUTE FUNCTION citeview.mark_late()""",
    """CREATE TRIGGER reviews_late BEFORE INSERT OR UPDATE ON citeview.reviews
        FOR EACH ROW EXECUTE FUNCTION citeview.mark_late()""",
    """CREATE TRIGGER reviews_done AFTER INSERT OR UPDATE ON citeview.reviews
        FOR EACH ROW EXECUTE FUNCTION citeview.review_done()""",
    """CREATE TRIGGER annotations_announce AFTER INSERT OR UPDATE OR DELETE
        ON citeview.annotations FOR EACH ROW EXECUTE FUNCTION citeview.announce()""",
    """CREATE TRIGGER reviews_announce AFTER INSERT OR UPDATE OR DELETE
        ON citeview.reviews FOR EACH ROW EXECUTE FUNCTION citeview.announce()""",
    """CREATE TRIGGER assignments_announce AFTER INSERT OR UPDATE
        ON citeview.assignments FOR EACH ROW EXECUTE FUNCTION citeview.announce()""",
    # -- privileges: members use the tables through the policies; leads change projects, cases
    f"GRANT USAGE ON SCHEMA citeview TO {ANNOTATOR}, {LEAD}",
    f"GRANT SELECT ON ALL TABLES IN SCHEMA citeview TO {ANNOTATOR}, {LEAD}",
    f"""GRANT INSERT, UPDATE, DELETE ON citeview.annotations, citeview.reviews,
        citeview.case_stats, citeview.ops, citeview.writers TO {ANNOTATOR}, {LEAD}""",
    f"""GRANT INSERT, UPDATE, DELETE ON citeview.projects, citeview.cases, citeview.members
        TO {LEAD}""",
    "REVOKE ALL ON ALL FUNCTIONS IN SCHEMA citeview FROM PUBLIC",
    f"GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA citeview TO {ANNOTATOR}, {LEAD}",
    # -- row-level security, forced (the owner too)
    *[f"ALTER TABLE citeview.{t} ENABLE ROW LEVEL SECURITY" for t in (
        "version", "projects", "members", "cases", "case_stats", "annotations", "reviews",
        "assignments", "ops", "writers")],
    *[f"ALTER TABLE citeview.{t} FORCE ROW LEVEL SECURITY" for t in (
        "version", "projects", "members", "cases", "case_stats", "annotations", "reviews",
        "assignments", "ops", "writers")],
    *[f"CREATE POLICY owner_all ON citeview.{t} TO {OWNER} USING (true) WITH CHECK (true)"
      for t in ("version", "projects", "members", "cases", "case_stats", "annotations",
                "reviews", "assignments", "ops", "writers")],
    "CREATE POLICY anyone_reads ON citeview.version FOR SELECT TO PUBLIC USING (true)",
    f"""CREATE POLICY member_reads ON citeview.projects FOR SELECT TO {ANNOTATOR}, {LEAD}
        USING (citeview.is_member(name, CURRENT_USER))""",
    f"""CREATE POLICY lead_changes ON citeview.projects FOR UPDATE TO {LEAD}
        USING (citeview.is_lead(name, CURRENT_USER))
        WITH CHECK (citeview.is_lead(name, CURRENT_USER))""",
    f"""CREATE POLICY lead_manages ON citeview.members TO {LEAD}
        USING (citeview.is_lead(project, CURRENT_USER))
        WITH CHECK (citeview.is_lead(project, CURRENT_USER))""",
    f"""CREATE POLICY own_membership ON citeview.members FOR SELECT TO {ANNOTATOR}, {LEAD}
        USING (role = CURRENT_USER OR citeview.is_lead(project, CURRENT_USER))""",
    *[f"""CREATE POLICY member_reads ON citeview.{t} FOR SELECT TO {ANNOTATOR}, {LEAD}
          USING (citeview.is_member(project, CURRENT_USER))""" for t in ("cases", "ops")],
    f"""CREATE POLICY lead_writes ON citeview.cases TO {LEAD}
        USING (citeview.is_lead(project, CURRENT_USER))
        WITH CHECK (citeview.is_lead(project, CURRENT_USER))""",
    f"""CREATE POLICY member_counts ON citeview.case_stats TO {ANNOTATOR}, {LEAD}
        USING (citeview.is_member(project, CURRENT_USER))
        WITH CHECK (citeview.is_member(project, CURRENT_USER))""",
    f"""CREATE POLICY own_ops ON citeview.ops FOR INSERT TO {ANNOTATOR}, {LEAD}
        WITH CHECK (actor = CURRENT_USER AND citeview.is_member(project, CURRENT_USER))""",
    f"""CREATE POLICY own_window ON citeview.writers TO {ANNOTATOR}, {LEAD}
        USING (role = CURRENT_USER) WITH CHECK (role = CURRENT_USER
                                               AND citeview.is_member(project, CURRENT_USER))""",
    f"""CREATE POLICY own_or_lead ON citeview.assignments FOR SELECT TO {ANNOTATOR}, {LEAD}
        USING (reviewer = CURRENT_USER OR citeview.is_lead(project, CURRENT_USER))""",
    *[stmt for t in _OWN_ROWS for stmt in _row_policies(t)],
]

# Issue 30: the reasons of a verdict, evidence spans and corrections of the citations. The
# two new tables hold a reviewer's rows as annotations do: the same policies (an annotator
# writes only their own, reads others' unless the project is blind; a lead reads and writes
# all), the same op id column and the same notifications.
_MARK_ROWS = ("evidence", "corrections")

MIGRATION_2: list[str] = [
    f"GRANT {OWNER} TO CURRENT_USER",
    f"SET LOCAL ROLE {OWNER}",
    # A JSON list of names from the project's reason list (meta "reasons").
    "ALTER TABLE citeview.annotations ADD COLUMN reasons text NOT NULL DEFAULT '[]'",
    # One evidence span per row; offsets are code points in the source's text.
    """CREATE TABLE citeview.evidence (
        project text NOT NULL,
        id text NOT NULL,
        case_id text NOT NULL,
        number integer NOT NULL CHECK (number >= 0),
        raw text NOT NULL,
        source_id text NOT NULL,
        annotator text NOT NULL DEFAULT CURRENT_USER,
        start_offset integer NOT NULL CHECK (start_offset >= 0),
        end_offset integer NOT NULL CHECK (end_offset >= start_offset),
        first_line integer NOT NULL DEFAULT 0,
        last_line integer NOT NULL DEFAULT 0,
        text text NOT NULL DEFAULT '',
        timestamp text NOT NULL DEFAULT '',
        op_id uuid,
        PRIMARY KEY (project, id),
        FOREIGN KEY (project, case_id) REFERENCES citeview.cases ON DELETE CASCADE
            ON UPDATE CASCADE
    )""",
    "CREATE INDEX evidence_case ON citeview.evidence (project, case_id, number)",
    # ``data``: the correction's export shape (core/corrections.py), as in the file.
    """CREATE TABLE citeview.corrections (
        project text NOT NULL,
        id text NOT NULL,
        case_id text NOT NULL,
        annotator text NOT NULL DEFAULT CURRENT_USER,
        timestamp text NOT NULL DEFAULT '',
        data text NOT NULL,
        op_id uuid,
        PRIMARY KEY (project, id),
        FOREIGN KEY (project, case_id) REFERENCES citeview.cases ON DELETE CASCADE
            ON UPDATE CASCADE
    )""",
    "CREATE INDEX corrections_case ON citeview.corrections (project, case_id)",
    *[f"""CREATE TRIGGER {t}_announce AFTER INSERT OR UPDATE OR DELETE ON citeview.{t}
          FOR EACH ROW EXECUTE FUNCTION citeview.announce()""" for t in _MARK_ROWS],
    f"""GRANT SELECT, INSERT, UPDATE, DELETE ON citeview.evidence, citeview.corrections
        TO {ANNOTATOR}, {LEAD}""",
    *[stmt for t in _MARK_ROWS for stmt in (
        f"ALTER TABLE citeview.{t} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE citeview.{t} FORCE ROW LEVEL SECURITY",
        f"CREATE POLICY owner_all ON citeview.{t} TO {OWNER} USING (true) WITH CHECK (true)",
        *_row_policies(t),
    )],
]

MIGRATIONS: list[list[str]] = [MIGRATION_1, MIGRATION_2]
SCHEMA_VERSION = len(MIGRATIONS)

# Serialises migrations of one database (an advisory lock key: "CTVW").
_MIGRATION_LOCK = 0x43545657


def server_version(conn: psycopg.Connection[Any]) -> int:
    """The schema version of the database (0: citeview was never installed there)."""
    with conn.cursor() as cur:
        cur.execute("SELECT to_regclass('citeview.version') IS NOT NULL")
        row = cur.fetchone()
        if not row or not row[0]:
            return 0
        cur.execute("SELECT version FROM citeview.version")
        got = cur.fetchone()
    return int(got[0]) if got else 0


def migrate(conn: psycopg.Connection[Any]) -> int:
    """Bring the database up to :data:`SCHEMA_VERSION`, one transaction per migration (under an
    advisory lock, so two admins never run one twice); the version reached."""
    while True:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            version = server_version(conn)
            if version >= SCHEMA_VERSION:
                return version
            for statement in MIGRATIONS[version]:
                conn.execute(sql.SQL(statement))  # type: ignore[arg-type,unused-ignore]
            conn.execute(
                "INSERT INTO citeview.version (one, version) VALUES (true, %s) "
                "ON CONFLICT (one) DO UPDATE SET version = EXCLUDED.version",
                (version + 1,))
            conn.execute("RESET ROLE")


__all__ = ["ANNOTATOR", "LEAD", "MIGRATIONS", "MIGRATION_1", "MIGRATION_2", "OWNER",
           "SCHEMA_VERSION", "migrate", "server_version"]

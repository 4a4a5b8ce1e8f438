"""The project address (parsed without a server; a password never accepted nor shown) and the
server's schema version (a project of a newer citeview opens read-only with a message; one of
the previous version is migrated with its verdicts in place)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from citeview.core.cases import Case
from citeview.session.errors import ReadOnlySession, SessionError
from citeview.session.pg.address import is_address, parse_address, with_project

names = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,20}", fullmatch=True)


def test_addresses_name_a_server_and_a_project_and_pass_libpq_options_through() -> None:
    got = parse_address("postgresql://ana@db.example:5433/qa?sslmode=verify-full"
                        "&sslrootcert=/etc/ca.pem&project=week-12")
    assert got.project == "week-12"
    assert got.conninfo == ("postgresql://ana@db.example:5433/qa?sslmode=verify-full"
                            "&sslrootcert=%2Fetc%2Fca.pem")
    conninfo_to_dict = pytest.importorskip("psycopg.conninfo").conninfo_to_dict
    assert conninfo_to_dict(got.conninfo)["sslmode"] == "verify-full"
    service = parse_address("pg:team/qa")
    assert (service.conninfo, service.project) == ("service='team'", "qa")
    assert not is_address("qa.citeview") and is_address("pg:team/qa")
    for bad, says in (("pg:team", "pg:SERVICE/PROJECT"),
                      ("postgresql://db/qa", "name one project"),
                      ("postgresql://db/qa?project=a&project=b", "name one project"),
                      ("postgresql://db/qa?project=bad name", "letters, digits")):
        with pytest.raises(SessionError, match=says):
            parse_address(bad)


@given(user=names, password=st.text(alphabet="abcXYZ019!$%*()", min_size=3), project=names,
       in_query=st.booleans())
def test_a_password_in_an_address_is_refused_and_never_repeated(
        user: str, password: str, project: str, in_query: bool) -> None:
    from urllib.parse import quote

    secret = "S3" + password
    text = (f"postgresql://{user}@db/qa?password={quote(secret)}&project={project}" if in_query
            else f"postgresql://{user}:{quote(secret)}@db/qa?project={project}")
    with pytest.raises(SessionError) as err:
        parse_address(text)
    assert quote(secret) not in str(err.value) and "~/.pgpass" in str(err.value)


@given(project=names, other=names, service=st.booleans())
def test_another_project_on_the_same_server_keeps_its_connection(
        project: str, other: str, service: bool) -> None:
    text = (f"pg:svc/{project}" if service
            else f"postgresql://u@h/db?sslmode=require&project={project}")
    moved = parse_address(with_project(parse_address(text), other))
    assert moved.project == other and moved.conninfo == parse_address(text).conninfo


def test_a_project_of_a_newer_citeview_opens_read_only_with_a_message(pg: Any) -> None:
    import psycopg

    from citeview.session.pg import PgBackend
    from citeview.session.pg.schema import SCHEMA_VERSION

    PgBackend().create_file(pg.address("newer"), [Case("c", "Claim.")])
    with psycopg.connect(pg.conninfo(), autocommit=True) as admin:
        admin.execute("UPDATE citeview.version SET version = %s", (SCHEMA_VERSION + 1,))
        try:
            with PgBackend().open(pg.address("newer")) as s:
                assert s.readonly and "newer citeview" in (s.message or "")
                assert s.case_ids() == ["c"]
                with pytest.raises(ReadOnlySession, match="newer citeview"):
                    s.set_blind(True)
        finally:
            admin.execute("UPDATE citeview.version SET version = %s", (SCHEMA_VERSION,))


def test_a_reviewer_hears_the_leads_adjudications_settings_and_new_cases(pg: Any) -> None:
    from citeview.session.events import AnnotationChanged, CasesAdded, MetaChanged
    from citeview.session.merge import ADJUDICATED
    from citeview.session.model import Annotation, AnnotationKey
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member

    address = pg.address("heard")
    PgBackend().create_file(address, [Case("c1", "Claim.")])
    add_member(address, "ana")
    add_member(address, "lee", "lead")
    with PgBackend().open(pg.address("heard", user="ana")) as ana, \
            PgBackend().open(pg.address("heard", user="lee")) as lead:
        seen: list[object] = []
        ana.subscribe(seen.append)
        assert ana.poll() == []  # listening from now on
        own = AnnotationKey("c1", 1, "x", "y")
        ana.put_annotation(Annotation(own, "ana", "supported"))
        lead.put_annotation(Annotation(own, ADJUDICATED, "unsupported"))
        lead.set_labels(["yes", "no"])
        lead.add_cases([Case("c2", "More."), Case("c3", "Again.")])
        heard = ana.poll(timeout=2.0)
        while len(heard) < 3:
            more = ana.poll(timeout=2.0)
            assert more, heard
            heard += more
        assert heard[:3] == [AnnotationChanged("c1"), MetaChanged(), CasesAdded()]
        assert seen[-3:] == heard[:3]  # the subscribers were told too
        assert ana.labels == ("yes", "no") and ana.case_ids() == ["c1", "c2", "c3"]
        assert ana.annotation(own, ADJUDICATED).verdict == "unsupported"  # type: ignore[union-attr]


def test_without_postgresql_the_team_tests_skip_but_fail_when_it_is_required(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.pg_cluster import missing

    monkeypatch.delenv("CITEVIEW_REQUIRE_POSTGRES", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no initdb"):
        missing("no initdb")
    monkeypatch.setenv("CITEVIEW_REQUIRE_POSTGRES", "1")
    with pytest.raises(pytest.fail.Exception, match="CITEVIEW_REQUIRE_POSTGRES=1 but no initdb"):
        missing("no initdb")


def test_a_server_at_the_previous_schema_is_migrated_with_its_verdicts_in_place(pg: Any) -> None:
    """A database citeview installed at schema 1 (before issue 30), holding a project with a
    verdict and a review as that citeview wrote them: an annotator (who may not migrate it)
    reads it read-only; the admin opening it migrates it to the current schema (reasons,
    evidence, corrections), the verdict and review as they were, and the annotator then writes
    evidence and corrections under the new tables' rules."""
    import psycopg
    from psycopg import sql

    from citeview.core.corrections import Correction, CorrectionKind
    from citeview.session.jsonio import dumps_json
    from citeview.session.model import AnnotationKey, Evidence, ReviewState
    from citeview.session.pg import PgBackend
    from citeview.session.pg.schema import MIGRATION_1, SCHEMA_VERSION, server_version
    from tests.pg_cluster import DATABASE

    assert SCHEMA_VERSION == 2
    raw = "\ue200cite\ue202turn0file0\ue201"
    case = Case("c1", f"Claim. {raw}", {"turn0file0": "Source."})
    key = AnnotationKey("c1", 1, raw, "turn0file0")
    with psycopg.connect(pg.conninfo(database="postgres"), autocommit=True) as admin:
        admin.execute("CREATE DATABASE citeview_v1")
    try:
        with psycopg.connect(pg.conninfo(database="citeview_v1"), autocommit=True) as conn:
            with conn.transaction():
                for statement in MIGRATION_1:
                    conn.execute(sql.SQL(statement))  # type: ignore[arg-type]
                conn.execute("INSERT INTO citeview.version (one, version) VALUES (true, 1)")
            conn.execute("SELECT citeview.create_project('old', %s, false, NULL, 600, false)",
                         (dumps_json({"name": "old", "labels": ["supported", "unsupported"]}),))
            conn.execute("INSERT INTO citeview.cases (project, pos, id, data) VALUES "
                         "('old', 0, 'c1', %s)", (dumps_json(case.to_dict()),))
            conn.execute("INSERT INTO citeview.annotations (project, case_id, number, raw, "
                         "source_id, annotator, verdict, note, timestamp) VALUES ('old', 'c1', "
                         "1, %s, 'turn0file0', 'ana', 'unsupported', 'kept', 't1')", (raw,))
            conn.execute("INSERT INTO citeview.reviews (project, case_id, annotator, state, "
                         "verdict) VALUES ('old', 'c1', 'ana', 'done', 'unsupported')")
            assert server_version(conn) == 1
            assert conn.execute("SELECT to_regclass('citeview.evidence')").fetchone() == (None,)
            # ana, an annotator of it (roles are the cluster's: made unless another test did)
            if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = 'ana'").fetchone() is None:
                conn.execute("CREATE ROLE ana LOGIN")
            conn.execute("GRANT citeview_annotator TO ana")
            conn.execute("INSERT INTO citeview.members VALUES ('old', 'ana', 'annotator')")
        address = pg.address("old").replace(f"/{DATABASE}?", "/citeview_v1?")
        as_ana = address.replace("citeview_admin@", "ana@")
        # an annotator may not migrate it: read-only with a message, the verdicts readable
        with PgBackend().open(as_ana) as s:
            assert s.readonly and "older" in (s.message or "")
            got = s.annotation(key, "ana")
            assert got is not None and (got.verdict, got.reasons) == ("unsupported", ())
            assert s.evidence() == [] and s.corrections() == []
            assert [a.note for a in s.annotations()] == ["kept"]
            assert server_version(s.conn) == 1
        with PgBackend().open(address) as s:
            assert not s.readonly and s.message is None
            got = s.annotation(key, "ana")
            assert got is not None and (got.verdict, got.note, got.timestamp, got.reasons) == (
                "unsupported", "kept", "t1", ())
            assert s.review("c1", "ana").state is ReviewState.DONE
            assert s.labels == ("supported", "unsupported")
            assert server_version(s.conn) == SCHEMA_VERSION
        ev = Evidence(key, "ana", "e1", 0, 3, 1, 1, "Sou")
        fix = Correction("k1", "c1", "ana", CorrectionKind.REMOVE, 1, raw)
        with PgBackend().open(as_ana) as ana:
            ana.put_evidence(ev)
            ana.put_correction(fix)
            with pytest.raises(SessionError, match="refused by the server"):
                ana.put_evidence(Evidence(key, "bob", "e2", 0, 3))
            assert ana.evidence() == [ev] and ana.corrections() == [fix]
        with psycopg.connect(pg.conninfo(database="citeview_v1")) as conn:
            tables = conn.execute(
                "SELECT c.relname, pg_get_userbyid(c.relowner), c.relforcerowsecurity FROM "
                "pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = "
                "'citeview' AND c.relname IN ('evidence', 'corrections') ORDER BY 1").fetchall()
            assert tables == [("corrections", "citeview_owner", True),
                              ("evidence", "citeview_owner", True)]
    finally:
        with psycopg.connect(pg.conninfo(database="postgres"), autocommit=True) as admin:
            admin.execute("DROP DATABASE citeview_v1 WITH (FORCE)")


def test_a_reviewer_hears_evidence_and_corrections_made_elsewhere(pg: Any) -> None:
    from citeview.core.corrections import Correction, CorrectionKind
    from citeview.session.events import CorrectionChanged, EvidenceChanged
    from citeview.session.model import AnnotationKey, Evidence
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member

    address = pg.address("heardmarks")
    PgBackend().create_file(address, [Case("c1", "Claim.")])
    add_member(address, "ana")
    add_member(address, "lee", "lead")
    key = AnnotationKey("c1", 1, "x", "y")
    with PgBackend().open(pg.address("heardmarks", user="ana")) as ana, \
            PgBackend().open(pg.address("heardmarks", user="lee")) as lead:
        seen: list[object] = []
        ana.subscribe(seen.append)
        assert ana.poll() == []
        lead.put_evidence(Evidence(key, "lee", "e1", 0, 2, text="Cl"))
        lead.put_correction(Correction("k1", "c1", "lee", CorrectionKind.REMOVE, 1, "x"))
        heard = ana.poll(timeout=2.0)
        while len(heard) < 2:
            more = ana.poll(timeout=2.0)
            assert more, heard
            heard += more
        assert heard[:2] == [EvidenceChanged("c1"), CorrectionChanged("c1")]
        assert seen[-2:] == heard[:2]
        assert [e.id for e in ana.evidence()] == ["e1"]


def test_a_case_read_from_a_server_gone_away_says_unreachable_not_a_bad_case(pg: Any) -> None:
    import psycopg

    from citeview.session.errors import ServerUnreachable
    from citeview.session.pg import PgBackend
    from citeview.session.pg import ServerUnreachable as PgServerUnreachable

    assert PgServerUnreachable is ServerUnreachable  # one class for the outbox to wait on
    PgBackend().create_file(pg.address("gone"), [Case("c", "Claim."), Case("d", "Claim.")])
    with PgBackend().open(pg.address("gone")) as s:
        with psycopg.connect(pg.conninfo(), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (s.conn.info.backend_pid,))
        with pytest.raises(ServerUnreachable, match="cannot be reached"):
            s.get_case("d")


def test_a_write_the_server_cannot_take_is_refused_whole_and_says_why(pg: Any) -> None:
    """A write is sent in one go (pipeline mode): what used to be asked about first (a missing
    case, an annotation already at the key) now aborts it, with the same one-line reason, and
    nothing of it is kept (its op id neither: the same write may be corrected and sent)."""
    import uuid

    from citeview.session.model import Annotation, AnnotationKey, CaseReview, ReviewState
    from citeview.session.pg import PgBackend
    from citeview.session.protocol import RowChange

    PgBackend().create_file(pg.address("refuse"), [Case("c", "Claim.")])
    key = AnnotationKey("c", 1, "a", "s")
    with PgBackend().open(pg.address("refuse"), annotator="ana") as s:
        review = CaseReview("c", "ana", ReviewState.DONE)
        op = str(uuid.uuid4())
        with pytest.raises(SessionError, match="no case 'nope'"):
            s.send([RowChange("review", "c", "ana", None, False, review),
                    RowChange("review", "nope", "ana", None, False, None)], op_id=op)
        assert not s.applied(op) and s.review("c", "ana").state is ReviewState.NOT_STARTED
        s.put_annotation(Annotation(key, "ana", "supported"))
        placed = Annotation(key, "ana", "unsupported")
        with pytest.raises(SessionError, match="the annotation exists"):
            # (an orphaned row's change holding a placed annotation where one is placed)
            s.send([RowChange("review", "c", "ana", None, False, review),
                    RowChange("annotation", "c", "ana", key, True, placed)])
        assert s.review("c", "ana").state is ReviewState.NOT_STARTED
        assert [a.verdict for a in s.annotations("c")] == ["supported"]
        assert s.send([RowChange("review", "c", "ana", None, False, review)], op_id=op)
        assert s.review("c", "ana").state is ReviewState.DONE

"""Security decided by the PostgreSQL server (issue 29), on a throwaway cluster: an annotator
connected with raw SQL as their own role cannot change another annotator's verdicts, notes,
reviews, evidence spans or corrections (issue 30), nor (in a blind project) read them; a lead
reads everything and adjudicates; the tables belong to a role nobody logs in as and row-level
security is forced."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from citeview.core.cases import Case
from citeview.core.corrections import Correction, CorrectionKind
from citeview.session.errors import SessionError
from citeview.session.merge import ADJUDICATED
from citeview.session.model import Annotation, AnnotationKey, CaseReview, Evidence, ReviewState

KEY = AnnotationKey("c1", 1, "\ue200cite\ue202turn0file0\ue201", "turn0file0")
CASES = [Case("c1", "Claim. \ue200cite\ue202turn0file0\ue201", {"turn0file0": "Source."}),
         Case("c2", "Other.")]


def project(pg: Any, name: str, *, blind: bool) -> str:
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member

    address = pg.address(name)
    PgBackend().create_file(address, CASES, blind=blind)
    add_member(address, "ana")
    add_member(address, "bob")
    add_member(address, "lee", "lead")
    return address


def as_role(pg: Any, name: str, role: str) -> str:
    return str(pg.address(name, user=role))


@pytest.fixture
def raw(pg: Any) -> Iterator[Any]:
    """Raw SQL connections as a role (autocommit), closed after the test."""
    import psycopg

    opened: list[Any] = []

    def connect(role: str) -> Any:
        conn = psycopg.connect(pg.conninfo(user=role), autocommit=True)
        opened.append(conn)
        return conn
    yield connect
    for conn in opened:
        conn.close()


def write_both(pg: Any, name: str) -> None:
    from citeview.session.pg import PgBackend

    for who, verdict in (("ana", "supported"), ("bob", "unsupported")):
        with PgBackend().open(as_role(pg, name, who)) as s:
            assert s.annotator == who
            s.put_annotation(Annotation(KEY, who, verdict, f"{who}'s note"))
            s.put_review(CaseReview("c1", who, ReviewState.DONE, verdict, f"{who} done"))


def test_an_annotator_cannot_change_another_annotators_rows(pg: Any, raw: Any) -> None:
    import psycopg

    address = project(pg, "open", blind=False)
    write_both(pg, "open")
    ana = raw("ana")
    for table in ("annotations", "reviews"):
        # bob's rows are readable (not blind) but not changeable: no row is touched
        assert ana.execute(f"SELECT count(*) FROM citeview.{table} WHERE annotator = 'bob'"
                           ).fetchone()[0] == 1
        cur = ana.execute(f"UPDATE citeview.{table} SET verdict = 'supported', note = 'forged' "
                          "WHERE annotator = 'bob'")
        assert cur.rowcount == 0
        assert ana.execute(f"DELETE FROM citeview.{table} WHERE annotator = 'bob'").rowcount == 0
        # and an own row cannot be handed to bob
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            ana.execute(f"UPDATE citeview.{table} SET annotator = 'bob' WHERE annotator = 'ana'")
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        ana.execute("INSERT INTO citeview.annotations (project, case_id, number, raw, "
                    "source_id, annotator, verdict) VALUES ('open', 'c2', 1, 'x', 'y', 'bob', "
                    "'supported')")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        ana.execute("UPDATE citeview.projects SET blind = false")  # settings are the lead's
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        ana.execute("DELETE FROM citeview.cases")
    # bob's verdict, note and review are as bob left them
    from citeview.session.pg import PgBackend

    with PgBackend().open(address, readonly=True) as admin:
        got = admin.annotation(KEY, "bob")
        assert got is not None and (got.verdict, got.note) == ("unsupported", "bob's note")
        assert admin.review("c1", "bob").note == "bob done"
        assert {a.annotator for a in admin.annotations()} == {"ana", "bob"}
    # through citeview: the server refuses a row in another's name, nothing of it is kept
    with PgBackend().open(as_role(pg, "open", "ana")) as s:
        with pytest.raises(SessionError, match="refused by the server"):
            s.put_annotation(Annotation(KEY, "bob", "supported"))
        s.annotator = "bob"  # a plain annotator writes as their own role whatever they ask
        assert s.annotator == "ana"
        assert s.annotation(KEY, "bob").verdict == "unsupported"  # type: ignore[union-attr]


def test_a_blind_project_hides_other_annotators_verdicts_but_not_from_the_lead(
        pg: Any, raw: Any) -> None:
    from citeview.session.pg import PgBackend

    project(pg, "blind", blind=True)
    write_both(pg, "blind")
    ana = raw("ana")
    assert ana.execute("SELECT annotator, verdict FROM citeview.annotations").fetchall() == [
        ("ana", "supported")]
    assert ana.execute("SELECT count(*) FROM citeview.reviews WHERE annotator = 'bob'"
                       ).fetchone()[0] == 0
    with PgBackend().open(as_role(pg, "blind", "ana"), readonly=True) as s:
        assert [a.annotator for a in s.annotations()] == ["ana"]
        assert s.annotation(KEY, "bob") is None
    # the lead reads everything and adjudicates; annotators cannot write the adjudication
    with PgBackend().open(as_role(pg, "blind", "lee")) as lead:
        assert {a.annotator for a in lead.annotations()} == {"ana", "bob"}
        lead.put_annotation(Annotation(KEY, ADJUDICATED, "supported", "lead decides"))
        assert lead.annotation(KEY, ADJUDICATED).verdict == "supported"  # type: ignore[union-attr]
    import psycopg

    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        ana.execute("INSERT INTO citeview.annotations (project, case_id, number, raw, "
                    "source_id, annotator, verdict) VALUES ('blind', 'c2', 1, 'x', 'y', "
                    "%s, 'unsupported')", (ADJUDICATED,))
    # switching blind off is the lead's: then ana sees bob's verdicts
    with PgBackend().open(as_role(pg, "blind", "lee")) as lead:
        lead.set_blind(False)
    assert ana.execute("SELECT count(*) FROM citeview.annotations WHERE annotator = 'bob'"
                       ).fetchone()[0] == 1


def test_a_non_member_sees_no_project_and_the_tables_belong_to_a_role_nobody_logs_in_as(
        pg: Any, raw: Any) -> None:
    import psycopg

    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member

    project(pg, "p1", blind=False)
    write_both(pg, "p1")
    PgBackend().create_file(pg.address("p2"), CASES)
    add_member(pg.address("p2"), "cat")
    cat = raw("cat")
    assert cat.execute("SELECT count(*) FROM citeview.annotations").fetchone()[0] == 0
    assert cat.execute("SELECT name FROM citeview.projects").fetchall() == [("p2",)]
    with pytest.raises(SessionError, match="no such project"):
        PgBackend().open(as_role(pg, "p1", "cat"))
    # nor can it take (or renew) cases of a project it is not a member of
    for call in ("SELECT * FROM citeview.next_cases('p1', 'cat', 1)",
                 "SELECT citeview.renew_leases('p1', 'cat')",
                 "SELECT * FROM citeview.next_cases('p2', 'ana', 1)"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="may not"):
            cat.execute(call)
    assert [r[0] for r in cat.execute("SELECT * FROM citeview.next_cases('p2', 'cat', 2)")] == [
        "c1", "c2"]
    admin = raw("citeview_admin")
    tables = admin.execute("SELECT c.relname, pg_get_userbyid(c.relowner), c.relrowsecurity, "
                           "c.relforcerowsecurity FROM pg_class c JOIN pg_namespace n ON "
                           "n.oid = c.relnamespace WHERE n.nspname = 'citeview' AND "
                           "c.relkind = 'r'").fetchall()
    assert len(tables) == 12  # migration 2 added evidence and corrections, under the same rules
    assert {"evidence", "corrections"} <= {t[0] for t in tables}
    assert all(owner == "citeview_owner" and rls and forced for _n, owner, rls, forced in tables)
    assert admin.execute("SELECT rolcanlogin FROM pg_roles WHERE rolname = 'citeview_owner'"
                         ).fetchone()[0] is False
    assert admin.execute("SELECT pg_has_role('ana', 'citeview_annotator', 'MEMBER'), "
                         "pg_has_role('lee', 'citeview_lead', 'MEMBER')").fetchone() == (True,
                                                                                         True)


def test_a_write_sent_twice_is_stored_once(pg: Any) -> None:
    import uuid

    from citeview.session.pg import PgBackend
    from citeview.session.protocol import RowChange

    project(pg, "ops", blind=False)
    seen: list[object] = []
    with PgBackend().open(as_role(pg, "ops", "ana")) as s:
        s.subscribe(seen.append)
        op = str(uuid.uuid4())
        first = Annotation(KEY, "ana", "supported", "n1")
        change = RowChange("annotation", "c1", "ana", KEY, False, first, op_id=op)
        assert s.send([change]) is True
        assert s.applied(op)
        # the replay of the same write (an outbox that never heard the commit) changes nothing
        assert s.send([change]) is False
        s.put_annotation(Annotation(KEY, "ana", "unsupported"), op_id=op)
        assert s.annotation(KEY).verdict == "supported"  # type: ignore[union-attr]
        assert len(s.annotations()) == 1 and len(seen) == 1
        assert not s.applied(str(uuid.uuid4()))
        with pytest.raises(SessionError, match="not a UUID"):
            s.put_annotation(Annotation(KEY, "ana", "unsupported"), op_id="op-1")


# ---------------------------------------------------------------- issue 30's rows on the server


def marks_of(who: str) -> tuple[Evidence, Correction]:
    return (Evidence(KEY, who, f"e-{who}", 0, 3, 1, 1, "Sou", "2026-12-02T00:00:00Z"),
            Correction(f"k-{who}", "c1", who, CorrectionKind.REMOVE, 1, KEY.anchor,
                       timestamp="2026-12-02T00:00:00Z"))


def mark_both(pg: Any, name: str) -> None:
    from citeview.session.pg import PgBackend

    for who in ("ana", "bob"):
        ev, fix = marks_of(who)
        with PgBackend().open(as_role(pg, name, who)) as s:
            s.put_evidence(ev)
            s.put_correction(fix)


def test_an_annotator_cannot_change_another_annotators_evidence_or_corrections(
        pg: Any, raw: Any) -> None:
    import psycopg

    from citeview.session.pg import PgBackend

    address = project(pg, "marks", blind=False)
    mark_both(pg, "marks")
    ana = raw("ana")
    for table, column in (("evidence", "text"), ("corrections", "data")):
        assert ana.execute(f"SELECT count(*) FROM citeview.{table} WHERE annotator = 'bob'"
                           ).fetchone()[0] == 1  # readable: the project is not blind
        assert ana.execute(f"UPDATE citeview.{table} SET {column} = 'forged' "
                           "WHERE annotator = 'bob'").rowcount == 0
        assert ana.execute(f"DELETE FROM citeview.{table} WHERE annotator = 'bob'"
                           ).rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            ana.execute(f"UPDATE citeview.{table} SET annotator = 'bob' WHERE annotator = 'ana'")
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        ana.execute("INSERT INTO citeview.evidence (project, id, case_id, number, raw, "
                    "source_id, annotator, start_offset, end_offset) VALUES ('marks', 'x', "
                    "'c1', 1, 'r', 's', 'bob', 0, 1)")
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        ana.execute("INSERT INTO citeview.corrections (project, id, case_id, annotator, data) "
                    "VALUES ('marks', 'x', 'c1', 'bob', '{}')")
    # through citeview: a row in bob's name is refused; deleting bob's span removes nothing
    bob_ev, bob_fix = marks_of("bob")
    with PgBackend().open(as_role(pg, "marks", "ana")) as s:
        with pytest.raises(SessionError, match="refused by the server"):
            s.put_evidence(replace(bob_ev, id="e-new"))
        with pytest.raises(SessionError, match="refused by the server"):
            s.put_correction(replace(bob_fix, id="k-new"))
        s.delete_evidence(bob_ev)
        s.delete_correction(bob_fix)
    with PgBackend().open(address, readonly=True) as admin:
        assert admin.evidence(annotator="bob") == [bob_ev]
        assert admin.corrections(annotator="bob") == [bob_fix]
        assert {e.annotator for e in admin.evidence()} == {"ana", "bob"}


def test_a_blind_project_hides_other_annotators_evidence_and_corrections_but_not_from_the_lead(
        pg: Any, raw: Any) -> None:
    from citeview.session.pg import PgBackend

    project(pg, "blindmarks", blind=True)
    mark_both(pg, "blindmarks")
    ana = raw("ana")
    assert ana.execute("SELECT annotator, text FROM citeview.evidence").fetchall() == [
        ("ana", "Sou")]
    assert ana.execute("SELECT annotator FROM citeview.corrections").fetchall() == [("ana",)]
    with PgBackend().open(as_role(pg, "blindmarks", "ana"), readonly=True) as s:
        assert s.evidence() == [marks_of("ana")[0]] and s.evidence(annotator="bob") == []
        assert s.corrections() == [marks_of("ana")[1]]
    with PgBackend().open(as_role(pg, "blindmarks", "lee")) as lead:
        assert [e.annotator for e in lead.evidence()] == ["ana", "bob"]
        assert [c.annotator for c in lead.corrections()] == ["ana", "bob"]
        lead.delete_evidence(marks_of("bob")[0])  # a lead may change anyone's
        assert [e.annotator for e in lead.evidence()] == ["ana"]


def test_evidence_and_corrections_sent_twice_are_stored_once(pg: Any) -> None:
    import uuid

    from citeview.session.pg import PgBackend
    from citeview.session.protocol import RowChange

    project(pg, "markops", blind=False)
    ev, fix = marks_of("ana")
    seen: list[object] = []
    with PgBackend().open(as_role(pg, "markops", "ana")) as s:
        s.subscribe(seen.append)
        op = str(uuid.uuid4())
        batch = [RowChange("evidence", "c1", "ana", KEY, False, ev, ev.id),
                 RowChange("correction", "c1", "ana", None, False, fix, fix.id)]
        assert s.send(batch, op_id=op) is True and s.applied(op)
        assert s.send(batch, op_id=op) is False  # the outbox's replay
        s.delete_evidence(ev, op_id=op)  # another write under a used op id: not applied
        s.delete_correction(fix, op_id=op)
        assert s.evidence() == [ev] and s.corrections() == [fix]
        assert len(seen) == 2  # the first send's two events, nothing for the replays
        stored = s.conn.execute("SELECT count(DISTINCT op_id), min(op_id::text) FROM "
                                "(SELECT op_id FROM citeview.evidence UNION ALL "
                                "SELECT op_id FROM citeview.corrections) x").fetchone()
        assert stored == (1, op)

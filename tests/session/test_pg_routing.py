"""Routing on the server (issue 29), on a throwaway cluster: full overlap, none, exactly N per
case; nobody gets a case twice; leases renewed while a window is open, a dead client's lease
expires and its case goes to someone else; a verdict on a lease handed on meanwhile is kept,
flagged late, not counted; resume lands where the reviewer stopped; 8 reviewer processes over
300 cases with exactly 2 reviewers each."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from citeview.core.cases import Case
from citeview.session.model import Annotation, AnnotationKey
from tests.session.conftest import mark_done as done

REVIEWER = str(Path(__file__).with_name("_pg_reviewer.py"))
ROOT = str(Path(__file__).parents[2])


def make(pg: Any, name: str, n: int, overlap: int | None, reviewers: list[str], *,
         lease: int = 600) -> str:
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member

    address = pg.address(name)
    PgBackend().create_file(address, [Case(f"c{i:03}", "Claim.") for i in range(n)],
                            overlap=overlap, lease_seconds=lease)
    for who in reviewers:
        add_member(address, who)
    return str(address)


def open_as(pg: Any, name: str, role: str) -> Any:
    from citeview.session.pg import PgBackend

    return PgBackend().open(pg.address(name, user=role))


def drain(session: Any) -> list[str]:
    got: list[str] = []
    while held := session.next_cases(1):
        got.append(held[0])
        done(session, held[0])
    return got


def test_full_overlap_gives_everyone_every_case_and_none_splits_them(pg: Any) -> None:
    make(pg, "full", 5, None, ["r1", "r2"])
    with open_as(pg, "full", "r1") as a, open_as(pg, "full", "r2") as b:
        assert drain(a) == drain(b) == [f"c{i:03}" for i in range(5)]
    make(pg, "none", 6, 1, ["r1", "r2"])
    with open_as(pg, "none", "r1") as a, open_as(pg, "none", "r2") as b:
        got_a, got_b = a.next_cases(2), b.next_cases(2)
        assert got_a == ["c000", "c001"] and got_b == ["c002", "c003"]  # K handed out ahead
        rest = drain(a) + drain(b)
        assert sorted(rest) == [f"c{i:03}" for i in range(6)]  # each once, nobody twice
        assert not set(drain(a)) and not set(drain(b))


def test_resume_lands_where_the_reviewer_stopped_and_leases_are_renewed(pg: Any) -> None:
    make(pg, "resume", 4, 2, ["r1"], lease=30)
    with open_as(pg, "resume", "r1") as s:
        first = s.next_cases(1)
        done(s, first[0])
        held = s.next_cases(1)
        assert held == ["c001"]
    with open_as(pg, "resume", "r1") as s:  # a new window: the case held, then onwards
        assert s.next_cases(1) == ["c001"]
        before = s.conn.execute("SELECT lease_until FROM citeview.assignments WHERE "
                                "reviewer = 'r1' AND state = 'leased'").fetchone()[0]
        time.sleep(0.05)
        assert s.renew_leases() == 1
        after = s.conn.execute("SELECT lease_until FROM citeview.assignments WHERE "
                               "reviewer = 'r1' AND state = 'leased'").fetchone()[0]
        assert after > before


def test_a_dead_clients_lease_expires_and_a_late_verdict_is_kept_but_not_counted(
        pg: Any) -> None:
    address = make(pg, "lease", 2, 1, ["r1", "r2"])
    with subprocess.Popen([sys.executable, REVIEWER, pg.address("lease", user="r1"), "hold"],
                          stdout=subprocess.PIPE, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": ROOT}) as child:
        try:
            assert child.stdout is not None
            assert child.stdout.readline().split() == ["holding", "c000"]
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
    with open_as(pg, "lease", "r2") as r2:
        assert r2.next_cases(1) == ["c001"]  # c000 is still r1's lease: not handed on yet
        done(r2, "c001")
        assert r2.next_cases(1) == []
        # r1 is dead and renews nothing: its lease runs out (the clock moved on by the lease)
        import psycopg

        with psycopg.connect(pg.conninfo(), autocommit=True) as admin:
            admin.execute("UPDATE citeview.assignments SET lease_until = now() - "
                          "interval '1 second' WHERE reviewer = 'r1'")
        assert r2.next_cases(1) == ["c000"]
    from citeview.session.pg import PgBackend

    # r1 comes back and sends its verdict on the case handed on meanwhile: kept, flagged late
    with open_as(pg, "lease", "r1") as r1:
        key = AnnotationKey("c000", 1, "x", "y")
        r1.put_annotation(Annotation(key, "r1", "supported"))
        done(r1, "c000")
        assert r1.next_cases(1) == []  # never the same case again; the other is r2's
        assert r1.annotation(key) is not None
    with PgBackend().open(address, readonly=True) as admin:
        late = admin.conn.execute("SELECT annotator, late FROM citeview.reviews WHERE "
                                  "case_id = 'c000' ORDER BY annotator").fetchall()
        assert late == [("r1", True)]
        assert admin.conn.execute("SELECT late FROM citeview.annotations").fetchone()[0] is True
        states = dict(admin.conn.execute("SELECT reviewer, state FROM citeview.assignments "
                                         "WHERE case_id = 'c000'").fetchall())
        assert states == {"r1": "expired", "r2": "leased"}  # only r2 counts toward N
        assert admin.conn.execute("SELECT active FROM citeview.cases WHERE id = 'c000'"
                                  ).fetchone()[0] == 1


def test_a_review_of_a_case_never_handed_out_is_kept_but_not_counted(pg: Any) -> None:
    """In a project routed to N reviewers an annotator who goes to a case they were not handed
    (it may have its N already) is not the N + 1st: their rows are kept, flagged late."""
    from citeview.session.merge import ADJUDICATED
    from citeview.session.pg.team import add_member

    address = make(pg, "unasked", 2, 1, ["r1", "r2"])
    add_member(address, "lee", "lead")
    with open_as(pg, "unasked", "r1") as r1, open_as(pg, "unasked", "r2") as r2, \
            open_as(pg, "unasked", "lee") as lead:
        assert r1.next_cases(1) == ["c000"]
        done(r1, "c000")
        done(r2, "c000")  # never handed c000
        key = AnnotationKey("c000", 1, "x", "y")
        lead.put_annotation(Annotation(key, ADJUDICATED, "supported"))  # a lead's always count
        rows = dict(lead.conn.execute("SELECT annotator, late FROM citeview.reviews").fetchall())
        assert rows == {"r1": False, "r2": True}
        assert lead.conn.execute("SELECT late FROM citeview.annotations").fetchone()[0] is False
        assert r2.next_cases(1) == ["c001"]  # c000 has its one reviewer


def test_eight_reviewer_processes_300_cases_exactly_two_each(pg: Any) -> None:
    from citeview.session.pg import PgBackend

    names = [f"rev{i}" for i in range(8)]
    address = make(pg, "busy", 300, 2, names)
    children = [subprocess.Popen([sys.executable, REVIEWER, pg.address("busy", user=who),
                                  "drain"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT})
                for who in names]
    took: dict[str, list[str]] = {}
    for who, child in zip(names, children, strict=True):
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        lines = out.split("\n")
        assert "finished" in lines
        took[who] = [line.split()[1] for line in lines if line.startswith("took ")]
    per_case = Counter(c for cases in took.values() for c in cases)
    assert len(per_case) == 300 and set(per_case.values()) == {2}  # none with 1, none with 3
    assert all(len(cases) == len(set(cases)) for cases in took.values())  # nobody twice
    assert sum(1 for cases in took.values() if cases) >= 2
    with PgBackend().open(address, readonly=True) as admin:
        rows = admin.conn.execute("SELECT case_id, count(DISTINCT annotator), count(*) FROM "
                                  "citeview.reviews WHERE state = 'done' GROUP BY case_id"
                                  ).fetchall()
        assert len(rows) == 300 and all(n == 2 and m == 2 for _c, n, m in rows)
        assert admin.conn.execute("SELECT count(*) FROM citeview.assignments WHERE "
                                  "state <> 'done'").fetchone()[0] == 0

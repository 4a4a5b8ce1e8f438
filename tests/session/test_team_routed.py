"""A reviewer's own cases in a routed project (issue 29), against the throwaway cluster: the
list is what the server handed them, and it keeps working while the server is stopped (the
cases already handed out are in the outbox), also after a start with the server away; the next
hand-out waits for the server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from citeview.core.cases import Case
from citeview.session.model import CaseReview, ReviewState
from citeview.session.routed import RoutedStore
from tests.session.conftest import mark_done as done


def test_a_routed_reviewer_keeps_working_on_the_handed_out_cases_while_the_server_is_away(
        pg: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from citeview.session.outbox import OutboxStore
    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member
    from citeview.session.team_client import open_team_project

    monkeypatch.setenv("CITEVIEW_DATA_DIR", str(tmp_path / "data"))
    address = pg.address("away")
    PgBackend().create_file(address, [Case(f"c{i:03}", f"Claim {i}.") for i in range(6)],
                            overlap=1)
    add_member(address, "ana")
    mine = pg.address("away", user="ana")
    store = open_team_project(mine)
    assert isinstance(store, RoutedStore)
    assert store.case_ids() == ["c000", "c001", "c002"]
    done(store, "c000")
    assert store.take_next() == "c001"
    pg.stop("immediate")
    try:
        done(store, "c001")  # waits in the outbox
        assert not store.online and store.waiting == 1
        assert store.case_ids() == ["c000", "c001", "c002"]
        assert store.get_case("c002").id == "c002"  # fetched when it was handed out
        assert store.take_next() == "c002"
        done(store, "c002")
        assert store.take_next() is None and not store.exhausted  # no hand-out offline
        store.close()
        # A start while the server is away: the same list, from the outbox.
        again = open_team_project(mine, annotator="ana")
        assert isinstance(again, RoutedStore)
        assert again.case_ids() == ["c000", "c001", "c002"]
        assert again.first_not_done() is None
    finally:
        pg.start()
    assert again.retry() and again.waiting == 0
    assert again.take_next() == "c003"  # the server hands out the next one
    assert again.case_ids() == ["c000", "c001", "c002", "c003", "c004", "c005"]
    again.close()
    with PgBackend().open(address, readonly=True) as admin:
        assert sorted(r.case_id for r in admin.reviews()) == ["c000", "c001", "c002"]
    # A full-overlap project is not routed: every case, the plain outbox store.
    PgBackend().create_file(pg.address("every"), [Case("x", "X."), Case("y", "Y.")])
    add_member(pg.address("every"), "ana")
    with open_team_project(pg.address("every", user="ana")) as plain:
        assert type(plain) is OutboxStore and plain.case_ids() == ["x", "y"]


def test_a_case_whose_lease_expired_is_not_listed_again_unless_it_was_done(
        pg: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from citeview.session.pg import PgBackend
    from citeview.session.pg.team import add_member
    from citeview.session.team_client import open_team_project

    monkeypatch.setenv("CITEVIEW_DATA_DIR", str(tmp_path / "data"))
    address = pg.address("lapse")
    PgBackend().create_file(address, [Case(f"c{i:03}", f"Claim {i}.") for i in range(6)],
                            overlap=1, lease_seconds=1)
    for who in ("ana", "ben"):
        add_member(address, who)
    with open_team_project(pg.address("lapse", user="ana"), ahead=2) as ana:
        assert ana.case_ids() == ["c000", "c001"]
        done(ana, "c000")
        ana.put_review(CaseReview("c001", "ana", ReviewState.IN_PROGRESS))
    time.sleep(1.5)  # ana's window is gone: her lease of c001 lapses
    with open_team_project(pg.address("lapse", user="ben"), ahead=1) as ben:
        assert ben.case_ids() == ["c001"]  # back in the queue, handed on
    with open_team_project(pg.address("lapse", user="ana"), ahead=1) as ana:
        # Her done case stays for a look back; the one handed on is gone from her list.
        assert ana.case_ids() == ["c000", "c002"]

"""Issue 26: what a session reads does not grow with its case count. Where to resume (the
first case not done) and Go to Case's completions are answered from the SQLite indexes: the
work SQLite does (its virtual machine steps, counted by a progress handler) is the same for a
session of 3,000 cases as for one of 100."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from citeview.core.inputs import load_input
from citeview.session.model import CaseReview, ReviewState
from citeview.session.store import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from million_data import write_dataset  # noqa: E402


def steps(conn: sqlite3.Connection, call: Callable[[], object]) -> tuple[object, int]:
    """What ``call`` returns and how many virtual machine steps SQLite ran for it."""
    count = [0]

    def tick() -> int:
        count[0] += 1
        return 0

    conn.set_progress_handler(tick, 1)
    try:
        return call(), count[0]
    finally:
        conn.set_progress_handler(None, 1)


def session_of(tmp_path: Path, n: int) -> Session:
    data = write_dataset(tmp_path / f"d{n}.jsonl", n)
    s = Session.create(str(tmp_path / f"d{n}.citeview"), load_input(str(data)),
                       annotator="ann")
    for i in range(3):
        s.put_review(CaseReview(f"case-{i:07d}", "ann", ReviewState.DONE))
    return s


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Session]:
    tmp = tmp_path_factory.mktemp("million")
    made = {n: session_of(tmp, n) for n in (100, 3000)}
    yield made  # type: ignore[misc]
    for s in made.values():
        s.close()


def test_resuming_reads_up_to_the_first_case_not_done(sessions: dict[int, Session]) -> None:
    small, big = sessions[100], sessions[3000]
    found_small, work_small = steps(small.conn, small.first_not_done)
    found_big, work_big = steps(big.conn, big.first_not_done)
    assert found_small == found_big == 3  # the fourth case: the first three are done
    assert work_big < 2 * work_small + 50  # not a pass over 3,000 cases
    # Another annotator has done nothing: the first case.
    assert big.first_not_done("someone else") == 0


def test_go_to_case_completions_come_from_the_index(sessions: dict[int, Session]) -> None:
    small, big = sessions[100], sessions[3000]
    got_small, work_small = steps(small.conn, lambda: small.ids_starting("case-000005", 50))
    got_big, work_big = steps(big.conn, lambda: big.ids_starting("case-000005", 50))
    assert got_small == [f"case-{i:07d}" for i in range(50, 60)]
    assert got_big == got_small
    assert work_big < 2 * work_small + 50
    wide, _ = steps(big.conn, lambda: big.ids_starting("CASE-0002", 50))
    assert wide == [f"case-{i:07d}" for i in range(2000, 2050)]

"""Issue 26: a session's export rows and item counts worked out ahead in one pass (what the
window's background count does), resumable, and read by the export as it would make them."""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path

import pytest

from citeview.core.inputs import load_input
from citeview.session import Session, prefill
from citeview.session.rows import rows_key, stored_rows, write_jsonl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from million_data import write_dataset  # noqa: E402


@pytest.fixture
def made(tmp_path: Path) -> Path:
    path = tmp_path / "s.citeview"
    Session.create_file(str(path), load_input(str(write_dataset(tmp_path / "d.jsonl", 30))))
    return path


def exported(path: Path) -> str:
    out = io.StringIO()
    with Session.open(str(path), readonly=True) as s:
        write_jsonl(s, out, prefill.session_policy(s), jobs=1)
    return out.getvalue()


def test_the_pass_stores_rows_the_export_copies_and_counts_the_window_reads(
        made: Path, tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.citeview"
    shutil.copyfile(made, fresh)
    told: list[int] = []
    assert prefill.prefill(str(made), told=lambda sizes, done: told.append(done)) == 30
    assert told[-1] == 30
    with Session.open(str(made), readonly=True) as s:
        ids = s.case_ids()
        assert set(stored_rows(s, ids, rows_key(s, prefill.session_policy(s)))) == set(ids)
        assert s.sizes() == {cid: s.analysed(cid).item_counts for cid in ids}
    assert exported(made) == exported(fresh)  # copied rows: what the analysis makes
    assert prefill.prefill(str(made)) == 0  # nothing left to do


def test_a_pass_stopped_midway_goes_on_where_it_stopped(
        made: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prefill, "PIECE", 8)

    def stop(sizes: object, done: int) -> None:
        raise KeyboardInterrupt  # the window closed: the process ended

    with pytest.raises(KeyboardInterrupt):
        prefill.prefill(str(made), told=stop)
    assert prefill.prefill(str(made)) == 30 - 8  # the first piece was kept


def test_an_imported_big_session_gets_its_rows_worked_out_in_the_background(
        made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``citeview import`` of a big session returns at once; a process of its own stores every
    case's export rows, so the first export copies them."""
    import time

    from citeview.cli import main

    monkeypatch.setattr(prefill, "BACKGROUND_MIN_CASES", 10)  # 30 cases count as many here
    doc = tmp_path / "s.json"
    assert main(["export", str(made), "--format", "json", "-o", str(doc)]) == 0
    out = tmp_path / "imported.citeview"
    assert main(["import", str(doc), "-o", str(out)]) == 0
    assert "export rows in the background (process " in capsys.readouterr().err

    def stored() -> int:
        with Session.open(str(out), readonly=True) as s:
            return len(stored_rows(s, s.case_ids(), rows_key(s, prefill.session_policy(s))))

    deadline = time.monotonic() + 60
    while stored() < 30 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert stored() == 30
    assert exported(out) == exported(made)


def test_the_pass_in_two_processes_stores_what_one_stores(
        made: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A big session's pass works its pieces out in a process per CPU and stores them in order:
    the same rows and counts as one process, the count told piece by piece, in order."""
    monkeypatch.setattr(prefill, "PIECE", 4)
    one = tmp_path / "one.citeview"
    shutil.copyfile(made, one)
    told: list[int] = []
    assert prefill.prefill(str(made), jobs=2, told=lambda s, done: told.append(done)) == 30
    assert told == [*range(4, 30, 4), 30]
    assert prefill.prefill(str(one), jobs=1) == 30
    with Session.open(str(made), readonly=True) as two, Session.open(str(one),
                                                                     readonly=True) as s:
        key = rows_key(s, prefill.session_policy(s))
        assert stored_rows(two, two.case_ids(), key) == stored_rows(s, s.case_ids(), key)
        assert two.sizes() == s.sizes()
    assert exported(made) == exported(one)

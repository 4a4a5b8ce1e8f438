"""Issue 26: a session's export rows and item counts worked out ahead in one pass (what the
window's background count does), resumable, and read by the export as it would make them."""

from __future__ import annotations

import dataclasses
import io
import os
import shutil
import sys
import time
from pathlib import Path

import pytest

from citeview.core.inputs import load_input
from citeview.session import Session, prefill
from citeview.session.model import ReviewState
from citeview.session.rows import (
    PARALLEL_MIN_CASES,
    analysed_once,
    base_rows,
    rows_key,
    rows_text,
    stored_rows,
    write_jsonl,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from million_data import write_dataset  # noqa: E402

from tests.session.conftest import mark_done  # noqa: E402


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


def _group(pgid: int) -> list[int]:
    """The running (not zombie) processes of process group ``pgid``."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            found.append(int(name))
    return found


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """A session big enough for a pass in a process per CPU."""
    path = tmp_path / "big.citeview"
    data = write_dataset(tmp_path / "big.jsonl", PARALLEL_MIN_CASES)
    Session.create_file(str(path), load_input(str(data)))
    return path


needs_two_cpus = pytest.mark.skipif(
    not sys.platform.startswith("linux") or (os.cpu_count() or 1) < 2,
    reason="reads /proc; a pass in one process on one CPU")


@needs_two_cpus
@pytest.mark.slow
def test_stopping_the_window_s_pass_leaves_no_worker(big: Path) -> None:
    """The window closed (or the session changed) while the pass works in a process per CPU:
    the pass and every worker of it end, none waits on in the background."""
    fill = prefill.BackgroundFill(str(big))
    try:
        deadline = time.monotonic() + 60
        while (len(_group(fill.process.pid)) < 3 and fill.process.poll() is None
               and time.monotonic() < deadline):
            fill.poll()
            time.sleep(0.02)
        members = _group(fill.process.pid)
        assert len(members) >= 3 and not fill.complete  # the pass and its two workers, busy
    finally:
        fill.stop()
    deadline = time.monotonic() + 10
    while _group(fill.process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _group(fill.process.pid) == []
    assert fill.finished and not fill.complete
    assert prefill.prefill(str(big), jobs=1) > 0  # what it had not stored is worked out later


@needs_two_cpus
@pytest.mark.slow
def test_verdicts_written_while_the_pass_runs_are_all_kept(big: Path, tmp_path: Path) -> None:
    """The reviewer marks cases done while the pass stores rows in the same file: every mark is
    written at once (the pass holds the file's lock a piece at a time), the pass ends complete
    with its count told in order, and its rows are the export's."""
    fresh = tmp_path / "fresh.citeview"
    shutil.copyfile(big, fresh)
    marked: list[str] = []
    told: list[int] = []
    with Session.open(str(big), annotator="ann") as s:
        ids = s.case_ids()
        fill = prefill.BackgroundFill(str(big))
        try:
            deadline = time.monotonic() + 120
            for cid in ids[::5]:
                before = fill.done
                mark_done(s, cid)
                marked.append(cid)
                fill.poll()
                if fill.done != before:
                    told.append(fill.done)
                if fill.finished:
                    break
            while not fill.finished and time.monotonic() < deadline:
                before = fill.done
                fill.poll()
                if fill.done != before:
                    told.append(fill.done)
                time.sleep(0.02)
        finally:
            fill.stop()
        assert fill.complete and fill.done == len(ids)
        assert told == sorted(told) and len(marked) > 1
        assert {r.case_id for r in s.reviews() if r.state is ReviewState.DONE} == set(marked)
    prefill.prefill(str(big), jobs=1)  # a piece the reviewer's write kept out: stored now
    prefill.prefill(str(fresh), jobs=1)
    with Session.open(str(big), readonly=True) as a, Session.open(str(fresh),
                                                                  readonly=True) as b:
        key = rows_key(a, prefill.session_policy(a))
        assert stored_rows(a, ids, key) == stored_rows(b, ids, key)
        assert a.sizes() == b.sizes()


@needs_two_cpus
@pytest.mark.slow
def test_the_import_s_detached_pass_ends_with_its_workers(big: Path) -> None:
    """``citeview import``'s pass (nobody's child, in a group of its own) over a big session:
    every row stored, then neither it nor a worker of it is left running."""
    pid = prefill.start_detached(str(big))
    assert pid > 0
    seen = 0
    deadline = time.monotonic() + 120
    while _group(pid) and time.monotonic() < deadline:
        seen = max(seen, len(_group(pid)))
        time.sleep(0.02)
    assert _group(pid) == []
    assert seen >= 3  # it worked in a process per CPU
    assert prefill.prefill(str(big), jobs=1) == 0  # everything was stored


def test_a_case_edited_while_its_piece_is_worked_out_keeps_no_old_rows(
        made: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window takes in an edited input (its case replaced, its rows and counts dropped)
    while the pass works out that case's piece: the pass stores the piece's other cases, not
    the edited one's old rows, which the next pass would have skipped as done and the export
    copied out for the new answer; the next pass works the edited case out again."""
    monkeypatch.setattr(prefill, "PIECE", 8)
    real = prefill._work_piece
    edited: list[str] = []

    def then_edit(session: Session, ids: list[str], policy: object, key: str) -> object:
        piece = real(session, ids, policy, key)  # type: ignore[arg-type]
        if not edited:
            with Session.open(str(made)) as window:
                case = window.get_case(ids[0])
                window.update_case(dataclasses.replace(case,
                                                       answer="Edited first. " + case.answer))
            edited.append(ids[0])
        return piece

    monkeypatch.setattr(prefill, "_work_piece", then_edit)
    assert prefill.prefill(str(made)) == 30
    monkeypatch.setattr(prefill, "_work_piece", real)
    with Session.open(str(made), readonly=True) as s:
        key = rows_key(s, prefill.session_policy(s))
        assert edited[0] not in stored_rows(s, [edited[0]], key)
        assert len(stored_rows(s, s.case_ids(), key)) == 29
    assert prefill.prefill(str(made)) == 1  # the edited case, worked out from what it is now
    with Session.open(str(made), readonly=True) as s:
        policy = prefill.session_policy(s)
        now = rows_text(base_rows(analysed_once(s, edited[0], policy), edited[0]))
        assert stored_rows(s, [edited[0]], rows_key(s, policy)) == {edited[0]: now}
        assert s.sizes() == {cid: s.analysed(cid).item_counts for cid in s.case_ids()}

"""Stored export rows (issue 26): a case's unjudged rows are kept in the session once worked
out (by the background pass or fill_rows; an export stores none), and ``export --format
jsonl|csv`` copies them instead of analysing the case again; what is written stays byte for
byte what the recorded outputs hold, and rows stored under another policy, by another
citeview, or for a case since changed are worked out again."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest
from _golden import GOLDEN, normalised, sessions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeview.cli import main
from citeview.core.cases import Case
from citeview.core.policy import Policy
from citeview.session import Session
from citeview.session import rows as rows_mod
from citeview.session.rows import fill_rows, rows_key


def _export_policy(s: Session) -> Policy:
    """The policy ``citeview export`` grades lint with, run from here (as the CLI finds it)."""
    return Policy.discover().merged(families=s.families)


def _fill(path: Path) -> int:
    with Session.open(str(path)) as s:
        return fill_rows(s, _export_policy(s), jobs=1)


@pytest.mark.parametrize("jobs", [["--jobs", "1"], ["--jobs", "3"]])
def test_exports_from_stored_rows_equal_the_recorded_ones(tmp_path: Path,
                                                          jobs: list[str]) -> None:
    paths = sessions(tmp_path)
    for name, path in paths.items():
        assert _fill(path) > 0, name  # every session, old schemas too, got rows stored
        assert _fill(path) == 0, name  # and they are current: nothing to work out again
        for fmt in ("jsonl", "csv"):
            out = tmp_path / f"out-{name}.{fmt}"
            assert main(["export", str(path), "--format", fmt, *jobs, "-o", str(out)]) == 0
            want = (GOLDEN / f"{name}.{fmt}").read_bytes()
            assert normalised(out.read_bytes(), tmp_path) == want, (name, fmt)


def _unjudged_case(s: Session) -> str:
    judged = {r[0] for r in s.conn.execute(
        "SELECT case_id FROM annotations UNION SELECT case_id FROM evidence "
        "UNION SELECT case_id FROM corrections")}
    return next(cid for cid in s.case_ids() if cid not in judged and rows_mod.unjudged_text(
        s, cid, _export_policy(s)))


def test_export_reads_current_rows_and_works_out_stale_ones(tmp_path: Path) -> None:
    path = sessions(tmp_path)["mixed"]
    _fill(path)
    with Session.open(str(path)) as s:
        cid = _unjudged_case(s)
        key = rows_key(s, _export_policy(s))
        real = s.conn.execute("SELECT rows FROM case_rows WHERE case_id = ?", (cid,)).fetchone()[0]
        marked = real.replace('"status":"', '"status":"stored-', 1)
        s.conn.execute("UPDATE case_rows SET rows = ? WHERE case_id = ?", (marked, cid))

    def export() -> str:
        out = tmp_path / "out.jsonl"
        assert main(["export", str(path), "--format", "jsonl", "-o", str(out)]) == 0
        return out.read_text(encoding="utf-8")

    assert '"status":"stored-' in export()  # a current entry is what is written
    with Session.open(str(path)) as s:  # the same rows under another policy: stale
        s.conn.execute("UPDATE case_rows SET policy = 'other' WHERE case_id = ?", (cid,))
    got = export()
    assert '"status":"stored-' not in got and real in got
    with Session.open(str(path)) as s:  # current again, then the case changes: dropped
        s.conn.execute("UPDATE case_rows SET policy = ? WHERE case_id = ?", (key, cid))
        case = s.get_case(cid)
        s.update_case(Case.from_dict({**case.to_dict(), "question": "changed?"}, cid))
        assert s.conn.execute("SELECT count(*) FROM case_rows WHERE case_id = ?",
                              (cid,)).fetchone()[0] == 0
    assert '"status":"stored-' not in export()


def test_rows_of_another_citeview_version_are_stale(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = sessions(tmp_path)["mixed"]
    _fill(path)
    with Session.open(str(path)) as s:
        before = rows_key(s, _export_policy(s))
        monkeypatch.setattr(rows_mod, "ROWS_FORMAT", rows_mod.ROWS_FORMAT + 1)
        assert rows_key(s, _export_policy(s)) != before
        assert fill_rows(s, _export_policy(s), jobs=1) > 0  # all worked out again


def test_export_of_a_session_without_stored_rows_analyses_its_cases(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = sessions(tmp_path)["mixed"]
    calls: list[str] = []
    real = rows_mod.analysed_once
    monkeypatch.setattr(rows_mod, "analysed_once",
                        lambda s, cid, p, *read: calls.append(cid) or real(s, cid, p, *read))
    out = tmp_path / "out.jsonl"
    assert main(["export", str(path), "--format", "jsonl", "--jobs", "1", "-o", str(out)]) == 0
    with Session.open(str(path), readonly=True) as s:
        n = len(s)
    assert len(calls) == n  # nothing stored: every case analysed
    with Session.open(str(path), readonly=True) as s:  # (and the export stored nothing)
        assert s.conn.execute("SELECT count(*) FROM case_rows").fetchone()[0] == 0
    _fill(path)
    calls.clear()
    assert main(["export", str(path), "--format", "jsonl", "--jobs", "1", "-o", str(out)]) == 0
    assert normalised(out.read_bytes(), tmp_path) == (GOLDEN / "mixed.jsonl").read_bytes()
    assert len(calls) < n  # only the cases with a correction are analysed now


def test_an_export_only_reads_the_session_and_the_pass_makes_the_next_one_cheap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An export stores nothing (a cold export of a million cases spent a quarter of its time
    storing): the same export again analyses every case again; after the background pass
    (fill_rows) only the cases with a correction are."""
    path = sessions(tmp_path)["mixed"]
    calls: list[str] = []
    real = rows_mod.analysed_once
    monkeypatch.setattr(rows_mod, "analysed_once",
                        lambda s, cid, p, *read: calls.append(cid) or real(s, cid, p, *read))
    out = tmp_path / "out.csv"
    assert main(["export", str(path), "--format", "csv", "--jobs", "1", "-o", str(out)]) == 0
    first = len(calls)
    with Session.open(str(path), readonly=True) as s:
        assert first == len(s)
        assert s.conn.execute("SELECT count(*) FROM case_rows").fetchone()[0] == 0
    calls.clear()
    assert main(["export", str(path), "--format", "csv", "--jobs", "1", "-o", str(out)]) == 0
    assert len(calls) == first
    _fill(path)
    calls.clear()
    for fmt in ("csv", "jsonl"):
        out = tmp_path / f"out.{fmt}"
        assert main(["export", str(path), "--format", fmt, "--jobs", "1", "-o", str(out)]) == 0
        assert normalised(out.read_bytes(), tmp_path) == (GOLDEN / f"mixed.{fmt}").read_bytes()
    assert len(calls) < first / 2  # the second time, only cases with a correction


def test_an_export_never_waits_on_a_writer_nor_upgrades_an_older_session(
        tmp_path: Path) -> None:
    paths = sessions(tmp_path)
    path = paths["mixed"]
    busy = sqlite3.connect(str(path), isolation_level=None)
    busy.execute("BEGIN IMMEDIATE")  # another citeview in the middle of a write
    try:
        out = tmp_path / "out.jsonl"
        assert main(["export", str(path), "--format", "jsonl", "-o", str(out)]) == 0
        assert normalised(out.read_bytes(), tmp_path) == (GOLDEN / "mixed.jsonl").read_bytes()
    finally:
        busy.execute("ROLLBACK")
        busy.close()
    with Session.open(str(path), readonly=True) as s:
        assert s.conn.execute("SELECT count(*) FROM case_rows").fetchone()[0] == 0
    old = paths["v010-api"]
    before = old.read_bytes()
    out = tmp_path / "old.jsonl"
    assert main(["export", str(old), "--format", "jsonl", "-o", str(out)]) == 0
    assert normalised(out.read_bytes(), tmp_path) == (GOLDEN / "v010-api.jsonl").read_bytes()
    assert old.read_bytes() == before  # rows are kept only in a session of this version


def test_the_pass_keeps_no_rows_of_a_case_edited_while_it_ran(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window takes in an edited input (a case replaced, its rows dropped) while the pass
    that stores rows runs: it does not store that case's old rows for the next export to copy
    out as the new case's."""
    import dataclasses

    path = sessions(tmp_path)["mixed"]
    real = rows_mod.unjudged_text
    edited: list[str] = []

    def then_edit(s: object, cid: str, *rest: object) -> str:
        text = real(s, cid, *rest)  # type: ignore[arg-type]
        if not edited:
            with Session.open(str(path)) as window:
                case = window.get_case(cid)
                window.update_case(dataclasses.replace(case, answer="Edited. " + case.answer))
            edited.append(cid)
        return text

    monkeypatch.setattr(rows_mod, "unjudged_text", then_edit)
    with Session.open(str(path), readonly=True) as s:  # (the window holds the writer's lock)
        assert fill_rows(s, _export_policy(s), jobs=1) > 0
    with Session.open(str(path), readonly=True) as s:
        key = rows_key(s, _export_policy(s))
        kept = {r[0] for r in s.conn.execute("SELECT case_id FROM case_rows WHERE policy = ?",
                                             (key,))}
        assert edited and edited[0] not in kept
        assert len(kept) >= len(s) // 2  # the others were stored


def _stored(path: Path) -> dict[str, tuple[str, str]]:
    with Session.open(str(path), readonly=True) as s:
        return {r[0]: (r[1], r[2]) for r in s.conn.execute("SELECT * FROM case_rows")}


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_worker_processes_store_the_rows_one_process_stores(tmp_path: Path, fmt: str) -> None:
    """Rows worked out in workers (sent to the storing process with the text they are part
    of) are stored as one process stores them, for every case, and the export is the same."""
    from citeview.session.store import Session as FileSession

    src = sessions(tmp_path)["mixed"]
    with FileSession.open(str(src), readonly=True) as s:
        ids = s.case_ids()
        cases = [dataclasses.replace(s.get_case(ids[k % len(ids)]), id=f"m{k:03d}")
                 for k in range(150)]  # three chunks of 64 cases for the workers
    got = []
    for jobs in ("1", "2"):
        path = tmp_path / f"many-{jobs}.citeview"
        FileSession.create(str(path), cases, annotator="ana").close()
        out = tmp_path / f"out-{jobs}.{fmt}"
        assert main(["export", str(path), "--format", fmt, "--jobs", jobs, "-o", str(out)]) == 0
        with FileSession.open(str(path)) as s:
            fill_rows(s, _export_policy(s), jobs=int(jobs))
        got.append((out.read_bytes(), _stored(path)))
    assert got[0] == got[1]
    assert len(got[0][1]) == 150  # every case's rows kept for the next export
    with FileSession.open(str(tmp_path / "many-2.citeview"), readonly=True) as s:
        policy = _export_policy(s)
        for cid in ("m000", "m149"):
            assert got[1][1][cid] == (rows_key(s, policy),
                                      rows_mod.unjudged_text(s, cid, policy))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
       st.text(max_size=3))
def test_the_stale_rows_guard_knows_a_case_by_its_text_as_stored(answer: str,
                                                                  edit: str) -> None:
    """unchanged() reads a case as stored (UTF-8): any text, astral or not, is the same case
    as marked when read; any other text is not."""
    import json

    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute("CREATE TABLE cases (pos INTEGER PRIMARY KEY, id TEXT UNIQUE, data TEXT)")
    data = json.dumps({"id": "a", "answer": answer}, ensure_ascii=False)
    conn.execute("INSERT INTO cases (id, data) VALUES ('a', ?), ('b', ?)", (data, data))
    mark = rows_mod.case_mark(data)
    changed = json.dumps({"id": "a", "answer": answer + edit}, ensure_ascii=False)
    conn.execute("UPDATE cases SET data = ? WHERE id = 'b'", (changed,))
    assert rows_mod.unchanged(conn, {"a": mark, "b": mark, "gone": mark}) == (
        {"a"} if edit else {"a", "b"})

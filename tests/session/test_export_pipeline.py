"""How a row export reads a session file: every case once, in session order, whatever its
positions (as citeview makes them, reordered or with gaps by hand), in one process or several,
written as text or as UTF-8 bytes: the same rows as each case exported alone."""

from __future__ import annotations

import io
import random
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from _review_cases import UNS, case

from citeview.session import Annotation, Session, case_citations
from citeview.session import rows as rows_mod
from citeview.session.rows import case_csv, case_jsonl, fill_rows, write_csv, write_jsonl

N = 150  # more than a chunk (64 cases): several chunks, and a pool for jobs=2


def _session(tmp: Path, name: str = "s.citeview") -> Path:
    path = tmp / name
    cases = [replace(case(("c1", "c2", "c3")[i % 3]), id=f"k{i:03d}") for i in range(N)]
    Session.create(str(path), cases).close()
    return path


def _move(path: Path, where: Callable[[int], int]) -> None:
    """Give the case at position p position ``where(p)``, by hand (citeview never does)."""
    conn = sqlite3.connect(path)
    with conn:
        old = [r[0] for r in conn.execute("SELECT pos FROM cases")]
        conn.execute("UPDATE cases SET pos = -pos")
        conn.executemany("UPDATE cases SET pos = ? WHERE pos = ?",
                         [(where(p), -p) for p in old])
    conn.close()


def _order(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return [r[0] for r in conn.execute("SELECT id FROM cases ORDER BY pos")]
    finally:
        conn.close()


_SHUFFLED = list(range(1, N + 1))
random.Random(7).shuffle(_SHUFFLED)

MOVES: dict[str, Callable[[int], int]] = {
    "as made": lambda p: p,
    "reversed": lambda p: N + 1 - p,
    "shuffled": lambda p: _SHUFFLED[p - 1],
    "gaps": lambda p: p + p // 2,  # read by position, some positions holding no case
    "sparse": lambda p: 3 * p,  # read by pages of ids
    "far apart": lambda p: p if p <= N // 2 else p + 10**12,
}


def _judge(s: Session, cid: str) -> None:
    slot = case_citations(s.get_case(cid))[0]
    s.put_annotation(Annotation(slot.keys(cid)[0], "ana", UNS, "n", "t", slot.claim))


@pytest.mark.parametrize("state", ["cold", "judged", "stored"])
@pytest.mark.parametrize("move", list(MOVES))
def test_every_case_once_in_session_order_as_each_case_alone(
        tmp_path: Path, move: str, state: str) -> None:
    path = _session(tmp_path)
    if state != "cold":
        with Session.open(str(path)) as s:
            if state == "judged":
                _judge(s, "k005")
                _judge(s, "k140")
            else:
                assert fill_rows(s, None, jobs=1) == N
    _move(path, MOVES[move])
    order = _order(path)
    if move != "as made":
        assert order != [f"k{i:03d}" for i in range(N)] or move in ("gaps", "sparse",
                                                                    "far apart")
    with Session.open(str(path), readonly=True) as s:
        alone = "".join(case_jsonl(s, cid) for cid in order)
        alone_csv = "".join(case_csv(s, cid) for cid in order)
        for jobs in (1, 2):
            text, raw = io.StringIO(), io.BytesIO()
            write_jsonl(s, text, jobs=jobs)
            write_jsonl(s, raw, jobs=jobs)
            assert text.getvalue() == alone, (move, jobs)
            assert raw.getvalue() == alone.encode("utf-8"), (move, jobs)
            text, raw = io.StringIO(), io.BytesIO()
            write_csv(s, text, jobs=jobs)
            write_csv(s, raw, jobs=jobs)
            assert text.getvalue().endswith(alone_csv)
            assert text.getvalue().startswith("\ufeffcase_id,citation,")
            assert raw.getvalue() == text.getvalue().encode("utf-8")
    ids = [line.split('"case_id":"')[1].split('"')[0] for line in alone.splitlines()]
    assert list(dict.fromkeys(ids)) == order  # every case, in session order
    if state == "judged":
        assert '"verdict":"' + UNS + '"' in alone


def test_a_cold_export_reads_each_case_once_and_lists_no_ids_first(tmp_path: Path) -> None:
    path = _session(tmp_path)
    with Session.open(str(path), readonly=True) as s:
        seen: list[str] = []
        s.conn.set_trace_callback(seen.append)
        try:
            write_jsonl(s, io.BytesIO(), jobs=1)
        finally:
            s.conn.set_trace_callback(None)
    reads = [q for q in seen if "FROM cases" in q and "data" in q]
    # A chunk's cases read in one query, ids and JSON together: no list of ids read first, no
    # case looked up again by its id.
    assert len(reads) == -(-N // rows_mod._CHUNK)
    assert all("BETWEEN" in q for q in reads)
    assert not [q for q in seen if "id IN" in q or "SELECT pos, id FROM cases ORDER" in q]


def test_a_case_added_after_the_export_planned_its_chunks_is_still_written(
        tmp_path: Path) -> None:
    path = _session(tmp_path)
    with Session.open(str(path)) as s:
        chunks = rows_mod._chunks(s)  # positions 1..N planned
        first = next(chunks)
        s.add_cases([replace(case("c1"), id="late")])
        rest = list(chunks)
        got = [cid for chunk in [first, *rest] for cid in rows_mod.chunk_ids(s, chunk)]
    assert got == [f"k{i:03d}" for i in range(N)] + ["late"]


def test_a_binary_stream_gets_the_utf8_bytes_of_the_text(tmp_path: Path) -> None:
    from citeview.session.rows import takes_bytes

    assert takes_bytes(io.BytesIO()) and not takes_bytes(io.StringIO())
    with open(tmp_path / "f", "wb") as raw, open(tmp_path / "g", "w", encoding="utf-8") as txt:
        assert takes_bytes(raw) and not takes_bytes(txt) and takes_bytes(txt.buffer)


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_export_to_stdout_writes_the_bytes_it_writes_to_a_file(
        tmp_path: Path, fmt: str, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    from citeview.cli import main

    path = str(_session(tmp_path))
    out = tmp_path / f"rows.{fmt}"
    assert main(["export", path, "--format", fmt, "--jobs", "2", "-o", str(out)]) == 0
    capsysbinary.readouterr()
    assert main(["export", path, "--format", fmt, "--jobs", "2"]) == 0
    written = out.read_bytes()
    assert capsysbinary.readouterr().out == written
    assert written.count(b"\n") >= N and (fmt != "csv" or written.startswith(b"\xef\xbb\xbf"))


@pytest.mark.parametrize("stdout", ["utf-16", "text only"])
def test_a_stdout_that_is_not_utf8_bytes_is_handed_the_text(
        tmp_path: Path, stdout: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from citeview.cli import main

    path = str(_session(tmp_path))
    out = tmp_path / "rows.csv"
    assert main(["export", path, "--format", "csv", "-o", str(out)]) == 0
    sink: io.TextIOBase = (io.TextIOWrapper(io.BytesIO(), encoding="utf-16", newline="")
                           if stdout == "utf-16" else io.StringIO())
    monkeypatch.setattr("sys.stdout", sink)
    assert main(["export", path, "--format", "csv"]) == 0
    if isinstance(sink, io.TextIOWrapper):
        sink.flush()
        got = sink.buffer.getvalue().decode("utf-16")  # type: ignore[attr-defined]
    else:
        assert isinstance(sink, io.StringIO)
        got = sink.getvalue()
    assert got == out.read_bytes().decode("utf-8")

"""Issue 26: a big JSONL input not indexed yet is copied into its new session by a reader and a
maker process (the window's thread only waits). The session they make holds exactly what the
copy in one thread stores, record for record (plain case lines as they are, anything else built
and dumped); a bad input is the same one-line error and leaves no session and no temporary file;
an existing session is never replaced."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeview.core.datasets import JsonlDataset
from citeview.core.errors import InputError
from citeview.session import copying
from citeview.session.errors import SessionError
from citeview.session.store import Session

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from million_data import iter_lines  # noqa: E402

ODD_LINES = [
    '{"id": "plain", "question": "Q?", "answer": "A \\u00e9 \\n"}',
    "",
    '   {"id": "indented", "answer": "x"}',
    '{"id": "extra", "answer": "y", "meta": {"k": [1, 2]}}',
    '{"answer": "no id first", "id": "later"}',
    '{"id": "trailing", "answer": "z"}   ',
    '{"id": "crlf", "answer": "w"}\r',
    '{"messages": [{"role": "user", "content": "q"}, '
    '{"role": "assistant", "content": "a transcript"}]}',
    '{"id": "surrogate", "answer": "lone \\ud800 here"}',
    '{"id": "docs", "documents": {"d1": "text"}, "answer": "v"}',
]


def stored(path: Path) -> list[tuple[int, str, str, str]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT pos, id, data, typeof(data) FROM cases ORDER BY pos").fetchall()
    finally:
        conn.close()


def make(tmp_path: Path, data: Path, name: str, processes: bool,
         monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(copying, "PROCESS_BYTES", 0 if processes else 1 << 62)
    out = tmp_path / f"{name}.citeview"
    dataset = JsonlDataset(str(data), indexed=True, deferred=True)
    assert copying.in_process(dataset) is processes
    Session.create_file(str(out), dataset, source=str(data))
    assert not dataset.indexed or not processes  # this process never read it
    return out


@pytest.mark.parametrize("lines", [ODD_LINES, None], ids=["odd records", "generated cases"])
def test_the_processes_store_what_one_thread_stores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str] | None) -> None:
    data = tmp_path / "in.jsonl"
    if lines is None:
        data.write_text("".join(iter_lines(300)), encoding="utf-8")
    else:  # a byte order mark first, then every kind of line
        data.write_bytes(b"\xef\xbb\xbf" + "\n".join(lines).encode("utf-8") + b"\n")
    by_processes = stored(make(tmp_path, data, "p", True, monkeypatch))
    by_thread = stored(make(tmp_path, data, "t", False, monkeypatch))
    assert by_processes == by_thread
    assert len(by_processes) == (300 if lines is None else 9)
    assert {row[3] for row in by_processes} == {"text"}  # never a blob
    for _, _, text, _ in by_processes:
        json.loads(text)
    with Session.open(str(tmp_path / "p.citeview")) as s:
        assert s.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert len(s) == len(by_thread)
        if lines is not None:
            assert s.get_case("later").answer == "no id first"
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]


@pytest.mark.parametrize(("text", "said"), [
    ('{"id": "a", "answer": "x"}\n{"id": "a", "answer": "y"}\n',
     r"duplicate case id 'a' \(lines 1 and 2\)"),
    ('{"id": "a", "answer": "x"}\n{"id": "b", "answer": \n', r"line 2: invalid JSON"),
])
def test_a_bad_input_is_the_same_one_line_error_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, said: str) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text(text, encoding="utf-8")
    messages = []
    for processes in (True, False):
        with pytest.raises(InputError, match=said) as err:
            make(tmp_path, data, "s", processes, monkeypatch)
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "\n" not in messages[0]
    assert os.listdir(tmp_path) == ["bad.jsonl"]


def test_an_existing_session_is_never_replaced(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text("".join(iter_lines(20)), encoding="utf-8")
    target = tmp_path / "s.citeview"
    target.write_bytes(b"precious")
    with pytest.raises(SessionError, match="already exists"):
        make(tmp_path, data, "s", True, monkeypatch)
    assert target.read_bytes() == b"precious"


def test_a_reader_that_dies_is_told_in_one_line_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "in.jsonl"
    data.write_text("".join(iter_lines(20)), encoding="utf-8")
    monkeypatch.setattr(copying, "_READER", "import sys; sys.exit(3)")  # killed, say
    with pytest.raises(SessionError, match="the process reading the input stopped") as err:
        make(tmp_path, data, "s", True, monkeypatch)
    assert str(err.value).startswith(str(tmp_path / "s.citeview")) and "\n" not in str(err.value)
    assert sorted(os.listdir(tmp_path)) == ["in.jsonl"]


def attempts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, str]]:
    """Each try of the copy: how many readers shared the file, and how it ended ("made",
    "given up": left to one reader, or "error")."""
    tried: list[tuple[int, str]] = []
    real = copying._make

    def counted(*args: object) -> bool:
        parts = int(args[-1])  # type: ignore[call-overload]
        try:
            done = real(*args)  # type: ignore[arg-type]
        except InputError:
            tried.append((parts, "error"))
            raise
        tried.append((parts, "made" if done else "given up"))
        return done

    monkeypatch.setattr(copying, "_make", counted)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    return tried


SHARED_LINES = [line for line in ODD_LINES if '"messages"' not in line]  # each has an id


@pytest.mark.parametrize("chunk", [7, 100, 4096])
def test_two_readers_sharing_the_file_store_what_one_thread_stores(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int) -> None:
    """Each reader parses every other chunk of the file; the maker takes the chunks in file
    order, so the session is the one-thread copy, record for record, at any chunk size (7
    bytes: most chunks hold no line start; 4096: several records a chunk)."""
    data = tmp_path / "in.jsonl"
    data.write_bytes(b"\xef\xbb\xbf" + "\n".join(SHARED_LINES).encode("utf-8") + b"\n"
                     + "".join(iter_lines(120)).encode("utf-8"))
    monkeypatch.setattr(copying, "PART_CHUNK", chunk)
    tried = attempts(monkeypatch)
    by_processes = stored(make(tmp_path, data, "p", True, monkeypatch))
    assert tried == [(2, "made")]  # by the two readers, not sent to one
    by_thread = stored(make(tmp_path, data, "t", False, monkeypatch))
    assert by_processes == by_thread
    assert len(by_processes) == 8 + 120
    assert [row[1] for row in by_processes[:3]] == ["plain", "indented", "extra"]


def test_a_record_without_an_id_sends_the_copy_to_one_reader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record's id by its number needs every record before it counted: the shared copy stops
    and one reader copies the file, with the id the one-thread copy gives it."""
    data = tmp_path / "in.jsonl"
    data.write_bytes("".join(iter_lines(40)).encode("utf-8")
                     + "\n".join(ODD_LINES).encode("utf-8") + b"\n")
    monkeypatch.setattr(copying, "PART_CHUNK", 500)
    tried = attempts(monkeypatch)
    by_processes = stored(make(tmp_path, data, "p", True, monkeypatch))
    assert tried == [(2, "given up"), (1, "made")]
    assert by_processes == stored(make(tmp_path, data, "t", False, monkeypatch))
    assert "in#47" in [row[1] for row in by_processes]  # the transcript, record 47
    assert not [p.name for p in tmp_path.iterdir() if ".tmp-" in p.name]


@pytest.mark.skipif(os.name != "posix", reason="two readers only on POSIX")
def test_a_file_appended_to_while_the_readers_start_gives_its_records_in_order(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Records appended (whole lines) while the readers start: the readers see two sizes of the
    file. The session holds every record there was when the copy began, and of the appended
    ones the first few or all, in the file's order, each once: the file's records up to some
    line, as the thread's copy of it, read at some moment, holds them."""
    data = tmp_path / "in.jsonl"
    lines = list(iter_lines(90))
    data.write_text("".join(lines[:50]), encoding="utf-8")
    (tmp_path / "in.jsonl.more").write_text("".join(lines[50:]), encoding="utf-8")
    monkeypatch.setattr(copying, "PART_CHUNK", 1000)
    monkeypatch.setattr(copying, "_READER", _READERS_OF_A_GROWING_FILE)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    by_processes = stored(make(tmp_path, data, "p", True, monkeypatch))
    assert data.read_text(encoding="utf-8") == "".join(lines)  # (it was appended to)
    whole = stored(make(tmp_path, data, "t", False, monkeypatch))
    assert 50 <= len(by_processes) <= 90
    assert by_processes == whole[:len(by_processes)]


@pytest.mark.parametrize(("bad", "said"), [
    ('{"id": "case-0000003", "answer": "again"}', r"duplicate case id 'case-0000003' \(lines 4 "
                                                  r"and 31\)"),
    ('{"id": "oops", "answer": ', r"line 31: invalid JSON"),
])
def test_a_bad_record_in_the_other_readers_chunk_is_told_by_its_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad: str, said: str) -> None:
    """Ids repeated in two readers' chunks, or a broken record far into the file: the same
    one-line message, with the line numbers, as the one-thread copy; nothing left behind."""
    data = tmp_path / "bad.jsonl"
    data.write_text("".join(iter_lines(30)) + bad + "\n" + "".join(iter_lines(40))[-2000:]
                    .split("\n", 1)[1], encoding="utf-8")
    monkeypatch.setattr(copying, "PART_CHUNK", 300)
    tried = attempts(monkeypatch)
    messages = []
    for processes in (True, False):
        with pytest.raises(InputError, match=said) as err:
            make(tmp_path, data, "s", processes, monkeypatch)
        messages.append(str(err.value))
    assert tried[:2] == [(2, "given up"), (1, "error")]  # one reader said which line
    assert messages[0] == messages[1] and "\n" not in messages[0]
    assert os.listdir(tmp_path) == ["bad.jsonl"]


@pytest.mark.parametrize("processes", [True, False], ids=["processes", "one thread"])
def test_a_made_session_knows_its_case_count_without_counting_its_cases(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: bool) -> None:
    """Opened, a session made either way says how many cases it holds and finds them by
    position without a count(*) over every case (what the window asks on its own thread);
    cases added later are counted the same; a case taken out by hand is not listed empty."""
    from citeview.core.cases import Case

    data = tmp_path / "in.jsonl"
    data.write_text("".join(iter_lines(30)), encoding="utf-8")
    out = make(tmp_path, data, "s", processes, monkeypatch)
    said: list[str] = []
    with Session.open(str(out)) as s:
        s.conn.set_trace_callback(said.append)
        assert len(s) == 30 and s.index_of("case-0000029") == 29
        assert s.ids_between(28, 31) == ["case-0000028", "case-0000029"]
        assert not [q for q in said if "count(" in q.lower()]
        assert "_case_count" not in s.meta  # not a setting (nor exported)
        s.add_cases([Case("late", "A late case.")])
    with Session.open(str(out)) as s:
        said.clear()
        s.conn.set_trace_callback(said.append)
        assert len(s) == 31 and s.case_at(30).id == "late"
        assert not [q for q in said if "count(" in q.lower()]
    conn = sqlite3.connect(out)
    conn.execute("DELETE FROM cases WHERE id = 'case-0000003'")  # by hand: citeview never does
    conn.commit()
    conn.close()
    with Session.open(str(out)) as s:
        ids = s.case_ids()
        assert len(ids) == 30 and "" not in ids and "case-0000003" not in ids
        assert len(s) == 30 and s.index_of("late") == 29


# The maker, killed (the out-of-memory killer, say) once it has written a few rows into its
# temporary file.
_DYING_MAKER = """import os, signal, sys
from citeview.session import copying
real = copying._chunk_frames
def dying(streams, path):
    for n, row in enumerate(real(streams, path)):
        if n == 30:
            os.kill(os.getpid(), signal.SIGKILL)
        yield row
copying._chunk_frames = dying
sys.exit(copying.maker_main(sys.argv[1:]))
"""


@pytest.mark.skipif(os.name != "posix", reason="two readers only on POSIX")
def test_a_maker_killed_midway_leaves_no_file_and_no_reader(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The process writing the new session killed: one line says so, and neither its temporary
    file (a big input's is as big as the session) nor a reader is left behind."""
    import subprocess

    data = tmp_path / "in.jsonl"
    data.write_text("".join(iter_lines(200)), encoding="utf-8")
    monkeypatch.setattr(copying, "PART_CHUNK", 4096)
    monkeypatch.setattr(copying, "_MAKER", _DYING_MAKER)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    started: list[subprocess.Popen[bytes]] = []
    real = subprocess.Popen

    def popen(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        started.append(real(*args, **kwargs))  # type: ignore[call-overload]
        return started[-1]

    monkeypatch.setattr(subprocess, "Popen", popen)
    with pytest.raises(SessionError, match=r"the process making it stopped: exit -9") as err:
        make(tmp_path, data, "s", True, monkeypatch)
    assert "\n" not in str(err.value)
    assert len(started) == 3 and all(p.returncode is not None for p in started)
    assert sorted(os.listdir(tmp_path)) == ["in.jsonl"]


@pytest.mark.parametrize("cpus", [1, None], ids=["one CPU", "unknown"])
def test_one_cpu_copies_with_one_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        cpus: int | None) -> None:
    """Two readers and a maker on one CPU would only take turns: one reader copies the file,
    at once (no try with two first), and stores what the thread stores."""
    data = tmp_path / "in.jsonl"
    data.write_text("".join(iter_lines(50)), encoding="utf-8")
    monkeypatch.setattr(copying, "PART_CHUNK", 1000)
    tried = attempts(monkeypatch)
    monkeypatch.setattr(os, "cpu_count", lambda: cpus)
    by_processes = stored(make(tmp_path, data, "p", True, monkeypatch))
    assert tried == [(1, "made")]
    assert by_processes == stored(make(tmp_path, data, "t", False, monkeypatch))


@pytest.mark.skipif(os.name != "posix", reason="two readers only on POSIX")
def test_pipes_that_cannot_be_widened_still_carry_whole_chunks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a pipe keeps its default size (64 KB on Linux; not Linux, or past the system's
    most), a chunk's frame is four times what it holds: each reader waits for the maker, which
    takes them in order, and the session is the thread's, by two readers."""
    import fcntl

    data = tmp_path / "in.jsonl"
    data.write_text("".join(iter_lines(1500)), encoding="utf-8")  # 1.5 MB: six chunks
    assert copying.PART_CHUNK == 256 << 10

    def refused(*args: object) -> int:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(fcntl, "fcntl", refused)
    tried = attempts(monkeypatch)
    by_processes = stored(make(tmp_path, data, "p", True, monkeypatch))
    assert tried == [(2, "made")]
    assert by_processes == stored(make(tmp_path, data, "t", False, monkeypatch))
    assert len(by_processes) == 1500


# The readers of a file that changes while they start: the first reader opens the file and
# reads a chunk, then the file changes (CHANGE), then the second reader opens it.
_READERS_OF_A_CHANGING_FILE = """import os, sys, time
from citeview.core.datasets import JsonlDataset
from citeview.session import copying
path = sys.argv[1]
flag = path + ".opened"
if sys.argv[2:3] == ["0"]:
    real = JsonlDataset.part_batches
    def telling(self, *args):
        for chunk in real(self, *args):
            open(flag, "w").close()
            yield chunk
    JsonlDataset.part_batches = telling
elif sys.argv[2:3] == ["1"]:
    while not os.path.exists(flag):
        time.sleep(0.01)
    CHANGE
sys.exit(copying.reader_main(sys.argv[1:]))
"""
# An editor saves it (a new file moved over it); a pipeline appends records to it.
_READERS_OF_A_SAVED_FILE = _READERS_OF_A_CHANGING_FILE.replace(
    "CHANGE", "if os.path.exists(path + '.new'):\n        os.replace(path + '.new', path)")
_READERS_OF_A_GROWING_FILE = _READERS_OF_A_CHANGING_FILE.replace(
    "CHANGE", "if os.path.exists(path + '.more'):\n"
    "        with open(path, 'ab') as fh, open(path + '.more', 'rb') as more:\n"
    "            fh.write(more.read())\n"
    "        os.remove(path + '.more')")


@pytest.mark.skipif(os.name != "posix", reason="two readers only on POSIX")
def test_a_file_saved_over_while_the_readers_start_is_copied_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An input saved over (a new file moved into its place, as editors and tools write) while
    the readers start: each would read chunks of another file, the session half of one and
    half of the other. The session is one file's records: the new one's, by one reader."""
    from million_data import make_case

    data = tmp_path / "in.jsonl"
    cases = [make_case(i) for i in range(60)]
    data.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases),
                    encoding="utf-8")
    for case in cases:  # the same ids and line lengths: the same chunks, other answers
        case["answer"] = str(case["answer"]).upper()
    new = "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)
    (tmp_path / "in.jsonl.new").write_text(new, encoding="utf-8")
    monkeypatch.setattr(copying, "PART_CHUNK", 1000)
    monkeypatch.setattr(copying, "_READER", _READERS_OF_A_SAVED_FILE)
    tried = attempts(monkeypatch)
    by_processes = stored(make(tmp_path, data, "p", True, monkeypatch))
    assert data.read_text(encoding="utf-8") == new
    assert tried == [(2, "given up"), (1, "made")]
    assert by_processes == stored(make(tmp_path, data, "t", False, monkeypatch))


# ----------------------------------------------------------------- any file, any chunk size

_IDS = st.sampled_from(["a", "b", "é", "x y", "in#3", "in#0", "12", "e" * 40]) | st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=8)
_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12) | (
    st.sampled_from(["\u00e9", "\U0001f600", "\ue200cite\ue202turn0file0\ue202L1\ue201",
                     "\n\t\\\"", "\u2028", "\ufeff"]))
_KINDS = ["plain"] * 8 + ["extra", "id later", "blank", "blank", "bad", "no id", "surrogate",
                          "id surrogate", "number id", "documents", "transcript", "bom"]


@st.composite
def _jsonl_line(draw: st.DrawFn) -> str:
    """One line of a JSONL input (no newline): a record of some kind, blank, or broken."""
    kind = draw(st.sampled_from(_KINDS))
    cid, answer = draw(_IDS), draw(_TEXT)
    ascii_only = draw(st.booleans())

    def dump(obj: object) -> str:
        return json.dumps(obj, ensure_ascii=ascii_only)

    if kind == "blank":
        return draw(st.sampled_from(["", " ", "\t", "  \t ", "\r", "\ufeff"]))
    text = {
        "plain": lambda: dump({"id": cid, "question": draw(_TEXT), "answer": answer}),
        "extra": lambda: dump({"id": cid, "answer": answer, "meta": {"k": [1, draw(_TEXT)]}}),
        "id later": lambda: dump({"answer": answer, "id": cid}),
        "bad": lambda: draw(st.sampled_from([  # (\udcff: the byte 0xff, not UTF-8)
            '{"id": "zz", "answer": ', "[1, 2", "nope", '{"id": 1.5}', '"a string"',
            '{"id": "", "answer": "x"}', '{"id": "\udcff", "answer": "x"}',
            '{"id": "n", "answer": "\x00"}'])),
        "no id": lambda: dump({"answer": answer}),
        "surrogate": lambda: '{"id": ' + json.dumps(cid) + ', "answer": "lone \\ud800 x"}',
        "id surrogate": lambda: ('{"id": "s\\udc80' + draw(st.sampled_from(["", "1", "2"]))
                                 + '", "answer": "x"}'),
        "number id": lambda: ('{"id": ' + str(draw(st.integers(0, 20))) + ', "answer": '
                              + dump(answer) + "}"),
        "documents": lambda: dump({"id": cid, "documents": {"d1": answer or "t"}, "answer": "v"}),
        "transcript": lambda: dump({"messages": [{"role": "user", "content": "q"},
                                                 {"role": "assistant", "content": answer or "a"}],
                                    "metadata": {"case_id": cid}}),
        "bom": lambda: "\ufeff" + dump({"id": cid, "answer": answer}),
    }[kind]()
    return (draw(st.sampled_from(["", "", " "])) + text + draw(st.sampled_from(["", "", "  \t"]))
            + draw(st.sampled_from(["", "", "\r"])))


def _made_either_way(folder: str, data: str, processes: bool) -> list[tuple[int, str, str]] | str:
    """The session's rows (``pos, id, data``) made from ``data`` by the readers' processes or
    the thread, or the one-line message it failed with (nothing made)."""
    out = os.path.join(folder, "s.citeview")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(copying, "PROCESS_BYTES", 0 if processes else 1 << 62)
        dataset = JsonlDataset(data, indexed=True, deferred=True)
        assert copying.in_process(dataset) is processes
        try:
            Session.create_file(out, dataset, source=data)
        except InputError as err:
            assert not os.path.exists(out)
            return f"{type(err).__name__}: {err}"
    conn = sqlite3.connect(out)
    try:
        rows: list[tuple[int, str, str]] = conn.execute(
            "SELECT pos, id, data FROM cases ORDER BY pos").fetchall()
    finally:
        conn.close()
    os.remove(out)
    return rows


@pytest.mark.slow  # (each example starts up to five processes)
@pytest.mark.timeout(600)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_jsonl_line(), max_size=25), st.booleans(), st.booleans(), st.integers(1, 400))
def test_any_input_is_the_same_session_or_message_by_readers_as_by_the_thread(
        lines: list[str], bom: bool, last_newline: bool, chunk: int) -> None:
    """Whatever the lines (plain cases, extra keys, the id not first, blank and whitespace
    lines, CRLF, byte order marks, escapes and lone surrogates, broken records, repeated ids,
    records without one) and wherever the chunks cut them, the readers' processes make the
    session the thread makes, row for row, or fail with its one-line message; no temporary
    file is left either way."""
    body = "\n".join(lines).encode("utf-8", "surrogateescape")
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as mp:
        data = os.path.join(folder, "in.jsonl")
        Path(data).write_bytes((b"\xef\xbb\xbf" if bom else b"") + body
                               + (b"\n" if last_newline and lines else b""))
        mp.setattr(copying, "PART_CHUNK", chunk)
        mp.setattr(os, "cpu_count", lambda: 2)
        by_thread = _made_either_way(folder, data, False)
        assert _made_either_way(folder, data, True) == by_thread
        assert not isinstance(by_thread, str) or "\n" not in by_thread
        assert os.listdir(folder) == ["in.jsonl"]


# The second reader killed once it has sent two chunks (the first goes on, its pipe full).
_DYING_READER = """import os, signal, sys
from citeview.core.datasets import JsonlDataset
from citeview.session import copying
if sys.argv[2:3] == ["1"]:
    real = JsonlDataset.part_batches
    def dying(self, *args):
        for n, chunk in enumerate(real(self, *args)):
            if n == 2:
                sys.stdout.flush()
                os.kill(os.getpid(), signal.SIGKILL)
            yield chunk
    JsonlDataset.part_batches = dying
sys.exit(copying.reader_main(sys.argv[1:]))
"""


@pytest.mark.skipif(os.name != "posix", reason="two readers only on POSIX")
def test_a_reader_killed_midway_is_told_and_leaves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One of two readers killed partway through the file: one line says so (not a session
    short of its records), and no file nor process is left, the other reader's either."""
    import subprocess

    data = tmp_path / "in.jsonl"
    data.write_text("".join(iter_lines(300)), encoding="utf-8")
    monkeypatch.setattr(copying, "PART_CHUNK", 4096)
    monkeypatch.setattr(copying, "_READER", _DYING_READER)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(copying, "_widen", lambda fd: None)  # (the other reader's pipe fills)
    started: list[subprocess.Popen[bytes]] = []
    real = subprocess.Popen

    def popen(*args: object, **kwargs: object) -> subprocess.Popen[bytes]:
        started.append(real(*args, **kwargs))  # type: ignore[call-overload]
        return started[-1]

    monkeypatch.setattr(subprocess, "Popen", popen)
    with pytest.raises(SessionError, match="the process reading the input stopped") as err:
        make(tmp_path, data, "s", True, monkeypatch)
    assert "\n" not in str(err.value)
    assert len(started) == 3 and all(p.returncode is not None for p in started)
    assert started[1].returncode == -9
    assert sorted(os.listdir(tmp_path)) == ["in.jsonl"]

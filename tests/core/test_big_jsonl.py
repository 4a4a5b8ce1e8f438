"""Issue 26: a JSONL dataset of any size opens with no flag (the size limit applies to each
record), read in pieces; a JSON document or array past the limit is still refused. Small
files stand for big ones by lowering the limit (``input_limit``) and the piece size."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from citeview.core import datasets
from citeview.core.cases import Case
from citeview.core.datasets import JsonlDataset
from citeview.core.errors import InputError
from citeview.core.files import input_limit
from citeview.core.inputs import load_input

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from million_data import make_case, write_dataset  # noqa: E402


@pytest.fixture
def small_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Index in pieces of 1,000 bytes: records cross the pieces' edges."""
    monkeypatch.setattr(datasets, "INDEX_CHUNK", 1000)


def test_jsonl_past_the_limit_opens_record_by_record(tmp_path: Path,
                                                      small_pieces: None) -> None:
    path = write_dataset(tmp_path / "big.jsonl", 60)
    assert path.stat().st_size > 20_000
    with input_limit(4096):  # each record is ~1 KB: the file is 15x the limit
        ds = load_input(str(path))
        assert isinstance(ds, JsonlDataset) and len(ds) == 60
        assert ds.case_ids()[:2] == ["case-0000000", "case-0000001"]
        assert ds.get(59) == Case.from_dict(make_case(59))
        assert [c.id for c in ds.iter_cases()] == ds.case_ids()


def test_a_record_past_the_limit_is_refused_naming_its_line(tmp_path: Path,
                                                            small_pieces: None) -> None:
    path = write_dataset(tmp_path / "big.jsonl", 30)
    long_case = dict(make_case(30), answer="x" * 9000)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(long_case) + "\n")
    with input_limit(4096), pytest.raises(InputError, match=r"line 31: input too large"):
        load_input(str(path))


def test_a_json_array_past_the_limit_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text(json.dumps([make_case(i) for i in range(30)]), encoding="utf-8")
    with input_limit(4096), pytest.raises(InputError, match="input too large"):
        load_input(str(path))
    one = tmp_path / "one.json"
    one.write_text(json.dumps(dict(make_case(0), answer="y" * 9000)), encoding="utf-8")
    with input_limit(4096), pytest.raises(InputError, match="input too large"):
        load_input(str(one))


def test_case_texts_are_what_the_cases_give_back(tmp_path: Path, small_pieces: None) -> None:
    """A plain case line is kept as its text (no build and dump); any other record is built:
    either way its JSON is the case's own."""
    path = write_dataset(tmp_path / "mixed.jsonl", 20)
    odd = [
        {"id": "extra-first", "meta": 1, "answer": "a"},  # an extra before the answer
        {"id": "outputs-str", "tool_outputs": "one", "answer": "a"},  # a string, not a list
        {"id": "chat", "messages": [{"role": "user", "content": "q"},
                                    {"role": "assistant", "content": "a"}]},
        {"id": "lone", "answer": "\ud800 x"},  # a lone surrogate, scrubbed when read
        {"id": "plain-extra", "question": "q", "answer": "a", "meta": {"k": 1}},
    ]
    with open(path, "a", encoding="utf-8") as fh:
        for obj in odd:
            fh.write(json.dumps(obj) + "\n")
    with input_limit(4096):
        ds = load_input(str(path))
    texts = dict(datasets.JsonlDataset.iter_case_texts(ds))  # type: ignore[arg-type]
    assert list(texts) == ds.case_ids()
    for i, cid in enumerate(ds.case_ids()):
        expected = ds.get(i).to_dict()
        got = texts[cid]
        as_dict = json.loads(got) if isinstance(got, str) else got.to_dict()
        assert as_dict == expected and list(as_dict) == list(expected), cid
    assert isinstance(texts["case-0000003"], str)  # kept as it is
    assert isinstance(texts["plain-extra"], str)
    for cid in ("extra-first", "outputs-str", "chat", "lone"):
        assert isinstance(texts[cid], Case), cid


def _mixed_file(path: Path) -> Path:
    """60 plain cases with a BOM, blank lines, a record with an extra key, one whose id is not
    first and a chat transcript among them (records cross the pieces' edges)."""
    write_dataset(path, 60)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines.insert(10, "\n   \n")
    lines.insert(20, json.dumps(dict(make_case(100), note="extra")) + "\n")
    lines.insert(30, json.dumps({"answer": "a", "id": "late-id"}) + "\n")
    lines.insert(40, json.dumps({"messages": [{"role": "user", "content": "q"},
                                              {"role": "assistant", "content": "a"}]}) + "\n")
    path.write_bytes(b"\xef\xbb\xbf" + "".join(lines).encode("utf-8"))
    return path


def test_a_session_is_made_reading_the_file_once(tmp_path: Path, small_pieces: None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from citeview.session import Session

    path = _mixed_file(tmp_path / "big.jsonl")
    with input_limit(4096):
        eager = load_input(str(path))
        Session.create_file(str(tmp_path / "eager.citeview"), eager)

        def no_index_pass(*_: object) -> None:
            raise AssertionError("indexed in a pass of its own")

        once = load_input(str(path), copy_once=True)
        monkeypatch.setattr(JsonlDataset, "_index_file", no_index_pass)
        Session.create_file(str(tmp_path / "once.citeview"), once)
        # The dataset is indexed by the copy: ids, lines and cases as the eager one's.
        assert once.case_ids() == eager.case_ids()
        assert [once.line_of(i) for i in range(len(once))] == [
            eager.line_of(i) for i in range(len(eager))]
        assert once.get(41) == eager.get(41)
        assert once.index_of("late-id") == eager.index_of("late-id") == 29
    rows = []
    for name in ("eager", "once"):
        with Session.open(str(tmp_path / f"{name}.citeview"), readonly=True) as s:
            rows.append(s.conn.execute("SELECT pos, id, data FROM cases ORDER BY pos").fetchall())
    assert rows[0] == rows[1] and len(rows[0]) == 63


def test_copying_once_refuses_what_the_index_refuses(tmp_path: Path, small_pieces: None) -> None:
    from citeview.session import Session

    path = write_dataset(tmp_path / "big.jsonl", 30)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(make_case(3)) + "\n")
    out = tmp_path / "s.citeview"
    with input_limit(4096), pytest.raises(
            InputError, match=r"duplicate case id 'case-0000003' \(lines 4 and 31\)"):
        Session.create_file(str(out), load_input(str(path), copy_once=True))
    assert not out.exists()
    path = write_dataset(tmp_path / "big.jsonl", 31)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(dict(make_case(40), answer="x" * 9000)) + "\n")
    with input_limit(4096), pytest.raises(InputError, match=r"line 32: input too large"):
        Session.create_file(str(out), load_input(str(path), copy_once=True))
    assert not out.exists()


def test_a_jsonl_dataset_knows_when_its_file_changed_since_it_was_read(tmp_path: Path) -> None:
    """Its records are read again by offset: once the file is rewritten (grown, rewritten in
    place at the same size, replaced by a rename, removed) the dataset says its index is
    stale; one read from a stream never is, nor is an index made after the change."""
    import os

    path = write_dataset(tmp_path / "d.jsonl", 5)
    whole = load_input(str(path))  # read whole, records read again by offset
    deferred = JsonlDataset(str(path), indexed=True, deferred=True)
    assert isinstance(whole, JsonlDataset) and not whole.stale() and not deferred.stale()
    text = path.read_bytes()
    path.write_bytes(text + json.dumps(make_case(5)).encode() + b"\n")  # grown
    assert whole.stale() and deferred.stale()
    again = load_input(str(path))
    assert isinstance(again, JsonlDataset) and not again.stale() and len(again) == 6
    deferred.case_ids()  # indexed now, after the change: it holds
    assert not deferred.stale()
    stat = path.stat()
    path.write_bytes(text[:10].upper() + text[10:] + json.dumps(make_case(5)).encode() + b"\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))  # the same size, later
    assert again.stale()
    fresh = load_input(str(path))
    moved = tmp_path / "new.jsonl"
    moved.write_bytes(path.read_bytes())
    os.utime(moved, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns))
    os.replace(moved, path)  # the same size and time, another file
    assert isinstance(fresh, JsonlDataset) and fresh.stale()
    path.unlink()
    assert JsonlDataset(str(tmp_path / "s.jsonl"), text, stream=True).stale() is False
    assert deferred.stale()  # gone

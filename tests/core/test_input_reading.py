"""Reading inputs safely (core): once from the start (pipes, standard input), within the size
limit while reading, binary anywhere, JSON too deep or with too long numbers, wrong types in
transcripts; every failure a one-line InputError."""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from citeview.core.datasets import JsonlDataset, case_id_from_path
from citeview.core.errors import InputError
from citeview.core.files import (
    DEFAULT_MAX_INPUT_BYTES,
    MAX_JSON_DEPTH,
    InputSource,
    input_limit,
    max_input_bytes,
    parse_json,
    parse_size,
    printable,
    read_input,
)
from citeview.core.inputs import load_input
from citeview.core.lint_output import artifact_uri
from citeview.core.transcripts import detect_kind, record_to_case

Pipe = Callable[[bytes], str]

CASE = {"id": "a", "tool_outputs": ["[L1] x\n" * 2000], "answer": "y"}
CASE_BYTES = json.dumps(CASE, indent=1).encode()
assert len(CASE_BYTES) > 8192


def one_line(err: pytest.ExceptionInfo[InputError]) -> str:
    text = str(err.value)
    assert "\n" not in text and text
    return text


# --------------------------------------------------------------------------- read once


def test_a_pipe_is_read_once_from_its_first_byte(pipe_of: Pipe) -> None:
    data = b"".join(b"line %d\n" % i for i in range(5000))
    with InputSource(pipe_of(data)) as src:
        assert not src.regular
        assert src.head(16) == data[:16] and src.head(8192) == data[:8192]
        assert src.read_all() == data
    with InputSource(pipe_of(data)) as src:
        src.head(8192)
        assert list(src.lines()) == data.splitlines(keepends=True)
    assert read_input(pipe_of(data)) == data


def test_load_input_reads_pipes_and_stdin(pipe_of: Pipe, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    ds = load_input(pipe_of(CASE_BYTES))
    assert ds.case_ids() == ["a"] and ds.get(0).tool_outputs == CASE["tool_outputs"]
    lines = b"".join(json.dumps({**CASE, "id": f"c{i}"}).encode() + b"\n" for i in range(4))
    ds = load_input(pipe_of(lines))
    assert isinstance(ds, JsonlDataset) and ds.path is None
    assert ds.get(3).id == "c3" and [c.id for c in ds.iter_cases()] == ["c0", "c1", "c2", "c3"]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"An answer.\n")))
    ds = load_input("-")
    assert ds.case_ids() == ["stdin"] and ds.get(0).answer == "An answer.\n"


def test_a_session_cannot_come_through_a_pipe(pipe_of: Pipe) -> None:
    from citeview.session.loader import SESSION_LOADERS

    with pytest.raises(InputError, match="cannot be read from a pipe or standard input"):
        load_input(pipe_of(b"SQLite format 3\x00" + b"\x00" * 100), SESSION_LOADERS)


# --------------------------------------------------------------------------- size limit


@pytest.mark.parametrize(("text", "size"), [
    ("1000", 1000), ("64K", 65536), ("512m", 512 << 20), ("2G", 2 << 30), ("1.5KiB", 1536),
    (" 10 MB ", 10 << 20),
])
def test_sizes(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "x", "-1", "0", "1X", "1e9"])
def test_bad_sizes(text: str) -> None:
    with pytest.raises(InputError, match="expected a size|at least 1 byte"):
        parse_size(text, "--max-input-size")


def test_the_limit_comes_from_the_option_or_the_environment(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEVIEW_MAX_INPUT", raising=False)
    assert max_input_bytes() == DEFAULT_MAX_INPUT_BYTES
    monkeypatch.setenv("CITEVIEW_MAX_INPUT", "1M")
    assert max_input_bytes() == 1 << 20
    with input_limit(100):
        assert max_input_bytes() == 100
    assert max_input_bytes() == 1 << 20
    monkeypatch.setenv("CITEVIEW_MAX_INPUT", "lots")
    with pytest.raises(InputError, match="CITEVIEW_MAX_INPUT: expected a size"):
        max_input_bytes()


def test_a_pipe_that_never_ends_is_refused_at_the_limit(pipe_of: Pipe) -> None:
    endless = b"a" * (8 << 20)  # "never ends" as far as a 64 KiB limit can tell
    start = time.monotonic()
    with input_limit(64 << 10):
        for read in (read_input, load_input):
            with pytest.raises(InputError, match=r"input too large \(more than 65536 bytes; "
                               r"raise the limit with --max-input-size or CITEVIEW_MAX_INPUT\)"):
                read(pipe_of(endless))
        with InputSource(pipe_of(endless)) as src, pytest.raises(InputError, match="too large"):
            list(src.lines())
    assert time.monotonic() - start < 10


def test_a_large_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    f = tmp_path / "big.txt"
    f.write_bytes(b"x" * 5000)
    with input_limit(4096), pytest.raises(InputError, match="too large") as err:
        load_input(str(f))
    assert one_line(err).startswith(str(f))
    with input_limit(5000):
        assert load_input(str(f)).get(0).answer == "x" * 5000


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_dev_zero_is_binary_at_once() -> None:
    with pytest.raises(InputError, match="binary file"):
        load_input("/dev/zero")


# --------------------------------------------------------------------------- binary


def test_a_nul_byte_after_the_first_8_kib_is_binary(tmp_path: Path) -> None:
    f = tmp_path / "answer.txt"
    f.write_bytes(b"clean text\n" * 1000 + b"\x00 and more\n")
    with pytest.raises(InputError, match="binary file"):
        load_input(str(f))
    f.write_bytes(b"clean text\n" * 1000 + b"\x00")  # in a JSON document too
    g = tmp_path / "case.json"
    g.write_bytes(json.dumps({"answer": "x" * 10000}).encode()[:-1] + b"\x00}")
    with pytest.raises(InputError, match="binary file"):
        load_input(str(g))


# --------------------------------------------------------------------------- JSON


DEEP = "[" * 100000 + "]" * 100000


@pytest.mark.parametrize("text", [
    DEEP, "[" * 100000,
    json.dumps({"answer": "x", "extra": json.loads("[" * 250 + "]" * 250)}),
    '{"answer": "x", "deep": ' + '{"a": ' * (MAX_JSON_DEPTH + 1) + "1" + "}" * (
        MAX_JSON_DEPTH + 2),
])
def test_json_nested_too_deeply_is_one_line(tmp_path: Path, text: str) -> None:
    for name in ("x.json", "x.jsonl"):
        f = tmp_path / name
        f.write_text(text + "\n" + text if name.endswith("l") else text)
        with pytest.raises(InputError, match="nested too deeply") as err:
            ds = load_input(str(f))
            list(ds.iter_cases())
        assert one_line(err).startswith(str(f))


def test_json_nesting_up_to_the_limit_is_fine() -> None:
    value = parse_json("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, "x")
    for _ in range(MAX_JSON_DEPTH - 1):
        value = value[0]
    assert value == []


def test_an_integer_beyond_the_digit_limit_is_one_line(tmp_path: Path) -> None:
    big = "1" * 5000
    f = tmp_path / "x.json"
    f.write_text('{"answer": "x", "n": ' + big + "}")
    with pytest.raises(InputError, match="a number with more than 4300 digits") as err:
        load_input(str(f))
    assert one_line(err).startswith(str(f))
    g = tmp_path / "x.jsonl"
    g.write_text('{"answer": "x"}\n{"answer": "y", "n": ' + big + "}\n")
    with pytest.raises(InputError, match=r"line 2: invalid JSON: a number with more than"):
        list(load_input(str(g)).iter_cases())


# --------------------------------------------------------------------------- wrong types


@pytest.mark.parametrize(("value", "message"), [
    ({"output": [{"type": "message", "content": [
        {"type": "output_text", "text": "x", "annotations": 5}]}]},
     "annotations must be a list, not a number"),
    ([{"type": [1]}], "unknown format"),
    ([{"type": {"a": 1}, "role": "user"}], "chat transcript"),
    ({"messages": [{"role": "assistant", "content": 5}]}, "\"content\" must be a string"),
])
def test_wrong_types_in_transcripts_are_one_line(value: object, message: str) -> None:
    detect_kind(value)
    with pytest.raises(InputError, match=message):
        record_to_case(value, "x")


def test_a_boolean_annotation_index_is_one_line_not_a_number() -> None:
    value = {"output": [{"type": "message", "content": [
        {"type": "output_text", "text": "ab"},
        {"type": "output_text", "text": "c", "annotations": [
            {"type": "url_citation", "url": "https://example.org", "title": "t",
             "start_index": 0, "end_index": True}]}]}]}
    with pytest.raises(InputError) as info:
        record_to_case(value, "x")
    assert "end_index" in str(info.value) and "\n" not in str(info.value)


# --------------------------------------------------------------------------- names


def test_file_names_that_are_not_utf8_print_safely() -> None:
    name = os.fsdecode(b"caf\xe9.case.json")
    assert printable(name) == "caf\ufffd.case.json"
    assert case_id_from_path("/x/" + name) == "caf\ufffd"
    assert artifact_uri(name) == "caf%E9.case.json"
    assert artifact_uri("/tmp/" + name) == "file:///tmp/caf%E9.case.json"
    assert printable("plain") == "plain" and printable("\ud800x") == "\ufffdx"

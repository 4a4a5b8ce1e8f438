"""The row writers given a stream of the codecs module (a text writer over a binary file, whose
``mode`` attribute is the binary file's): they write it text, as to any text stream."""

from __future__ import annotations

import codecs
import io
from dataclasses import replace
from pathlib import Path

import pytest
from _review_cases import case

from citeview.session import Session
from citeview.session.rows import write_csv, write_jsonl


@pytest.mark.parametrize("write", [write_jsonl, write_csv])
def test_a_codecs_stream_writer_is_written_text(tmp_path: Path, write) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "s.citeview"
    Session.create(str(path), [replace(case("c1"), id=f"k{i}") for i in range(3)]).close()
    with Session.open(str(path), readonly=True) as s:
        expected = io.StringIO()
        write(s, expected, jobs=1)
        with open(tmp_path / "out", "wb") as raw:
            write(s, codecs.getwriter("utf-8")(raw), jobs=1)
    assert (tmp_path / "out").read_bytes() == expected.getvalue().encode("utf-8")

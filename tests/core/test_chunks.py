"""Issue 26: two readers share a big JSONL file by byte ranges (``core/chunks.py``), each
finding its chunks' lines from the file alone. Taken in order, the chunks must give every line
of the file exactly once, whatever the chunk size and wherever the lines fall, and say when a
line is past the limit (the copy then reads the file whole for the message)."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from citeview.core.chunks import line_chunk

LINE = st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"x"))


def all_chunks(data: bytes, size: int, limit: int = 1 << 30) -> list[list[bytes] | None]:
    fh = io.BytesIO(data)
    out: list[list[bytes] | None] = []
    index = 0
    while index * size < len(data):
        out.append(line_chunk(fh, index, size, len(data), limit))
        index += 1
    assert line_chunk(fh, index, size, len(data), limit) is None  # past the end
    return out


def lines_of(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    return lines[:-1] if lines and not lines[-1] else lines


@given(st.lists(LINE, max_size=30), st.booleans(), st.integers(1, 40))
def test_the_chunks_in_order_give_every_line_once(lines: list[bytes], last_newline: bool,
                                                  size: int) -> None:
    data = b"\n".join(lines) + (b"\n" if last_newline and lines else b"")
    chunks = all_chunks(data, size)
    assert all(c is not None for c in chunks)
    assert [line for c in chunks for line in c or []] == lines_of(data)


@given(st.lists(LINE, min_size=1, max_size=20), st.integers(1, 30), st.data())
def test_each_reader_of_two_finds_its_own_lines(lines: list[bytes], size: int,
                                                data: st.DataObject) -> None:
    """What the two readers of a copy do: reader k reads chunks k, k+2, ... through its own
    file handle; interleaved again, their chunks are the file's lines."""
    text = b"\n".join(lines) + b"\n"
    count = -(-len(text) // size)
    got: dict[int, list[bytes]] = {}
    for part in (1, 0):  # (in either order: each finds its chunks alone)
        fh = io.BytesIO(text)
        fh.seek(data.draw(st.integers(0, len(text))))  # wherever the handle was left
        for index in range(part, count, 2):
            chunk = line_chunk(fh, index, size, len(text), 1 << 30)
            assert chunk is not None
            got[index] = chunk
    assert [line for i in range(count) for line in got[i]] == lines


def test_a_line_past_the_limit_is_told_not_cut() -> None:
    data = b"short\n" + b"y" * 50 + b"\nend\n"
    chunks = all_chunks(data, 8, limit=20)
    assert None in chunks  # the chunk the long line starts in
    assert chunks[0] is None or chunks[0] == [b"short"]
    assert all_chunks(data, 8, limit=50)[0] == [b"short", b"y" * 50]


def test_no_line_starts_in_a_range_inside_a_long_line() -> None:
    data = b"a" * 30 + b"\nb\n"
    assert all_chunks(data, 10) == [[b"a" * 30], [], [], [b"b"]]

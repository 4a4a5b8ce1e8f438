"""A file's lines in byte ranges that several readers share without talking to each other
(issue 26: two processes parse a big JSONL input at once).

Chunk ``k`` of size ``size`` holds every line that *starts* in bytes ``[k*size, (k+1)*size)``;
a line that runs past the range's end belongs to the chunk it started in, so each reader finds
its chunks' lines from the file alone, and the chunks in order give every line once.
"""

from __future__ import annotations

from typing import BinaryIO

_MORE = 64 << 10  # read past a range's end in pieces this big, to the end of its last line


def line_chunk(fh: BinaryIO, index: int, size: int, file_size: int,
               limit: int) -> list[bytes] | None:
    """The lines (without their newlines) of chunk ``index`` of the file ``fh`` (``file_size``
    bytes); ``[]`` when no line starts in it (a long line covers it); None past the end of the
    file, or when a line of it is longer than ``limit`` bytes (the caller reads the file another
    way, for the message)."""
    begin = index * size
    if begin >= file_size:
        return None
    if index:
        fh.seek(begin - 1)  # the byte before: a newline there means a line starts at begin
        data = fh.read(size + 1)
        cut = data.find(b"\n", 0, size)
        if cut < 0:
            return []  # no line starts in this range
        body = data[cut + 1:]
    else:
        fh.seek(0)
        body = fh.read(size)
    if not body.endswith(b"\n") and begin + size < file_size:
        pieces = [body]
        got = len(body)
        while True:
            more = fh.read(_MORE)
            if not more:
                break
            end = more.find(b"\n")
            if end >= 0:
                pieces.append(more[:end])
                got += end
                break
            pieces.append(more)
            got += len(more)
            if got > limit:
                return None
        body = b"".join(pieces)
    lines = body.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    if any(len(line) > limit for line in lines):
        return None
    return lines

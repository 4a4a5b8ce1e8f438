"""Reading user-given files for the CLI: every failure becomes a one-line InputError."""

from __future__ import annotations

from citeview.core.files import decode_text, input_name, read_input


def read_bytes(path: str) -> bytes:
    """The bytes of ``path`` (standard input for ``-``; a pipe too), read once, within the
    size limit. Unlike a dataset, an empty file is fine: an answer without text has no
    citations."""
    return read_input(path)


def read_text(path: str) -> str:
    """Text of ``path`` (or standard input for ``-``), UTF-8; binary data is refused as soon
    as it is read."""
    return decode_text(read_input(path, text=True), input_name(path))

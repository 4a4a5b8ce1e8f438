"""Reading user-given files for the CLI: every failure becomes a one-line InputError."""

from __future__ import annotations

import os
import sys

from citeview.core.errors import InputError
from citeview.core.files import decode_text, read_file_bytes


def read_bytes(path: str) -> bytes:
    """The bytes of ``path`` (standard input for ``-``). Unlike a dataset, an empty file is
    fine: an answer without text has no citations."""
    if path == "-":
        return sys.stdin.buffer.read()
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a file")
    return read_file_bytes(path)  # the size limit and OS errors, as for every input


def read_text(path: str) -> str:
    """Text of ``path`` (or standard input for ``-``), UTF-8."""
    return decode_text(read_bytes(path), "<stdin>" if path == "-" else path)

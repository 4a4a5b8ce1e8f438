"""Reading user-given files for the CLI: every failure becomes a one-line InputError."""

from __future__ import annotations

import os
import sys

from citeview.core.errors import InputError

# Inputs larger than this are refused rather than read into memory (answers and cases are far
# smaller; a dataset is streamed, not read through here).
MAX_TEXT_BYTES = 512 * 1024 * 1024


def read_bytes(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a file")
    try:
        size = os.path.getsize(path)
        if size > MAX_TEXT_BYTES:
            raise InputError(f"{path}: file too large ({size} bytes)")
        with open(path, "rb") as fh:
            return fh.read()
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or err})") from None


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text (a BOM is dropped); binary or invalid UTF-8 raises InputError."""
    if b"\x00" in data[:8192]:
        raise InputError(f"{name}: binary file (contains NUL bytes), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{name}: invalid UTF-8 at byte {err.start}") from None
    return text.removeprefix("\ufeff")


def read_text(path: str) -> str:
    """Text of ``path`` (or standard input for ``-``), UTF-8."""
    return decode_text(read_bytes(path), "<stdin>" if path == "-" else path)

"""Reading a file the user gave: existence and permission checks, the size limit, the UTF-8 and
binary rules, and JSON syntax messages. Every failure is an :class:`InputError` with one line
naming the file (and the line).

The bottom of the input modules: :mod:`citeview.core.datasets` and :mod:`citeview.core.inputs`
read through these functions.
"""

from __future__ import annotations

import json
import os

from citeview.core.errors import InputError

# Single JSON documents larger than this are refused (a dataset should be JSONL, read lazily).
MAX_DOCUMENT_BYTES = 512 * 1024 * 1024


def check_file(path: str) -> bytes:
    """The first bytes of ``path``; missing, directory, unreadable and empty files fail here."""
    if not os.path.exists(path):
        raise InputError(f"{path}: no such file")
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory, not a file")
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or err})") from None
    if not head:
        raise InputError(f"{path}: file is empty (0 bytes)")
    return head


def read_file_bytes(path: str) -> bytes:
    """All bytes of an existing file; too large or unreadable raises a one-line InputError."""
    try:
        size = os.path.getsize(path)
        if size > MAX_DOCUMENT_BYTES:
            raise InputError(f"{path}: file too large ({size} bytes)")
        with open(path, "rb") as fh:
            return fh.read()
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as err:
        raise InputError(f"{path}: cannot read ({err.strerror or err})") from None


def decode_text(data: bytes, path: str | None, lineno: int | None = None) -> str:
    """UTF-8 text (a BOM is dropped) of a file or of one JSONL line; binary data or invalid
    UTF-8 raises a one-line InputError naming ``path`` (and the line)."""
    where = f"{path} line {lineno}" if lineno else f"{path}"
    if lineno is None and b"\x00" in data[:8192]:
        raise InputError(f"{where}: binary file (contains NUL bytes), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{where}: invalid UTF-8 at byte {err.start}") from None
    return text.removeprefix("\ufeff")


def read_text_file(path: str) -> str:
    """The text of a non-empty file, checked and decoded by the rules above."""
    check_file(path)
    return decode_text(read_file_bytes(path), path)


def json_error_message(path: str, err: json.JSONDecodeError, text: str) -> str:
    """The one-line message for a JSON syntax error in the file ``path`` holding ``text``."""
    # An unterminated string runs to the end of the file, so it is truncation too.
    if err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string"):
        return f"{path}: truncated JSON (the file ends before the value starting at line " \
            f"{_first_line(text)} is complete)"
    return f"{path}: invalid JSON at line {err.lineno} column {err.colno}: {err.msg}"


def extra_data_error(text: str, pos: int) -> json.JSONDecodeError:
    """The error for text after a complete JSON value (``pos`` is where the value ended)."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return json.JSONDecodeError("extra data after the JSON value", text, pos)


def _first_line(text: str) -> int:
    stripped = text.lstrip()
    return text[: len(text) - len(stripped)].count("\n") + 1

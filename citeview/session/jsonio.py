"""JSON text for the session package: what goes into the SQLite store and into every file the
session writes (export, rows, reports, agreement)."""

from __future__ import annotations

import json


def dumps_json(obj: object, indent: int | None = None) -> str:
    """Compact JSON (indented with ``indent``); falls back to ASCII escapes when text holds lone
    surrogates (which UTF-8, and so SQLite or an output file, cannot store) so that nothing is
    lost."""
    seps = (",", ":") if indent is None else None
    text = json.dumps(obj, ensure_ascii=False, indent=indent, separators=seps)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(obj, ensure_ascii=True, indent=indent, separators=seps)
    return text


_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def json_lines(objs: list[object]) -> str:
    """Each of ``objs`` as :func:`dumps_json` writes it, one a line (each line ending in a
    newline): one encoder and one UTF-8 check for them all (a case's export rows)."""
    text = "".join([_COMPACT.encode(obj) + "\n" for obj in objs])
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(dumps_json(obj) + "\n" for obj in objs)
    return text

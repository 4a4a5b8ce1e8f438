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

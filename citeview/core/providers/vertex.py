"""Gemini's ``citationMetadata`` of a candidate (recitation: text the model repeated from a
source). Vertex AI writes ``citations`` (``startIndex``, ``endIndex``, ``uri``, ``title``,
``license``, ``publicationDate``), the Gemini API ``citationSources``; the indices are UTF-8
bytes of the candidate's text (the answer). Sources are ``cite0``, ... by URI (or title)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from citeview.core.material import Source, SourceKind
from citeview.core.providers.model import (
    Problem,
    ProviderCitation,
    Reader,
    Utf8Offsets,
    whole_target,
)


def _get(obj: Mapping[str, Any], key: str) -> Any:
    snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
    return obj[key] if key in obj else obj.get(snake)


def _date(value: object) -> str | None:
    if isinstance(value, str):
        return value or None
    if isinstance(value, Mapping) and isinstance(value.get("year"), int):
        parts = [f"{value['year']:04d}"] + [f"{value[k]:02d}" for k in ("month", "day")
                                             if isinstance(value.get(k), int) and value[k]]
        return "-".join(parts)
    return None


def citation_metadata(r: Reader, cand: Mapping[str, Any], answer: str, where: str
                      ) -> tuple[list[Source], list[ProviderCitation]]:
    """The sources and citations of ``cand``'s ``citationMetadata`` (none when absent)."""
    meta = _get(cand, "citationMetadata")
    if meta is None:
        return [], []
    mw = f"{where}.citationMetadata"
    meta = r.obj(meta, mw)
    key = "citations" if "citations" in meta else "citationSources"
    items = r.items(meta, key, mw, alt="citation_sources")
    offsets = Utf8Offsets(answer)
    by_key: dict[str, Source] = {}
    citations: list[ProviderCitation] = []
    for k, cit in enumerate(items):
        cw = f"{mw}.{key}[{k}]"
        cit = r.obj(cit, cw)
        uri = r.text(cit, "uri", cw, required=False)
        title = r.text(cit, "title", cw, required=False)
        ident = uri or title or f"citation {k}"
        src = by_key.get(ident)
        if src is None:
            info = [(label, v) for label, v in (
                ("License", r.text(cit, "license", cw, required=False)),
                ("Published", _date(_get(cit, "publicationDate")))) if v]
            src = by_key[ident] = Source(f"cite{len(by_key)}", SourceKind.WEB if uri
                                         else SourceKind.DOCUMENT, "", title=title or None,
                                         url=uri or None, metadata=info, origin="recitation")
        problems: list[Problem] = []
        a = r.number(cit, "startIndex", cw, default=0, alt="start_index")
        b = r.number(cit, "endIndex", cw, default=offsets.size, alt="end_index")
        wrong = []
        if a > b:
            wrong.append(f"bytes {a}-{b} are a reversed range")
            a, b = b, a
        if a < 0 or b > offsets.size:
            wrong.append(f"bytes {a}-{b} are outside the answer ({offsets.size} bytes)")
        if wrong:
            problems.append(Problem("CV601", f"citation: {'; '.join(wrong)}"))
        a, b = max(0, min(a, offsets.size)), max(0, min(b, offsets.size))
        s, s_ok = offsets.to_code_point(a)
        e, e_ok = offsets.to_code_point(b, round_up=True)
        if not (s_ok and e_ok):
            problems.append(Problem("CV602", f"citation: bytes {a}-{b} cut a multi-byte "
                                    "character"))
        target = whole_target(src, "a source the answer recites (the page text is not in the "
                              "response)", unit="url" if uri else "whole")
        citations.append(ProviderCitation("citation_source", (s, e), (target,), problems,
                                          detail=f"bytes {a}-{b}"))
    return list(by_key.values()), citations


__all__ = ["citation_metadata"]

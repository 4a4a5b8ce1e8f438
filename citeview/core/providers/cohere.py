"""Cohere's v2 Chat API: ``message.citations`` of a chat response.

The answer is the text parts of ``message.content`` joined. A citation's claim is ``start`` to
``end`` (code points of the answer, or of content item ``content_index`` when it is given;
citations of thinking or the plan are left out). Its ``text`` is the provider's copy of that
span: when the answer there differs, the copy is looked for nearby (CV603 either way). Each of
its ``sources`` is a ``document`` (the document's fields as its text) or a ``tool`` result (its
output), cited whole: Cohere does not say where in the source. Sources keep Cohere's ids
(``doc:0`` shown as ``doc0``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from citeview.core.material import Source, SourceKind
from citeview.core.providers.model import (
    Problem,
    ProviderCitation,
    ProviderReading,
    Reader,
    clamp_span,
    clip,
    norm_ws,
    text_source,
    whole_target,
)

PROVIDER = "cohere"
_BAD_ID_RE = re.compile(r"[^A-Za-z0-9_-]+")


def is_cohere(obj: Mapping[str, Any]) -> bool:
    message = obj.get("message")
    return (isinstance(message, Mapping) and isinstance(message.get("content"), list)
            and ("finish_reason" in obj or "citations" in message))


def _fields_text(fields: Mapping[str, Any]) -> str:
    """A document's or tool output's text: its ``text``/``snippet``, else each other field
    on its own line (``title: ...``)."""
    for key in ("text", "snippet", "content"):
        if isinstance(fields.get(key), str):
            return str(fields[key])
    lines = []
    for key, value in fields.items():
        if key == "id":
            continue
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {shown}")
    return "\n".join(lines)


class _Sources:
    def __init__(self) -> None:
        self.by_id: dict[str, Source] = {}

    def get(self, r: Reader, found: Mapping[str, Any], where: str) -> Source:
        kind = r.text(found, "type", where, required=False) or "document"
        fields = found.get("document") if kind == "document" else found.get("tool_output")
        fields = r.obj(fields, f"{where}.{'document' if kind == 'document' else 'tool_output'}"
                       ) if fields is not None else {}
        raw_id = r.text(found, "id", where, required=False) or str(fields.get("id") or "")
        key = raw_id or f"{kind}{len(self.by_id)}"
        src = self.by_id.get(key)
        if src is not None:
            return src
        sid = _BAD_ID_RE.sub("", key) or f"source{len(self.by_id)}"
        while any(s.id == sid for s in self.by_id.values()):
            sid += "_"
        text = _fields_text(fields).replace("\r\n", "\n").replace("\r", "\n")
        title = fields.get("title") if isinstance(fields.get("title"), str) else None
        url = fields.get("url") if isinstance(fields.get("url"), str) else None
        meta = [("Cohere id", raw_id)] if raw_id and raw_id != sid else []
        src = text_source(sid, SourceKind.DOCUMENT,
                          text, title=title, url=url, metadata=meta,
                          origin="documents" if kind == "document" else "tool result")
        self.by_id[key] = src
        return src


def read_cohere(obj: object) -> ProviderReading:
    """A v2 chat response (``{"id", "finish_reason", "message": {...}}``)."""
    r = Reader("Cohere response")
    top = r.obj(obj, "")
    message = r.obj(top.get("message"), "message")
    parts = []
    starts: dict[int, tuple[int, int]] = {}  # content index of a text part -> its span
    pos = 0
    for k, part in enumerate(r.items(message, "content", "message", required=True)):
        part = r.obj(part, f"message.content[{k}]")
        if part.get("type", "text") == "text":
            text = r.text(part, "text", f"message.content[{k}]")
            assert text is not None
            parts.append(text)
            starts[k] = (pos, len(text))
            pos += len(text)
    if not parts:
        raise r.fail("message.content", "has no text part (no answer)")
    answer = "".join(parts)
    sources = _Sources()
    citations: list[ProviderCitation] = []
    for k, cit in enumerate(r.items(message, "citations", "message")):
        cw = f"message.citations[{k}]"
        cit = r.obj(cit, cw)
        if cit.get("type") in ("THINKING_CONTENT", "PLAN"):
            continue  # cites the model's thinking or plan, not the answer
        problems: list[Problem] = []
        start = r.number(cit, "start", cw)
        end = r.number(cit, "end", cw)
        base, size = 0, len(answer)
        if cit.get("content_index") is not None:  # offsets into that content item
            index = r.number(cit, "content_index", cw)
            if index not in starts:
                continue  # not a text item of the answer
            base, size = starts[index]
        s, e, wrong = clamp_span(start, end, size)
        s, e = base + s, base + e
        if wrong:
            problems.append(Problem("CV601", f"citation: {wrong}"))
        copy = r.text(cit, "text", cw, required=False)
        if copy is not None and norm_ws(answer[s:e]) != norm_ws(copy):
            near = _nearest(answer, copy, s)
            problems.append(Problem("CV603", f"citation text \u00ab{clip(copy)}\u00bb is not the "
                                    f"answer at {start}-{end} (\u00ab{clip(answer[s:e])}\u00bb)"
                                    + ("; found nearby, used" if near is not None else "")))
            if near is not None:
                s, e = near, near + len(copy)
        targets = []
        for j, found in enumerate(r.items(cit, "sources", cw)):
            sw = f"{cw}.sources[{j}]"
            src = sources.get(r, r.obj(found, sw), sw)
            targets.append(whole_target(src, "cited whole (Cohere does not say where in the "
                                        "source)"))
        if targets:
            citations.append(ProviderCitation("citation", (s, e), tuple(targets), problems,
                                              detail=f"characters {start}-{end}"))
    return ProviderReading(PROVIDER, answer, list(sources.by_id.values()), citations)


def _nearest(answer: str, copy: str, at: int) -> int | None:
    """The start of the occurrence of ``copy`` in ``answer`` nearest to ``at``."""
    if not copy:
        return None
    best: int | None = None
    pos = answer.find(copy)
    while pos >= 0:
        if best is None or abs(pos - at) < abs(best - at):
            best = pos
        pos = answer.find(copy, pos + 1)
    return best


__all__ = ["PROVIDER", "is_cohere", "read_cohere"]

"""Google's Gemini Interactions API: an interaction's ``outputs``.

The answer is the ``text`` outputs joined (thoughts and tool calls left out). A text output's
``annotations`` each attribute ``start_index``-``end_index`` (UTF-8 bytes of that output's
text, end exclusive) to a ``source`` (a URL, a title or another identifier); newer outputs
write ``url``/``title`` instead. Sources are numbered ``src0``, ... by first use; the results of
``google_search_result`` outputs are listed too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from citeview.core.material import Source, SourceKind
from citeview.core.providers.model import (
    Problem,
    ProviderCitation,
    ProviderReading,
    Reader,
    Utf8Offsets,
    whole_target,
)

PROVIDER = "gemini-interactions"


def is_interaction(obj: Mapping[str, Any]) -> bool:
    outputs = obj.get("outputs")
    return isinstance(outputs, list) and (
        obj.get("object") == "interaction" or "status" in obj
        or any(isinstance(o, Mapping) and o.get("type") == "text" for o in outputs))


class _Sources:
    def __init__(self) -> None:
        self.by_key: dict[str, Source] = {}

    def get(self, key: str, title: str | None) -> Source:
        src = self.by_key.get(key)
        if src is None:
            is_url = key.startswith(("http://", "https://"))
            src = Source(f"src{len(self.by_key)}", SourceKind.WEB if is_url else
                         SourceKind.DOCUMENT, "", title=title or (None if is_url else key),
                         url=key if is_url else None, origin="grounding")
            self.by_key[key] = src
        elif title and not src.title:
            src.title = title
        return src


def read_interaction(obj: object) -> ProviderReading:
    """An interaction (``{"id", "status", "outputs": [...]}``)."""
    r = Reader("Gemini interaction")
    top = r.obj(obj, "")
    outputs = r.items(top, "outputs", "", required=True)
    sources = _Sources()
    for k, out in enumerate(outputs):
        out = r.obj(out, f"outputs[{k}]")
        if out.get("type") == "google_search_result":
            for j, res in enumerate(r.items(out, "result", f"outputs[{k}]")):
                res = r.obj(res, f"outputs[{k}].result[{j}]")
                url = r.text(res, "url", f"outputs[{k}].result[{j}]", required=False)
                if url:
                    sources.get(url, r.text(res, "title", f"outputs[{k}].result[{j}]",
                                            required=False))
    parts: list[str] = []
    pos = 0
    citations: list[ProviderCitation] = []
    for k, out in enumerate(outputs):
        ow = f"outputs[{k}]"
        if out.get("type") != "text":
            continue
        text = r.text(out, "text", ow)
        assert text is not None
        offsets = Utf8Offsets(text)
        for j, ann in enumerate(r.items(out, "annotations", ow)):
            aw = f"{ow}.annotations[{j}]"
            ann = r.obj(ann, aw)
            problems: list[Problem] = []
            key = r.text(ann, "source", aw, required=False) or \
                r.text(ann, "url", aw, required=False)
            if not key:
                raise r.fail(aw, "has no source")
            a = r.number(ann, "start_index", aw, default=0)
            b = r.number(ann, "end_index", aw, default=offsets.size)
            wrong = []
            if a > b:
                wrong.append(f"bytes {a}-{b} are a reversed range")
                a, b = b, a
            if a < 0 or b > offsets.size:
                wrong.append(f"bytes {a}-{b} are outside the text ({offsets.size} bytes)")
            if wrong:
                problems.append(Problem("CV601", f"annotation: {'; '.join(wrong)}"))
            a, b = max(0, min(a, offsets.size)), max(0, min(b, offsets.size))
            s, s_ok = offsets.to_code_point(a)
            e, e_ok = offsets.to_code_point(b, round_up=True)
            if not (s_ok and e_ok):
                problems.append(Problem("CV602", f"annotation: bytes {a}-{b} cut a multi-byte "
                                        "character"))
            src = sources.get(key, r.text(ann, "title", aw, required=False))
            target = whole_target(src, "web result: the URL (the page text is not in the "
                                  "response)" if src.url else "the source as the provider "
                                  "names it", unit="url" if src.url else "whole")
            citations.append(ProviderCitation("annotation", (pos + s, pos + e), (target,),
                                              problems, detail=f"bytes {a}-{b} of output {k}"))
        parts.append(text)
        pos += len(text)
    if not parts:
        raise r.fail("outputs", "has no text output (no answer)")
    return ProviderReading(PROVIDER, "".join(parts), list(sources.by_key.values()), citations)


__all__ = ["PROVIDER", "is_interaction", "read_interaction"]

"""Google's Gemini Interactions API: an interaction's text and its annotations.

Two generations of the resource are read. The first lists ``outputs``: the answer is its
``text`` outputs joined (thoughts and tool calls left out), each with ``annotations`` that
attribute ``start_index``-``end_index`` to a ``source`` (a URL, a title or another identifier);
``google_search_result`` outputs list results (``url``, ``title``). The later one lists typed
``steps``: the answer is the text content of the last ``model_output`` step, its annotations
typed ``url_citation`` (``url``, ``title``), ``file_citation`` (``document_uri``,
``file_name``, ``page_number``) or ``place_citation`` (``name``, ``url``); pages read by
``url_context_result`` steps are listed as sources too. Indices are UTF-8
bytes of their text item's text, end exclusive. Sources are ``src0``, ... by first use.
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
    if isinstance(outputs, list) and (
            obj.get("object") == "interaction" or "status" in obj
            or any(isinstance(o, Mapping) and o.get("type") == "text" for o in outputs)):
        return True
    steps = obj.get("steps")
    return isinstance(steps, list) and (
        obj.get("object") == "interaction"
        or any(isinstance(o, Mapping) and o.get("type") == "model_output" for o in steps))


def _text_items(r: Reader, top: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """The answer's text items and where each is (see the module docstring)."""
    if "outputs" in top:
        items = r.items(top, "outputs", "", required=True)
        found = [(f"outputs[{k}]", r.obj(o, f"outputs[{k}]")) for k, o in enumerate(items)]
        return [(w, o) for w, o in found if o.get("type") == "text"]
    steps = r.items(top, "steps", "", required=True)
    for k in range(len(steps) - 1, -1, -1):
        step = r.obj(steps[k], f"steps[{k}]")
        if step.get("type") != "model_output":
            continue
        content = r.items(step, "content", f"steps[{k}]")
        texts = [(f"steps[{k}].content[{j}]", r.obj(c, f"steps[{k}].content[{j}]"))
                 for j, c in enumerate(content)]
        texts = [(w, c) for w, c in texts if c.get("type") == "text"]
        if texts:
            return texts
    return []


def _named(r: Reader, ann: Mapping[str, Any], where: str) -> tuple[str, str | None, list[
        tuple[str, str]]]:
    """What an annotation cites: (its key: a URL or a name, its title, metadata)."""
    kind = ann.get("type")
    meta: list[tuple[str, str]] = []
    if kind == "file_citation":
        key = r.text(ann, "document_uri", where, required=False) or \
            r.text(ann, "file_name", where, required=False) or \
            r.text(ann, "source", where, required=False)
        title = r.text(ann, "file_name", where, required=False)
        page = ann.get("page_number")
        if isinstance(page, int) and not isinstance(page, bool):
            meta.append(("Page", str(page)))
    elif kind == "place_citation":
        key = r.text(ann, "url", where, required=False) or \
            r.text(ann, "place_id", where, required=False)
        title = r.text(ann, "name", where, required=False)
    else:
        key = r.text(ann, "source", where, required=False) or \
            r.text(ann, "url", where, required=False)
        title = r.text(ann, "title", where, required=False)
    if not key:
        raise r.fail(where, "names no source (source, url, document_uri or file_name)")
    return key, title, meta


class _Sources:
    def __init__(self) -> None:
        self.by_key: dict[str, Source] = {}

    def get(self, key: str, title: str | None, meta: list[tuple[str, str]] | None = None
            ) -> Source:
        src = self.by_key.get(key)
        if src is None:
            is_url = key.startswith(("http://", "https://"))
            src = Source(f"src{len(self.by_key)}", SourceKind.WEB if is_url else
                         SourceKind.DOCUMENT, "", title=title or (None if is_url else key),
                         url=key if is_url else None, metadata=list(meta or ()),
                         origin="grounding")
            self.by_key[key] = src
        elif title and not src.title:
            src.title = title
        return src


def read_interaction(obj: object) -> ProviderReading:
    """An interaction (``{"id", "status", "outputs": [...]}``)."""
    r = Reader("Gemini interaction")
    top = r.obj(obj, "")
    outputs = r.items(top, "outputs", "") if "outputs" in top else []
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
    for k, step in enumerate(r.items(top, "steps", "") if "steps" in top else []):
        step = r.obj(step, f"steps[{k}]")
        if step.get("type") == "url_context_result" and isinstance(step.get("result"), Mapping):
            url = r.text(step["result"], "url", f"steps[{k}].result", required=False)
            if url:
                sources.get(url, None)  # a page the model read: listed, cited or not
    parts: list[str] = []
    pos = 0
    citations: list[ProviderCitation] = []
    for ow, out in _text_items(r, top):
        text = r.text(out, "text", ow)
        assert text is not None
        offsets = Utf8Offsets(text)
        for j, ann in enumerate(r.items(out, "annotations", ow)):
            aw = f"{ow}.annotations[{j}]"
            ann = r.obj(ann, aw)
            problems: list[Problem] = []
            key, title, meta = _named(r, ann, aw)
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
            src = sources.get(key, title, meta)
            target = whole_target(src, "web result: the URL (the page text is not in the "
                                  "response)" if src.url else "the source as the provider "
                                  "names it", unit="url" if src.url else "whole")
            kind = ann.get("type")
            citations.append(ProviderCitation(kind if isinstance(kind, str) and kind
                                              else "annotation", (pos + s, pos + e), (target,),
                                              problems, detail=f"bytes {a}-{b} of {ow}"))
        parts.append(text)
        pos += len(text)
    if not parts:
        raise r.fail("outputs" if "outputs" in top else "steps",
                     "has no text output (no answer)")
    return ProviderReading(PROVIDER, "".join(parts), list(sources.by_key.values()), citations)


__all__ = ["PROVIDER", "is_interaction", "read_interaction"]

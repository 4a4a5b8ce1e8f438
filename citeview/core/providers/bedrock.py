"""AWS Bedrock's Converse API: ``citationsContent`` blocks of ``output.message.content``.

The answer is the message's ``text`` blocks and the generated ``content`` text of its
``citationsContent`` blocks, joined in order. A citations block's claim is its generated text
(whitespace at its ends left out); each of its ``citations`` names a document of the request by
``location`` (``documentChar``, ``documentPage`` or ``documentChunk``: ``documentIndex``,
``start``, ``end``) and quotes it in ``sourceContent``. The documents are not in the response:
each is a source (``doc0``, ...) made of the quotes, shown as the provider's cited text, not
checked (CV608). A citation without a location is a CV610 finding on it alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from citeview.core.material import Source, SourceKind
from citeview.core.providers.model import (
    Excerpts,
    Problem,
    ProviderCitation,
    ProviderReading,
    Reader,
    missing_target,
    trim_span,
)
from citeview.core.resolution import Status, Target

PROVIDER = "bedrock"
_LOCATIONS = {"documentChar": "chars", "documentPage": "pages", "documentChunk": "blocks"}


def is_bedrock(obj: Mapping[str, Any]) -> bool:
    output = obj.get("output")
    return (isinstance(output, Mapping) and isinstance(output.get("message"), Mapping)
            and isinstance(output["message"].get("content"), list))


def read_bedrock(obj: object) -> ProviderReading:
    """A Converse response (``{"output": {"message": ...}, "stopReason", ...}``)."""
    r = Reader("Bedrock Converse response")
    top = r.obj(obj, "")
    message = r.obj(r.obj(top.get("output"), "output").get("message"), "output.message")
    parts: list[str] = []
    pos = 0
    docs: dict[int, tuple[Source, Excerpts]] = {}
    citations: list[ProviderCitation] = []
    for k, block in enumerate(r.items(message, "content", "output.message", required=True)):
        bw = f"output.message.content[{k}]"
        block = r.obj(block, bw)
        if isinstance(block.get("text"), str):
            parts.append(block["text"])
            pos += len(block["text"])
            continue
        cc = block.get("citationsContent")
        if cc is None:
            continue
        cw = f"{bw}.citationsContent"
        cc = r.obj(cc, cw)
        generated = []
        for j, piece in enumerate(r.items(cc, "content", cw)):
            text = r.text(r.obj(piece, f"{cw}.content[{j}]"), "text", f"{cw}.content[{j}]")
            assert text is not None
            generated.append(text)
        text = "".join(generated)
        s, e = trim_span(text, 0, len(text))
        claim = (pos + s, pos + e)
        parts.append(text)
        pos += len(text)
        for j, cit in enumerate(r.items(cc, "citations", cw)):
            iw = f"{cw}.citations[{j}]"
            target, problems = _target(r, r.obj(cit, iw), iw, docs)
            citations.append(ProviderCitation("citation", claim, (target,), problems))
    if not parts:
        raise r.fail("output.message.content", "has no text (no answer)")
    sources = [docs[i][0] for i in sorted(docs)]
    return ProviderReading(PROVIDER, "".join(parts), sources, citations)


def _target(r: Reader, cit: Mapping[str, Any], where: str,
            docs: dict[int, tuple[Source, Excerpts]]) -> tuple[Target, list[Problem]]:
    problems: list[Problem] = []
    title = r.text(cit, "title", where, required=False)
    quotes = []
    for k, sc in enumerate(r.items(cit, "sourceContent", where)):
        q = r.text(r.obj(sc, f"{where}.sourceContent[{k}]"), "text",
                   f"{where}.sourceContent[{k}]", required=False)
        if q:
            quotes.append(q)
    cited = "\n".join(quotes) or None
    location = cit.get("location")
    loc = r.obj(location, f"{where}.location") if location is not None else {}
    kind = next((key for key in _LOCATIONS if key in loc), None)
    if kind is None:
        problems.append(Problem("CV610", "citation without a location (documentChar, "
                                "documentPage or documentChunk): which document it cites is "
                                "unknown"))
        return missing_target("doc-unknown", "no location", cited_text=cited), problems
    lw = f"{where}.location.{kind}"
    inner = r.obj(loc[kind], lw)
    unit = _LOCATIONS[kind]
    if inner.get("documentIndex") is None or inner.get("start") is None \
            or inner.get("end") is None:
        lacking = [key for key in ("documentIndex", "start", "end") if inner.get(key) is None]
        problems.append(Problem("CV610", f"{kind} without {' and '.join(lacking)}"))
        if "documentIndex" in lacking:
            return missing_target("doc-unknown", f"{kind} without documentIndex", unit=unit,
                                  cited_text=cited), problems
    idx = r.number(inner, "documentIndex", lw)
    a = r.number(inner, "start", lw, default=-1)
    b = r.number(inner, "end", lw, default=-1)
    if idx < 0:
        problems.append(Problem("CV605", f"{kind}: documentIndex {idx} is not a document"))
        return missing_target(f"doc{idx}", f"document {idx}", unit=unit,
                              cited_text=cited), problems
    found = docs.get(idx)
    if found is None:
        src = Source(f"doc{idx}", SourceKind.DOCUMENT, "", title=title or None,
                     metadata=[("Note", "not in the response: the provider's cited text")],
                     origin="response")
        found = docs[idx] = (src, Excerpts(src))
    src, excerpts = found
    if src.title is None and title:
        src.title = title
    span = excerpts.add(cited) if cited else None
    label = {"chars": "characters", "pages": "pages", "blocks": "chunks"}[unit]
    where_cited = f"{label} {a}-{b}" if a >= 0 and b >= 0 else label
    problems.append(Problem("CV608", f"{kind} of document {idx} ({where_cited}): the document is "
                            "not in the response; the provider's cited text is shown, not "
                            "checked"))
    return Target(src.id, src, Status.UNCHECKED, (), span,
                  f"{where_cited}: showing the provider's cited text, which could not be "
                  "checked", unit=unit, cited_text=cited,
                  pages=(a, b) if unit == "pages" and a >= 0 and b >= 0 else None,
                  blocks=(a, b) if unit == "blocks" and a >= 0 and b >= 0 else None), problems


__all__ = ["PROVIDER", "is_bedrock", "read_bedrock"]

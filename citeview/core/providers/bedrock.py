"""AWS Bedrock's Converse API: ``citationsContent`` blocks of ``output.message.content``.

The answer is the message's ``text`` blocks and the generated ``content`` text of its
``citationsContent`` blocks, joined in order. A citations block's claim is its generated text
(whitespace at its ends left out); each of its ``citations`` names a document of the request by
``location`` (``documentChar``, ``documentPage`` or ``documentChunk``: ``documentIndex``,
``start``, ``end``), a ``web`` page (``url``: ``web0``, ...) or a ``searchResultLocation``
(``result0``, ...), and quotes it in ``sourceContent``. A citation without a location is a
CV610 finding on it alone.

With the request beside the response (``{"request": ..., "response": ...}``), its ``document``
blocks are the sources (``doc0``, ... in order): a ``documentChar`` citation of a text document
(``source.text``, or ``source.bytes`` of a txt/md/csv/html document) is checked there, its
characters ``start`` to ``end`` (end exclusive) against the quote (CV604, CV601, CV605).
Otherwise the document is made of the quotes, shown as the provider's cited text, not checked
(CV608).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from citeview.core.material import Source, SourceKind
from citeview.core.providers.model import (
    BreakMap,
    Excerpts,
    Problem,
    ProviderCitation,
    ProviderReading,
    Reader,
    clamp_span,
    clip,
    missing_target,
    norm_ws,
    text_source,
    trim_span,
)
from citeview.core.providers.pdf import decode_base64
from citeview.core.resolution import Status, Target

PROVIDER = "bedrock"
_LOCATIONS = {"documentChar": "chars", "documentPage": "pages", "documentChunk": "blocks"}
_TEXT_FORMATS = ("txt", "md", "csv", "html")
_RESULT, _WEB = 1 << 40, 1 << 41  # keys of search results and web pages among the documents


@dataclass(slots=True)
class _Doc:
    """A document of the request (its text when it is a text document), or one the response
    alone shows (made of the quotes)."""

    source: Source
    breaks: BreakMap | None = None
    excerpts: Excerpts | None = None


def _request_docs(r: Reader, request: object | None) -> list[_Doc]:
    docs: list[_Doc] = []
    if request is None:
        return docs
    req = r.obj(request, "request")
    for m, message in enumerate(r.items(req, "messages", "request")):
        mw = f"request.messages[{m}]"
        content = r.obj(message, mw).get("content")
        if not isinstance(content, list):
            continue
        for k, block in enumerate(content):
            bw = f"{mw}.content[{k}]"
            doc = r.obj(block, bw).get("document")
            if doc is None:
                continue
            dw = f"{bw}.document"
            doc = r.obj(doc, dw)
            name = r.text(doc, "name", dw, required=False)
            fmt = (r.text(doc, "format", dw, required=False) or "").lower()
            source = r.obj(doc.get("source"), f"{dw}.source")
            text: str | None = None
            if isinstance(source.get("text"), str):
                text = source["text"]
            elif fmt in _TEXT_FORMATS and isinstance(source.get("bytes"), str):
                raw = decode_base64(source["bytes"])
                try:
                    text = raw.decode("utf-8") if raw is not None else None
                except UnicodeDecodeError:
                    text = None
            sid = f"doc{len(docs)}"
            meta = [("Format", fmt)] if fmt else []
            if text is not None:
                breaks = BreakMap(text)
                docs.append(_Doc(text_source(sid, SourceKind.DOCUMENT, breaks.text, title=name,
                                             metadata=meta, origin="request"), breaks=breaks))
            else:
                src = Source(sid, SourceKind.DOCUMENT, "", title=name or None,
                             metadata=meta + [("Note", "its text is not in the request: the "
                                               "provider's cited text")], origin="request")
                docs.append(_Doc(src, excerpts=Excerpts(src)))
    return docs


def is_bedrock(obj: Mapping[str, Any]) -> bool:
    output = obj.get("output")
    return (isinstance(output, Mapping) and isinstance(output.get("message"), Mapping)
            and isinstance(output["message"].get("content"), list))


def read_bedrock(obj: object, request: object | None = None) -> ProviderReading:
    """A Converse response (``{"output": {"message": ...}, "stopReason", ...}``), with the
    request that holds the cited documents if given."""
    r = Reader("Bedrock Converse response")
    top = r.obj(obj, "")
    message = r.obj(r.obj(top.get("output"), "output").get("message"), "output.message")
    parts: list[str] = []
    pos = 0
    given = _request_docs(r, request)
    docs: dict[int, _Doc] = dict(enumerate(given))
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
            target, problems = _target(r, r.obj(cit, iw), iw, docs, request is not None)
            citations.append(ProviderCitation("citation", claim, (target,), problems))
    if not parts:
        raise r.fail("output.message.content", "has no text (no answer)")
    sources = [docs[i].source for i in sorted(docs)]
    return ProviderReading(PROVIDER, "".join(parts), sources, citations)


def _target(r: Reader, cit: Mapping[str, Any], where: str, docs: dict[int, _Doc],
            have_request: bool) -> tuple[Target, list[Problem]]:
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
    if kind is None and isinstance(loc.get("web"), Mapping):
        return _web_target(r, loc["web"], f"{where}.location.web", docs, title, cited), problems
    if kind is None and isinstance(loc.get("searchResultLocation"), Mapping):
        lw = f"{where}.location.searchResultLocation"
        idx = r.number(loc["searchResultLocation"], "searchResultIndex", lw, default=-1)
        key = _RESULT + idx  # search results kept apart from documents
        found = docs.get(key)
        if found is None:
            src = Source(f"result{idx}", SourceKind.DOCUMENT, "", title=title or None,
                         metadata=[("Note", "a search result: the provider's cited text")],
                         origin="search result")
            found = docs[key] = _Doc(src, excerpts=Excerpts(src))
        assert found.excerpts is not None
        span = found.excerpts.add(cited) if cited else None
        problems.append(Problem("CV608", f"search result {idx}: its text is not in the "
                                "response; the provider's cited text is shown, not checked"))
        return Target(found.source.id, found.source, Status.UNCHECKED, (), span,
                      "a search result: showing the provider's cited text, which could not be "
                      "checked", unit="blocks", cited_text=cited), problems
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
    if idx < 0 or (have_request and idx not in docs):
        count = len(docs) if have_request else 0
        problems.append(Problem("CV605", f"{kind}: documentIndex {idx} does not exist (the "
                                f"request has {count} document{'s' if count != 1 else ''})"))
        return missing_target(f"doc{idx}", f"document {idx} is not in the request", unit=unit,
                              cited_text=cited), problems
    found = docs.get(idx)
    if found is None:
        src = Source(f"doc{idx}", SourceKind.DOCUMENT, "", title=title or None,
                     metadata=[("Note", "not in the response: the provider's cited text")],
                     origin="response")
        found = docs[idx] = _Doc(src, excerpts=Excerpts(src))
    src = found.source
    if src.title is None and title:
        src.title = title
    label = {"chars": "characters", "pages": "pages", "blocks": "chunks"}[unit]
    where_cited = f"{label} {a}-{b}" if a >= 0 and b >= 0 else label
    if found.breaks is not None and unit == "chars" and a >= 0 and b >= 0:
        return _char_target(found, a, b, cited, kind, problems), problems
    if found.excerpts is not None:  # the document's text is not known: its quotes shown
        span = found.excerpts.add(cited) if cited else None
        reason = ("the document's text is not in the request" if have_request
                  else "the document is not in the response")
    else:  # a text document cited by page or chunk: the quote shown where it is found
        at = src.text.find(cited.strip()) if cited and cited.strip() else -1
        span = (at, at + len(cited.strip())) if cited and at >= 0 else None
        reason = f"a text document's {label} are not known here"
    problems.append(Problem("CV608", f"{kind} of document {idx} ({where_cited}): {reason}; the "
                            "provider's cited text is shown, not checked"))
    return Target(src.id, src, Status.UNCHECKED, (), span,
                  f"{where_cited}: showing the provider's cited text, which could not be "
                  "checked", unit=unit, cited_text=cited,
                  pages=(a, b) if unit == "pages" and a >= 0 and b >= 0 else None,
                  blocks=(a, b) if unit == "blocks" and a >= 0 and b >= 0 else None), problems


def _web_target(r: Reader, web: Mapping[str, Any], where: str, docs: dict[int, _Doc],
                title: str | None, cited: str | None) -> Target:
    """A ``web`` location: the page's URL, its quote shown as the provider's excerpt."""
    url = r.text(web, "url", where)
    assert url is not None
    seen = {d.source.url: k for k, d in docs.items() if k >= _WEB}  # web sources, numbered
    key = seen.get(url)
    if key is None:
        key = _WEB + len(seen)
        domain = r.text(web, "domain", where, required=False)
        src = Source(f"web{len(seen)}", SourceKind.WEB, "", title=title or None, url=url,
                     metadata=[("Domain", domain)] if domain else [], origin="web search")
        docs[key] = _Doc(src, excerpts=Excerpts(src))
    found = docs[key]
    assert found.excerpts is not None
    span = found.excerpts.add(cited) if cited else None
    return Target(found.source.id, found.source, Status.OK if span else Status.WHOLE_SOURCE,
                  (), span, "web result: the provider's excerpt (the page is not in the "
                  "response)" if span else "web result: the URL", unit="url", cited_text=cited)


def _char_target(doc: _Doc, a: int, b: int, cited: str | None, kind: str,
                 problems: list[Problem]) -> Target:
    """A documentChar citation of a text document of the request: checked against its quote."""
    assert doc.breaks is not None
    src = doc.source
    s, e, wrong = clamp_span(a, b, len(doc.breaks.raw))
    span = (doc.breaks.to_text(s), doc.breaks.to_text(e))
    label = f"characters {a}-{b}"
    if wrong:
        problems.append(Problem("CV601", f"{kind}: {wrong} of {src.id}"))
        return Target(src.id, src, Status.BAD_LOCATION, (), span if span[1] > span[0] else None,
                      f"{label}: {wrong}", unit="chars", cited_text=cited)
    if cited is not None and norm_ws(cited) != norm_ws(src.text[span[0]:span[1]]):
        differs = (f"the provider's cited text \u00ab{clip(cited)}\u00bb is not the document "
                   "text there")
        problems.append(Problem("CV604", f"{kind} in {src.id}: {differs}"))
        return Target(src.id, src, Status.MISMATCH, (), span, f"{label}: {differs}",
                      unit="chars", cited_text=cited)
    return Target(src.id, src, Status.OK, (), span, label, unit="chars", cited_text=cited)


__all__ = ["PROVIDER", "is_bedrock", "read_bedrock"]

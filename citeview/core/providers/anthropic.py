"""Anthropic Messages API: ``citations`` of ``text`` blocks.

The answer is the text blocks joined; a citation's claim is its whole text block (whitespace
at its ends left out). Citation types: ``char_location`` (characters of a text document),
``page_location`` (pages of a PDF, 1-based, end exclusive), ``content_block_location`` (blocks
of a custom-content document, 0-based, end exclusive), ``search_result_location`` (blocks of a
search result of the request), ``web_search_result_location`` (a web result: the URL and the
provider's excerpt). Pages fetched by the web fetch tool are sources (``fetch0``, ...). A
citation without its index or offsets is a CV610 finding on that citation alone.
Documents and search results are numbered in the order the request gives
them (``doc0``, ``result0``); web results in the order of the response (``web0``).

The cited documents are in the request: without it (or for a PDF whose text cannot be read)
a citation is shown with the provider's ``cited_text`` and marked as not checked (CV608). With
it, ``cited_text`` is compared with the document text at the location (CV604).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
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
from citeview.core.providers.pdf import PdfText, decode_base64, pdf_page_texts
from citeview.core.resolution import Status, Target

PROVIDER = "anthropic"
_DOC_TYPES = ("char_location", "page_location", "content_block_location")


@dataclass(slots=True)
class _Doc:
    """A document or search result of the request, as far as it could be read."""

    source: Source
    kind: str  # text, pdf, content, opaque
    breaks: BreakMap | None = None
    pages: tuple[str, ...] | None = None  # PDF page texts ("" : no text layer)
    unread: frozenset[int] = frozenset()  # PDF pages with too much text to read (1-based)
    blocks: list[str] = field(default_factory=list)
    reason: str = ""  # why its text cannot be checked
    excerpts: Excerpts | None = None
    no_text: dict[int, list[str]] = field(default_factory=dict)  # page -> provider excerpts


def _squeeze(text: str) -> str:
    return "".join(text.split())


def _block_texts(r: Reader, content: object, where: str) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        raise r.fail(where, "must be a string or a list of blocks")
    out = []
    for k, block in enumerate(content):
        block = r.obj(block, f"{where}[{k}]")
        text = block.get("text") if block.get("type") in ("text", None) else None
        out.append(text.replace("\r\n", "\n").replace("\r", "\n") if isinstance(text, str)
                   else "")
    return out


def _blocks_source(sid: str, texts: list[str], **kw: Any) -> Source:
    src = text_source(sid, SourceKind.DOCUMENT, "\n".join(texts), **kw)
    pos = 0
    for t in texts:
        src.blocks.append((pos, pos + len(t)))
        pos += len(t) + 1
    return src


def _read_request(r: Reader, request: object | None, read_pdf: bool
                  ) -> tuple[list[_Doc], list[_Doc]]:
    """The request's documents and search results, in order."""
    docs: list[_Doc] = []
    results: list[_Doc] = []
    if request is None:
        return docs, results
    req = r.obj(request, "request")
    for m, message in enumerate(r.items(req, "messages", "request")):
        mw = f"request.messages[{m}]"
        message = r.obj(message, mw)
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for k, block in enumerate(content):
            bw = f"{mw}.content[{k}]"
            block = r.obj(block, bw)
            kind = block.get("type")
            if kind == "document":
                docs.append(_document(r, block, bw, len(docs), read_pdf))
            elif kind == "search_result":
                results.append(_search_result(r, block, bw, len(results)))
            elif kind == "tool_result" and isinstance(block.get("content"), list):
                for j, inner in enumerate(block["content"]):
                    if isinstance(inner, Mapping) and inner.get("type") == "search_result":
                        results.append(_search_result(r, inner, f"{bw}.content[{j}]",
                                                      len(results)))
    return docs, results


def _document(r: Reader, block: Mapping[str, Any], where: str, n: int, read_pdf: bool) -> _Doc:
    sid = f"doc{n}"
    title = r.text(block, "title", where, required=False)
    source = r.obj(block.get("source"), f"{where}.source")
    stype = r.text(source, "type", f"{where}.source")
    media = r.text(source, "media_type", f"{where}.source", required=False) or ""
    meta = [("Media type", media)] if media else []
    context = r.text(block, "context", where, required=False)
    if context:
        meta.append(("Context", " ".join(context.split())))
    if stype == "text":
        data = r.text(source, "data", f"{where}.source")
        assert data is not None
        breaks = BreakMap(data)
        src = text_source(sid, SourceKind.DOCUMENT, breaks.text, title=title, metadata=meta,
                          origin="request")
        return _Doc(src, "text", breaks=breaks)
    if stype == "content":
        texts = _block_texts(r, source.get("content"), f"{where}.source.content")
        src = _blocks_source(sid, texts, title=title, metadata=meta, origin="request")
        return _Doc(src, "content", blocks=texts)
    url = r.text(source, "url", f"{where}.source", required=False) if stype == "url" else None
    src = Source(sid, SourceKind.DOCUMENT, "", title=title or None, url=url, metadata=meta,
                 origin="request")
    if stype == "base64" and "pdf" in media:
        data = r.text(source, "data", f"{where}.source")
        assert data is not None
        if not read_pdf:
            doc = _Doc(src, "opaque", reason="the PDF was not read")
            doc.excerpts = Excerpts(src)
            return doc
        raw = decode_base64(data)
        found = PdfText(reason="its base64 data could not be decoded") if raw is None \
            else pdf_page_texts(raw)
        if not found.ok:
            doc = _Doc(src, "opaque", reason=f"the PDF's text could not be read: {found.reason}")
            doc.excerpts = Excerpts(src)
            return doc
        return _Doc(src, "pdf", pages=found.pages, unread=found.unread)
    if stype == "base64" and media.startswith("text/"):
        raw = decode_base64(r.text(source, "data", f"{where}.source") or "")
        try:
            text = raw.decode("utf-8") if raw is not None else None
        except UnicodeDecodeError:
            text = None
        if text is not None:
            breaks = BreakMap(text)
            src = text_source(sid, SourceKind.DOCUMENT, breaks.text, title=title, metadata=meta,
                              origin="request")
            return _Doc(src, "text", breaks=breaks)
    doc = _Doc(src, "opaque", reason=f"the document's text is not in the request (a {stype} "
               "source)")
    doc.excerpts = Excerpts(src)
    return doc


def _search_result(r: Reader, block: Mapping[str, Any], where: str, n: int) -> _Doc:
    title = r.text(block, "title", where, required=False)
    origin = r.text(block, "source", where, required=False)
    texts = _block_texts(r, block.get("content", []), f"{where}.content")
    is_url = origin is not None and origin.startswith(("http://", "https://"))
    meta = [("Source", origin)] if origin and not is_url else []
    src = _blocks_source(f"result{n}", texts, title=title, url=origin if is_url else None,
                         metadata=meta, origin="request")
    return _Doc(src, "content", blocks=texts)


def _build_pdf(doc: _Doc) -> None:
    """The PDF's source text: its pages in order, a page without a text layer holding the
    provider's excerpts of it (if any)."""
    assert doc.pages is not None
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    for n, page in enumerate(doc.pages, 1):
        text = page.replace("\r\n", "\n").replace("\r", "\n").strip("\n")
        if not text.strip():
            text = "\n".join(dict.fromkeys(x.strip("\n") for x in doc.no_text.get(n, ())))
        parts.append(text)
        spans.append((pos, pos + len(text)))
        pos += len(text) + 1
    built = text_source(doc.source.id, SourceKind.DOCUMENT, "\n".join(parts))
    doc.source.text, doc.source.lines = built.text, built.lines
    doc.source.pages = spans
    doc.source.origin_span = (0, len(built.text))
    doc.source.metadata.append(("Pages", str(len(spans))))


# --------------------------------------------------------------------------- response


@dataclass(slots=True, frozen=True)
class _Where:
    """Which pages or blocks a citation names (first, last; inclusive)."""

    pages: tuple[int, int] | None = None
    blocks: tuple[int, int] | None = None


@dataclass(slots=True)
class _Pending:
    kind: str
    claim: tuple[int, int]
    cit: Mapping[str, Any]
    where: str


def read_anthropic(response: object, request: object | None = None, *,
                   read_pdf: bool = True) -> ProviderReading:
    """A Messages API response, with the request that holds the cited documents if given."""
    r = Reader("Anthropic response")
    top = r.obj(response, "")
    content = r.items(top, "content", "", required=True)
    docs, results = _read_request(r, request, read_pdf)
    web: dict[str, Source] = {}
    web_excerpts: dict[str, Excerpts] = {}
    fetched_docs: list[Source] = []
    pending: list[_Pending] = []
    parts: list[str] = []
    pos = 0
    for k, block in enumerate(content):
        bw = f"content[{k}]"
        block = r.obj(block, bw)
        kind = block.get("type")
        if kind == "web_search_tool_result" and isinstance(block.get("content"), list):
            for j, res in enumerate(block["content"]):
                res = r.obj(res, f"{bw}.content[{j}]")
                url = r.text(res, "url", f"{bw}.content[{j}]", required=False)
                if url and url not in web:
                    _web_source(web, web_excerpts, url,
                                r.text(res, "title", f"{bw}.content[{j}]", required=False),
                                res.get("page_age"))
            continue
        if kind == "web_fetch_tool_result" and isinstance(block.get("content"), Mapping):
            fetched = _fetched_source(r, block["content"], f"{bw}.content", len(fetched_docs))
            if fetched is not None:
                fetched_docs.append(fetched)
            continue
        if kind != "text":
            continue
        text = r.text(block, "text", bw)
        assert text is not None
        claim = trim_span(text, 0, len(text))
        claim = (pos + claim[0], pos + claim[1])
        for j, cit in enumerate(r.items(block, "citations", bw)):
            cw = f"{bw}.citations[{j}]"
            cit = r.obj(cit, cw)
            ctype = r.text(cit, "type", cw)
            assert ctype is not None
            pending.append(_Pending(ctype, claim, cit, cw))
        parts.append(text)
        pos += len(text)
    if not parts:
        raise r.fail("content", "has no text block (no answer)")
    # Pages without a text layer show the provider's excerpts of them: gather those first.
    for p in pending:
        if p.kind == "page_location" and not _lacking(p, _DOC_KEYS[p.kind]):
            idx = r.number(p.cit, "document_index", p.where)
            if 0 <= idx < len(docs) and docs[idx].pages is not None:
                doc = docs[idx]
                assert doc.pages is not None
                a = r.number(p.cit, "start_page_number", p.where)
                b = r.number(p.cit, "end_page_number", p.where)
                blank = [n for n in range(a, b) if 1 <= n <= len(doc.pages)
                         and not doc.pages[n - 1].strip()]
                cited = r.text(p.cit, "cited_text", p.where, required=False)
                if blank and cited:
                    doc.no_text.setdefault(blank[0], []).append(cited)
    for doc in docs:
        if doc.pages is not None:
            _build_pdf(doc)
    missing: dict[int, _Doc] = {}  # documents cited when the request is not there
    citations: list[ProviderCitation] = []
    for p in pending:
        problems: list[Problem] = []
        if p.kind in _DOC_TYPES:
            target = _doc_target(r, p, docs, missing, request is not None, problems)
        elif p.kind == "search_result_location":
            target = _result_target(r, p, results, request is not None, missing, problems)
        elif p.kind == "web_search_result_location":
            url = r.text(p.cit, "url", p.where)
            assert url is not None
            in_page = _fetched_target(fetched_docs, url,
                                      r.text(p.cit, "cited_text", p.where, required=False))
            if in_page is not None:
                citations.append(ProviderCitation(p.kind, p.claim, (in_page,), problems))
                continue
            src = web.get(url) or _web_source(web, web_excerpts, url,
                                             r.text(p.cit, "title", p.where, required=False),
                                             None)
            cited = r.text(p.cit, "cited_text", p.where, required=False)
            span = web_excerpts[url].add(cited) if cited else None
            target = Target(src.id, src, Status.OK if span else Status.WHOLE_SOURCE, (), span,
                            "web result: the provider's excerpt (the page is not in the "
                            "response)" if span else "web result: the URL", unit="url",
                            cited_text=cited)
        else:
            continue  # a citation type this version does not know
        citations.append(ProviderCitation(p.kind, p.claim, (target,), problems))
    sources = [d.source for d in docs] + [d.source for d in results] + list(web.values())
    sources += fetched_docs + [d.source for d in missing.values()]
    return ProviderReading(PROVIDER, "".join(parts), sources, citations)


def _fetched_source(r: Reader, result: Mapping[str, Any], where: str, n: int
                    ) -> Source | None:
    """A ``web_fetch_tool_result``'s page (``fetch0``, ...): its URL, title and, for a text
    document, its text. An error result (no URL) is no source."""
    url = r.text(result, "url", where, required=False)
    if not url:
        return None
    meta = []
    retrieved = result.get("retrieved_at")
    if isinstance(retrieved, str) and retrieved:
        meta.append(("Retrieved", retrieved))
    doc = result.get("content")
    title, text = None, ""
    if isinstance(doc, Mapping):
        title = r.text(doc, "title", f"{where}.content", required=False)
        source = doc.get("source")
        if isinstance(source, Mapping) and source.get("type") == "text" \
                and isinstance(source.get("data"), str):
            text = BreakMap(source["data"]).text
        elif isinstance(source, Mapping) and isinstance(source.get("media_type"), str):
            meta.append(("Media type", source["media_type"]))
    return text_source(f"fetch{n}", SourceKind.WEB, text, title=title, url=url, metadata=meta,
                       origin="web fetch")


def _fetched_target(fetched: list[Source], url: str, cited: str | None) -> Target | None:
    """A web citation of a page the web fetch tool read: the cited text found in the page's
    text (exact characters), else None (cited as a web result)."""
    for src in fetched:
        if src.url != url or not src.text or not cited:
            continue
        at = src.text.find(cited.strip())
        if at >= 0:
            span = (at, at + len(cited.strip()))
            return Target(src.id, src, Status.OK, (), span, "the fetched page's text",
                          unit="chars", cited_text=cited)
    return None


def _web_source(web: dict[str, Source], excerpts: dict[str, Excerpts], url: str,
                title: str | None, page_age: object) -> Source:
    meta = [("Page age", page_age)] if isinstance(page_age, str) and page_age else []
    src = Source(f"web{len(web)}", SourceKind.WEB, "", title=title or None, url=url,
                 metadata=meta, origin="web search")
    web[url] = src
    excerpts[url] = Excerpts(src)
    return src


def _unchecked(doc: _Doc, cited: str | None, unit: str, reason: str, problems: list[Problem],
               where: _Where) -> Target:
    """A target whose document text is not available: the provider's excerpt is shown."""
    assert doc.excerpts is not None
    span = doc.excerpts.add(cited) if cited else None
    problems.append(Problem("CV608", f"{reason}; the provider's cited text is shown, "
                            "not checked"))
    return Target(doc.source.id, doc.source, Status.UNCHECKED, (), span,
                  f"{reason}: showing the provider's cited text, which could not be checked",
                  unit=unit, cited_text=cited, pages=where.pages, blocks=where.blocks)


def _missing_doc(missing: dict[int, _Doc], prefix: str, idx: int, title: str | None) -> _Doc:
    doc = missing.get(idx if prefix == "doc" else -1 - idx)
    if doc is None:
        src = Source(f"{prefix}{idx}", SourceKind.DOCUMENT, "", title=title or None,
                     metadata=[("Note", "not in the case: the provider's cited text")],
                     origin="response")
        doc = _Doc(src, "opaque", reason="the request with the documents is not in the case")
        doc.excerpts = Excerpts(src)
        missing[idx if prefix == "doc" else -1 - idx] = doc
    return doc


def _range(r: Reader, p: _Pending, first: str, last: str) -> tuple[int, int]:
    return r.number(p.cit, first, p.where), r.number(p.cit, last, p.where)


_DOC_KEYS = {"char_location": ("document_index", "start_char_index", "end_char_index"),
             "page_location": ("document_index", "start_page_number", "end_page_number"),
             "content_block_location": ("document_index", "start_block_index",
                                        "end_block_index"),
             "search_result_location": ("search_result_index", "start_block_index",
                                        "end_block_index")}


def _lacking(p: _Pending, keys: tuple[str, ...]) -> list[str]:
    """The keys of ``keys`` the citation does not have (null counts as missing)."""
    return [k for k in keys if p.cit.get(k) is None]


def _incomplete(r: Reader, p: _Pending, lacking: list[str], docs: list[_Doc],
                problems: list[Problem]) -> Target:
    """A citation without its index or offsets: a CV610 finding on it alone. Its document is
    cited whole when the index is there, else it is an unknown source."""
    cited = r.text(p.cit, "cited_text", p.where, required=False)
    unit = {"char_location": "chars", "page_location": "pages"}.get(p.kind, "blocks")
    problems.append(Problem("CV610", f"{p.kind} without {' and '.join(lacking)}: its location "
                            "in the cited document is unknown"))
    index_key = _DOC_KEYS[p.kind][0]
    prefix = "result" if p.kind == "search_result_location" else "doc"
    if index_key in lacking:
        return missing_target(f"{prefix}-unknown", f"{p.kind} without {index_key}: which "
                              "document it cites is unknown", unit=unit, cited_text=cited)
    idx = r.number(p.cit, index_key, p.where)
    if 0 <= idx < len(docs):
        src = docs[idx].source
        span = (0, len(src.text)) if src.text else None
        return Target(src.id, src, Status.BAD_LOCATION, (), span, f"{p.kind} without "
                      f"{' and '.join(lacking)}: the whole document", unit=unit, cited_text=cited)
    return missing_target(f"{prefix}{idx}", f"{p.kind} without {' and '.join(lacking)}",
                          unit=unit, cited_text=cited)


def _doc_target(r: Reader, p: _Pending, docs: list[_Doc], missing: dict[int, _Doc],
                have_request: bool, problems: list[Problem]) -> Target:
    lacking = _lacking(p, _DOC_KEYS[p.kind])
    if lacking and not have_request and "document_index" not in lacking:
        # No request: the document is shown by its cited text, as a complete citation's is.
        problems.append(Problem("CV610", f"{p.kind} without {' and '.join(lacking)}: its "
                                "location in the cited document is unknown"))
        doc = _missing_doc(missing, "doc", r.number(p.cit, "document_index", p.where),
                           r.text(p.cit, "document_title", p.where, required=False))
        unit = {"char_location": "chars", "page_location": "pages"}.get(p.kind, "blocks")
        return _unchecked(doc, r.text(p.cit, "cited_text", p.where, required=False), unit,
                          doc.reason, problems, _Where())
    if lacking:
        return _incomplete(r, p, lacking, docs, problems)
    idx = r.number(p.cit, "document_index", p.where)
    cited = r.text(p.cit, "cited_text", p.where, required=False)
    title = r.text(p.cit, "document_title", p.where, required=False)
    unit = {"char_location": "chars", "page_location": "pages"}.get(p.kind, "blocks")
    a, b = _range(r, p, *_DOC_KEYS[p.kind][1:])
    where = _Where(pages=(a, b - 1) if unit == "pages" else None,
                   blocks=(a, b - 1) if unit == "blocks" else None)
    if not have_request:
        doc = _missing_doc(missing, "doc", idx, title)
        return _unchecked(doc, cited, unit, doc.reason, problems, where)
    if not 0 <= idx < len(docs):
        problems.append(Problem("CV605", f"{p.kind}: document_index {idx} does not exist (the "
                                f"request has {len(docs)} document"
                                f"{'s' if len(docs) != 1 else ''})"))
        return missing_target(f"doc{idx}", f"document {idx} is not in the request", unit=unit,
                              cited_text=cited)
    doc = docs[idx]
    if doc.source.title is None and title:
        doc.source.title = title
    if p.kind == "char_location":
        if doc.kind != "text" or doc.breaks is None:
            return _text_unavailable(doc, cited, unit, problems, p.kind, where)
        return _char_target(doc, a, b, cited, problems)
    if p.kind == "page_location":
        if doc.pages is None:
            return _text_unavailable(doc, cited, unit, problems, p.kind, where)
        return _page_target(doc, a, b, cited, problems)
    if doc.kind != "content":
        return _text_unavailable(doc, cited, unit, problems, p.kind, where)
    return _blocks_target(doc, a, b, cited, problems, p.kind)


def _text_unavailable(doc: _Doc, cited: str | None, unit: str, problems: list[Problem],
                      kind: str, where: _Where) -> Target:
    if doc.excerpts is None:
        # A citation of a kind that does not fit the document (pages of a text document):
        # the location cannot be found in it.
        problems.append(Problem("CV601", f"{kind} on a {doc.kind} document ({doc.source.id}): "
                                "the location cannot be found in it"))
        return Target(doc.source.id, doc.source, Status.BAD_LOCATION, (), None,
                      f"a {kind} cannot point into a {doc.kind} document", unit=unit,
                      cited_text=cited, pages=where.pages, blocks=where.blocks)
    return _unchecked(doc, cited, unit, doc.reason, problems, where)


def _compare(cited: str | None, shown: str, same: Callable[[str, str], bool]) -> str:
    if cited is None or same(cited, shown):
        return ""
    return f"the provider's cited text \u00ab{clip(cited)}\u00bb is not the document text there"


def _char_target(doc: _Doc, a: int, b: int, cited: str | None, problems: list[Problem]
                 ) -> Target:
    assert doc.breaks is not None
    s, e, wrong = clamp_span(a, b, len(doc.breaks.raw))
    src = doc.source
    span = (doc.breaks.to_text(s), doc.breaks.to_text(e))
    label = f"characters {a}-{b}"
    if wrong:
        problems.append(Problem("CV601", f"char_location: {wrong} of {src.id}"))
        return Target(src.id, src, Status.BAD_LOCATION, (), span if span[1] > span[0] else None,
                      f"{label}: {wrong}", unit="chars", cited_text=cited)
    differs = _compare(cited, src.text[span[0]:span[1]], lambda x, y: norm_ws(x) == norm_ws(y))
    if differs:
        problems.append(Problem("CV604", f"char_location in {src.id}: {differs}"))
        return Target(src.id, src, Status.MISMATCH, (), span, f"{label}: {differs}",
                      unit="chars", cited_text=cited)
    return Target(src.id, src, Status.OK, (), span, label, unit="chars", cited_text=cited)


def _page_target(doc: _Doc, a: int, b: int, cited: str | None, problems: list[Problem]
                 ) -> Target:
    assert doc.pages is not None
    src = doc.source
    count = len(doc.pages)
    label = f"page {a}" if b == a + 1 else f"pages {a}-{b - 1}"
    pages = (a, b - 1)
    if not 1 <= a < b <= count + 1:
        wrong = (f"pages {a} to {b} (end exclusive) do not fit the document's {count} "
                 f"page{'s' if count != 1 else ''}")
        problems.append(Problem("CV601", f"page_location: {wrong} ({src.id})"))
        lo, hi = max(1, min(a, b - 1)), min(count, max(a, b - 1))
        span = (src.pages[lo - 1][0], src.pages[hi - 1][1]) if lo <= hi else None
        return Target(src.id, src, Status.BAD_LOCATION, (), span, wrong, unit="pages",
                      cited_text=cited, pages=pages)
    span = (src.pages[a - 1][0], src.pages[b - 2][1])
    blank = [n for n in range(a, b) if not doc.pages[n - 1].strip()]
    if blank:
        which = ", ".join(str(n) for n in blank)
        reason = f"page {which} has no text layer" if len(blank) == 1 else \
            f"pages {which} have no text layer"
        if all(n in doc.unread for n in blank):
            reason = (f"page {which} has" if len(blank) == 1 else f"pages {which} have") + \
                " too much text to read (too many text operators)"
        problems.append(Problem("CV608", f"page_location in {src.id}: {reason}; the provider's "
                                "cited text is shown, not checked"))
        return Target(src.id, src, Status.UNCHECKED, (), span,
                      f"{reason}: showing the provider's cited text, which could not be "
                      "checked", unit="pages", cited_text=cited, pages=pages)
    differs = _compare(cited, src.text[span[0]:span[1]],
                       lambda x, y: _squeeze(x) in _squeeze(y))
    if differs:
        problems.append(Problem("CV604", f"page_location in {src.id}: {differs}"))
        return Target(src.id, src, Status.MISMATCH, (), span, f"{label} of {count}: {differs}",
                      unit="pages", cited_text=cited, pages=pages)
    return Target(src.id, src, Status.OK, (), span, f"{label} of {count}", unit="pages",
                  cited_text=cited, pages=pages)


def _blocks_target(doc: _Doc, a: int, b: int, cited: str | None, problems: list[Problem],
                   kind: str) -> Target:
    src = doc.source
    count = len(doc.blocks)
    label = f"block {a}" if b == a + 1 else f"blocks {a}-{b - 1}"
    blocks = (a, b - 1)
    if not 0 <= a < b <= count:
        wrong = (f"blocks {a} to {b} (end exclusive) do not fit the {count} block"
                 f"{'s' if count != 1 else ''} of {src.id}")
        problems.append(Problem("CV601", f"{kind}: {wrong}"))
        lo, hi = max(0, min(a, b - 1)), min(count - 1, max(a, b - 1))
        span = (src.blocks[lo][0], src.blocks[hi][1]) if lo <= hi else None
        return Target(src.id, src, Status.BAD_LOCATION, (), span, wrong, unit="blocks",
                      cited_text=cited, blocks=blocks)
    span = (src.blocks[a][0], src.blocks[b - 1][1])
    texts = doc.blocks[a:b]
    differs = _compare(cited, src.text[span[0]:span[1]],
                       lambda x, _y: _squeeze(x) == _squeeze("".join(texts)))
    if differs:
        problems.append(Problem("CV604", f"{kind} in {src.id}: {differs}"))
        return Target(src.id, src, Status.MISMATCH, (), span, f"{label} of {count}: {differs}",
                      unit="blocks", cited_text=cited, blocks=blocks)
    return Target(src.id, src, Status.OK, (), span, f"{label} of {count}", unit="blocks",
                  cited_text=cited, blocks=blocks)


def _result_target(r: Reader, p: _Pending, results: list[_Doc], have_request: bool,
                   missing: dict[int, _Doc], problems: list[Problem]) -> Target:
    lacking = _lacking(p, _DOC_KEYS[p.kind])
    if lacking:
        return _incomplete(r, p, lacking, results, problems)
    idx = r.number(p.cit, "search_result_index", p.where)
    cited = r.text(p.cit, "cited_text", p.where, required=False)
    a, b = _range(r, p, "start_block_index", "end_block_index")
    if not have_request:
        doc = _missing_doc(missing, "result", idx, r.text(p.cit, "title", p.where,
                                                         required=False))
        if doc.source.url is None:
            doc.source.url = r.text(p.cit, "source", p.where, required=False)
        return _unchecked(doc, cited, "blocks", "the request with the search results is not "
                          "in the case", problems, _Where(blocks=(a, b - 1)))
    if not 0 <= idx < len(results):
        problems.append(Problem("CV605", f"search_result_location: search_result_index {idx} "
                                f"does not exist (the request has {len(results)} search "
                                f"result{'s' if len(results) != 1 else ''})"))
        return missing_target(f"result{idx}", f"search result {idx} is not in the request",
                              unit="blocks", cited_text=cited)
    return _blocks_target(results[idx], a, b, cited, problems, p.kind)


def request_question(request: object) -> str | None:
    """The last user message's text in a Messages request."""
    if not isinstance(request, Mapping) or not isinstance(request.get("messages"), list):
        return None
    for message in reversed(request["messages"]):
        if isinstance(message, Mapping) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                texts = [b["text"] for b in content if isinstance(b, Mapping)
                         and b.get("type") == "text" and isinstance(b.get("text"), str)]
                return "\n".join(texts) if texts else None
    return None


__all__ = ["PROVIDER", "read_anthropic", "request_question"]

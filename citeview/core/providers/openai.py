"""OpenAI: the Responses API (``url_citation``, ``file_citation``, ``container_file_citation``
annotations; web search calls and file search results as sources) and Chat Completions
(``url_citation`` annotations of ``choices[0].message``).

Offsets of Responses annotations are code points into the text of their own ``output_text``
part; the answer is the parts of the last ``message`` item joined, so they are shifted by the
part's start. A ``file_citation`` marks one position: its claim is the sentence that ends at or
contains it (:func:`citeview.core.claims.sentence_at`). A ``url_citation`` without offsets
(xAI's Responses-compatible output) is placed at its link in the answer, else at the end with a
CV611 finding.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from citeview.core.claims import sentence_at
from citeview.core.material import Source, SourceKind
from citeview.core.providers.model import (
    Problem,
    ProviderCitation,
    ProviderReading,
    Reader,
    clamp_span,
    missing_target,
    text_source,
    whole_target,
)
from citeview.core.resolution import Status, Target

RESPONSES = "openai-responses"
CHAT = "openai-chat"


class _Web:
    """Web results by URL, numbered url0, url1, ... as they are first seen."""

    def __init__(self, queries: Sequence[str] = ()) -> None:
        self.by_url: dict[str, Source] = {}
        self.queries = list(queries)

    def get(self, url: str, title: str | None) -> Source:
        src = self.by_url.get(url)
        if src is None:
            meta = [("Query", "; ".join(self.queries))] if self.queries else []
            src = Source(f"url{len(self.by_url)}", SourceKind.WEB, "", title=title or None,
                         url=url, metadata=meta, origin="web search")
            self.by_url[url] = src
        elif title and not src.title:
            src.title = title
        return src


def _url_target(src: Source) -> Target:
    return whole_target(src, "web result: the URL (the page text is not in the response)",
                        unit="url")


def _no_span(ann: Mapping[str, Any]) -> bool:
    """An annotation without its offsets (xAI's Responses-compatible ``url_citation``)."""
    return ann.get("start_index") is None or ann.get("end_index") is None


def _links_to(answer: str, url: str, title: str | None) -> list[tuple[int, int]]:
    """The spans of ``answer`` that show ``url``, in order of preference: Markdown links to it
    (``[text](url)``, nested brackets in the text allowed), the URL written out (not inside a
    link target, not the start of a longer URL), links whose text is the citation's title."""
    found: list[tuple[int, int]] = []
    pos = answer.find(f"]({url})")
    while pos >= 0:
        depth, k = 0, pos
        while k >= 0:  # back to the "[" that opens the link text
            if answer[k] == "]":
                depth += 1
            elif answer[k] == "[":
                depth -= 1
                if depth == 0:
                    break
            k -= 1
        if k >= 0:
            found.append((k, pos + len(url) + 3))
        pos = answer.find(f"]({url})", pos + 1)
    pos = answer.find(url)
    while pos >= 0:
        after = answer[pos + len(url):pos + len(url) + 1]
        longer = after != "" and (after.isalnum() or after in "/?#&=%-_~+")
        if answer[max(0, pos - 2):pos] != "](" and not longer:
            found.append((pos, pos + len(url)))
        pos = answer.find(url, pos + 1)
    if title and len(title) > 1 and not title.isdigit():  # "[Title](another form of the URL)"
        pos = answer.find(f"[{title}](")
        while pos >= 0:
            close = answer.find(")", pos + len(title) + 3)
            if close >= 0:
                found.append((pos, close + 1))
            pos = answer.find(f"[{title}](", pos + 1)
    return found


def place_by_link(answer: str,
                  unplaced: Sequence[tuple[ProviderCitation, str, str | None]]) -> None:
    """Claims for citations that came without offsets: each its link in the answer (in order,
    a link used once while another is left; a URL cited more often than linked shares its
    link), else a zero-width claim at the end and a CV611 finding."""
    taken: set[tuple[int, int]] = set()
    for c, url, title in unplaced:
        spans = _links_to(answer, url, title)
        span = next((x for x in spans if x not in taken), spans[0] if spans else None)
        if span is None:
            c.claim = (len(answer), len(answer))
            c.problems.append(Problem("CV611", f"{c.type} of {url} has no start_index/end_index "
                                      "and no link to it is in the answer: placed at the end"))
            c.detail = "no offsets; placed at the end"
        else:
            taken.add(span)
            c.claim = span
            c.detail = "no offsets; placed at its link in the answer"


def _span_claim(r: Reader, ann: Mapping[str, Any], where: str, part_start: int, part_len: int,
                problems: list[Problem]) -> tuple[int, int]:
    start = r.number(ann, "start_index", where)
    end = r.number(ann, "end_index", where)
    s, e, wrong = clamp_span(start, end, part_len)
    if wrong:
        problems.append(Problem("CV601", f"{ann.get('type')}: {wrong} of its output_text part"))
    return part_start + s, part_start + e


# --------------------------------------------------------------------------- Responses


def last_message(items: Sequence[Any]) -> Mapping[str, Any] | None:
    """The answer's item: the last ``message`` (or a typeless item with role assistant)."""
    for item in reversed(items):
        if not isinstance(item, Mapping):
            continue
        if item.get("type") == "message" or (item.get("type") is None
                                             and item.get("role") == "assistant"):
            return item
    return None


def read_responses(obj: object) -> ProviderReading:
    """A Responses API response (or its bare ``output`` list)."""
    r = Reader("Responses output")
    if isinstance(obj, Mapping):
        items = r.items(obj, "output", "", required=True)
    elif isinstance(obj, list):
        items = obj
    else:
        raise r.fail("", "must be an object with \"output\" or a list of output items")
    for n, item in enumerate(items):
        r.obj(item, f"output[{n}]")
    message = last_message(items)
    if message is None:
        raise r.fail("", "no \"message\" item (no answer)")
    at = items.index(message)
    where = f"output[{at}]"
    content = message.get("content")
    if isinstance(content, str):
        content = [{"type": "output_text", "text": content}]
    if not isinstance(content, list):
        raise r.fail(f"{where}.content", "must be a list of parts")
    # Sources first (tool calls come before the message), numbered in output order.
    queries: list[str] = []
    for n, item in enumerate(items):
        if item.get("type") == "web_search_call" and item.get("action") is not None:
            action = r.obj(item.get("action"), f"output[{n}].action")
            q = r.text(action, "query", f"output[{n}].action", required=False)
            for x in [q, *r.items(action, "queries", f"output[{n}].action")]:
                if isinstance(x, str) and x and x not in queries:
                    queries.append(x)
    web = _Web(queries)
    files: dict[str, Source] = {}
    results_given = False
    for n, item in enumerate(items):
        kind = item.get("type")
        if kind == "web_search_call" and isinstance(item.get("action"), Mapping):
            action = item["action"]
            for k, found in enumerate(r.items(action, "sources", f"output[{n}].action")):
                found = r.obj(found, f"output[{n}].action.sources[{k}]")
                url = r.text(found, "url", f"output[{n}].action.sources[{k}]", required=False)
                if url:
                    web.get(url, r.text(found, "title", "", required=False))
        elif kind == "file_search_call":
            results = item.get("results")
            if results is None:
                continue
            results_given = True
            fq = [q for q in r.items(item, "queries", f"output[{n}]") if isinstance(q, str)]
            for k, res in enumerate(r.items(item, "results", f"output[{n}]")):
                rw = f"output[{n}].results[{k}]"
                res = r.obj(res, rw)
                file_id = r.text(res, "file_id", rw)
                assert file_id is not None
                text = r.text(res, "text", rw, required=False) or ""
                _add_result(files, file_id, r.text(res, "filename", rw, required=False), text,
                            res, fq)
    answer_parts: list[str] = []
    citations: list[ProviderCitation] = []
    pending: list[ProviderCitation] = []
    unplaced: list[tuple[ProviderCitation, str, str | None]] = []  # no offsets (xAI)
    offset = 0
    for k, part in enumerate(content):
        pw = f"{where}.content[{k}]"
        part = r.obj(part, pw)
        if part.get("type") != "output_text":
            continue
        ptext = r.text(part, "text", pw)
        assert ptext is not None
        answer_parts.append(ptext)
        for j, ann in enumerate(r.items(part, "annotations", pw)):
            aw = f"{pw}.annotations[{j}]"
            ann = r.obj(ann, aw)
            kind = r.text(ann, "type", aw)
            problems: list[Problem] = []
            if kind == "url_citation":
                url = r.text(ann, "url", aw)
                assert url is not None
                src = web.get(url, r.text(ann, "title", aw, required=False))
                if _no_span(ann):
                    citations.append(ProviderCitation(kind, (0, 0), (_url_target(src),),
                                                      problems))
                    unplaced.append((citations[-1], url, src.title))
                    continue
                claim = _span_claim(r, ann, aw, offset, len(ptext), problems)
                citations.append(ProviderCitation(kind, claim, (_url_target(src),), problems))
            elif kind == "container_file_citation":
                claim = _span_claim(r, ann, aw, offset, len(ptext), problems)
                file_id = r.text(ann, "file_id", aw)
                assert file_id is not None
                container = r.text(ann, "container_id", aw, required=False)
                name = r.text(ann, "filename", aw, required=False)
                made = files.get(file_id)
                if made is None:
                    made = files[file_id] = Source(
                        file_id, SourceKind.FILE, "", title=name or file_id,
                        metadata=[("Container", container)] if container else [],
                        origin="code interpreter")
                target = whole_target(made, "a file made by code execution; its content is not "
                                      "in the response")
                citations.append(ProviderCitation(kind, claim, (target,), problems))
            elif kind == "file_citation":
                index = r.number(ann, "index", aw)
                pos = index
                if not 0 <= index <= len(ptext):
                    problems.append(Problem("CV601", f"file_citation: index {index} is outside "
                                            f"its output_text part (length {len(ptext)})"))
                    pos = max(0, min(index, len(ptext)))
                file_id = r.text(ann, "file_id", aw)
                assert file_id is not None
                name = r.text(ann, "filename", aw, required=False)
                cited = files.get(file_id)
                if cited is not None and cited.text:
                    target = whole_target(cited, f"file {cited.title or file_id}: the retrieved "
                                          "text of the file search")
                elif results_given:
                    problems.append(Problem("CV606", f"file_citation: file {file_id} "
                                            f"({name or 'no name'}) is not among the file search "
                                            "results"))
                    target = missing_target(file_id, f"file {file_id} ({name or 'no name'}) is "
                                            "not among the file search results")
                else:
                    if cited is None:
                        cited = files[file_id] = Source(file_id, SourceKind.FILE, "",
                                                        title=name or file_id,
                                                        origin="file search")
                    problems.append(Problem("CV608", f"file_citation of {file_id}: the response "
                                            "has no file search results (include "
                                            "file_search_call.results), so nothing to check"))
                    target = whole_target(cited, "the file search results are not in the "
                                          "response: nothing to check", status=Status.UNCHECKED)
                # The claim is found once the whole answer is known (a sentence may go on in
                # the next part): held at the position meanwhile.
                pending.append(ProviderCitation(kind, (offset + pos, offset + pos), (target,),
                                                problems, detail=f"index {index}"))
                citations.append(pending[-1])
        offset += len(ptext)
    if not answer_parts:
        raise r.fail(where, "has no output_text part (no answer)")
    answer = "".join(answer_parts)
    for c in pending:
        c.claim = sentence_at(answer, c.claim[0])
    place_by_link(answer, unplaced)
    sources = [*files.values(), *web.by_url.values()]
    return ProviderReading(RESPONSES, answer, sources, citations)


def _add_result(files: dict[str, Source], file_id: str, filename: str | None, text: str,
                res: Mapping[str, Any], queries: Sequence[str]) -> None:
    src = files.get(file_id)
    if src is None:
        meta = [("File id", file_id)]
        vs = res.get("vector_store_id")
        if isinstance(vs, str) and vs:
            meta.append(("Vector store", vs))
        if queries:
            meta.append(("Query", "; ".join(queries)))
        src = files[file_id] = text_source(file_id, SourceKind.FILE, "", title=filename or file_id,
                                           metadata=meta, origin="file search")
    score = res.get("score")
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        src.metadata.append(("Score", f"{score:g}"))
    start = len(src.text) + (2 if src.text else 0)
    body = text.replace("\r\n", "\n").replace("\r", "\n")
    merged = text_source(src.id, SourceKind.FILE, f"{src.text}\n\n{body}" if src.text else body)
    src.text, src.lines = merged.text, merged.lines
    src.blocks.append((start, start + len(body)))
    src.origin_span = (0, len(src.text))


# --------------------------------------------------------------------------- Chat Completions


def read_chat(obj: object) -> ProviderReading:
    """A Chat Completions response: the answer is ``choices[0].message.content``."""
    r = Reader("Chat Completions response")
    top = r.obj(obj, "")
    choices = r.items(top, "choices", "", required=True)
    if not choices:
        raise r.fail("choices", "is empty (no answer)")
    choice = r.obj(choices[0], "choices[0]")
    message = r.obj(choice.get("message"), "choices[0].message")
    where = "choices[0].message"
    content = message.get("content")
    if content is None:
        raise r.fail(f"{where}.content", "is null (no answer)")
    text = r.text(message, "content", where)
    assert text is not None
    web = _Web()
    citations: list[ProviderCitation] = []
    unplaced: list[tuple[ProviderCitation, str, str | None]] = []
    for j, ann in enumerate(r.items(message, "annotations", where)):
        aw = f"{where}.annotations[{j}]"
        ann = r.obj(ann, aw)
        kind = r.text(ann, "type", aw)
        if kind != "url_citation":
            continue
        inner = r.obj(ann.get("url_citation"), f"{aw}.url_citation")
        problems: list[Problem] = []
        url = r.text(inner, "url", f"{aw}.url_citation")
        assert url is not None
        src = web.get(url, r.text(inner, "title", f"{aw}.url_citation", required=False))
        if _no_span(inner):
            citations.append(ProviderCitation(kind, (0, 0), (_url_target(src),), problems))
            unplaced.append((citations[-1], url, src.title))
            continue
        claim = _span_claim(r, {**inner, "type": kind}, f"{aw}.url_citation", 0, len(text),
                            problems)
        citations.append(ProviderCitation(kind, claim, (_url_target(src),), problems))
    place_by_link(text, unplaced)
    return ProviderReading(CHAT, text, list(web.by_url.values()), citations)


def chat_message_response(message: Mapping[str, Any]) -> dict[str, Any]:
    """A transcript's answer message (with ``annotations``) as the Chat Completions response it
    came from, so it is read like one."""
    return {"object": "chat.completion", "choices": [{"index": 0, "message": dict(message)}]}


__all__ = ["CHAT", "RESPONSES", "chat_message_response", "last_message", "read_chat",
           "read_responses"]

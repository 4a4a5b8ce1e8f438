"""OpenAI Assistants (and Azure AI Agents) thread messages: ``text`` content parts whose
``text.value`` carries annotations.

A ``file_citation`` or ``url_citation`` annotation covers a marker the model wrote in the text
(``【4:0†source】``, at ``start_index``-``end_index``, code points of its part): the marker is
taken out of the answer (it is the citation, shown as a chip) and the claim is the sentence
that ends at or holds its place (:func:`citeview.core.claims.sentence_at`). A ``file_path``
annotation covers a ``sandbox:`` link target: the text stays and the claim is the Markdown link
around it. A file's text is not in the message, so a file citation is shown unchecked (CV608).
A message list (``{"object": "list", "data": [...]}``) is read for its latest assistant message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from citeview.core.claims import sentence_at
from citeview.core.material import Source, SourceKind
from citeview.core.providers.model import (
    Problem,
    ProviderCitation,
    ProviderReading,
    Reader,
    clamp_span,
    whole_target,
)
from citeview.core.resolution import Status, Target

PROVIDER = "openai-assistants"


def is_thread_message(obj: Mapping[str, Any]) -> bool:
    if obj.get("object") == "thread.message":
        return True
    data = obj.get("data")
    return (obj.get("object") == "list" and isinstance(data, list) and bool(data)
            and all(isinstance(m, Mapping) and m.get("object") == "thread.message"
                    for m in data))


def _message(r: Reader, top: Mapping[str, Any]) -> tuple[Mapping[str, Any], str]:
    if top.get("object") == "thread.message":
        return top, ""
    best: tuple[int, int] | None = None
    for k, m in enumerate(r.items(top, "data", "")):
        m = r.obj(m, f"data[{k}]")
        if m.get("role") != "assistant":
            continue
        created = m.get("created_at")
        rank = (created if isinstance(created, int) and not isinstance(created, bool) else 0, -k)
        if best is None or rank > (best[0], -best[1]):
            best = (rank[0], k)
    if best is None:
        raise r.fail("data", "has no assistant message (no answer)")
    return top["data"][best[1]], f"data[{best[1]}]"


def _without(cuts: list[tuple[int, int]], offset: int) -> int:
    """An offset of a part once the markers ``cuts`` (sorted, apart) are taken out of it."""
    gone = 0
    for a, b in cuts:
        if offset <= a:
            break
        gone += min(offset, b) - a
    return offset - gone


def _link_around(text: str, s: int, e: int) -> tuple[int, int]:
    """The Markdown link whose target is ``text[s:e]`` (``[label](target)``), else the span."""
    if s >= 2 and text[s - 2:s] == "](" and text[e:e + 1] == ")":
        depth, k = 0, s - 2
        while k >= 0:
            if text[k] == "]":
                depth += 1
            elif text[k] == "[":
                depth -= 1
                if depth == 0:
                    return k, e + 1
            k -= 1
    return s, e


def read_thread_message(obj: object) -> ProviderReading:
    """A thread message (or a list of them: the latest assistant message)."""
    r = Reader("Assistants message")
    top = r.obj(obj, "")
    message, mw = _message(r, top)
    files: dict[str, Source] = {}
    web: dict[str, Source] = {}
    kept: list[str] = []  # the answer, markers taken out
    shown = 0
    pending: list[tuple[ProviderCitation, int, bool]] = []  # citation, position, a marker
    for k, part in enumerate(r.items(message, "content", mw, required=True)):
        pw = f"{mw}.content[{k}]" if mw else f"content[{k}]"
        part = r.obj(part, pw)
        if part.get("type") != "text":
            continue
        body = r.obj(part.get("text"), f"{pw}.text")
        value = r.text(body, "value", f"{pw}.text")
        assert value is not None
        anns = []
        for j, ann in enumerate(r.items(body, "annotations", f"{pw}.text")):
            aw = f"{pw}.text.annotations[{j}]"
            ann = r.obj(ann, aw)
            problems: list[Problem] = []
            a = r.number(ann, "start_index", aw)
            b = r.number(ann, "end_index", aw)
            s, e, wrong = clamp_span(a, b, len(value))
            if wrong:
                problems.append(Problem("CV601", f"{ann.get('type')}: {wrong} of its text"))
            anns.append((s, e, ann, aw, problems))
        anns.sort(key=lambda x: x[0])
        # The markers taken out: the annotations covering a 【...】 text, not overlapping.
        cuts: list[tuple[int, int]] = []
        marker_at: dict[tuple[int, int], int] = {}  # a marker's span -> where its cut starts
        for s, e, ann, _aw, _p in anns:
            mark = value[s:e]
            if (mark.startswith("\u3010") and mark.endswith("\u3011") and len(mark) > 1
                    and ann.get("type") in ("file_citation", "url_citation")
                    and (not cuts or s >= cuts[-1][1])):
                start = s
                if value[e:e + 1] in ("", ".", ",", ";", ":", "!", "?", ")"):
                    # "days 【4:0†source】." reads "days." once the marker is out.
                    while start > (cuts[-1][1] if cuts else 0) and value[start - 1] in " \t":
                        start -= 1
                cuts.append((start, e))
                marker_at[(s, e)] = start
        for s, e, ann, aw, problems in anns:
            kind = r.text(ann, "type", aw)
            target = _target(r, ann, aw, kind or "", files, web, problems)
            if target is None:
                continue
            if (s, e) in marker_at:
                at = shown + _without(cuts, marker_at[(s, e)])
                c = ProviderCitation(kind or "", (at, at), (target,), problems,
                                     detail=f"marker {value[s:e]}")
                pending.append((c, at, True))
            else:
                ls, le = _link_around(value, s, e)
                at = shown + _without(cuts, ls)
                c = ProviderCitation(kind or "", (at, shown + _without(cuts, le)), (target,),
                                     problems, detail=f"text {value[s:e]!r}")
                pending.append((c, at, False))
        pieces = []
        cut = 0
        for a, b in cuts:
            pieces.append(value[cut:a])
            cut = b
        pieces.append(value[cut:])
        part_text = "".join(pieces)
        kept.append(part_text)
        shown += len(part_text)
    if not kept:
        raise r.fail(f"{mw}.content" if mw else "content", "has no text part (no answer)")
    answer = "".join(kept)
    citations = []
    for c, at, is_marker in pending:
        if is_marker:
            c.claim = sentence_at(answer, at)
            if c.claim[1] < at:  # the marker stood after trailing space: the chip stays there
                c.claim = (c.claim[0], at)
        citations.append(c)
    return ProviderReading(PROVIDER, answer, [*files.values(), *web.values()], citations)


def _target(r: Reader, ann: Mapping[str, Any], where: str, kind: str, files: dict[str, Source],
            web: dict[str, Source], problems: list[Problem]) -> Target | None:
    if kind in ("file_citation", "file_path"):
        inner = r.obj(ann.get(kind), f"{where}.{kind}")
        file_id = r.text(inner, "file_id", f"{where}.{kind}")
        assert file_id is not None
        quote = r.text(inner, "quote", f"{where}.{kind}", required=False)
        src = files.get(file_id)
        if src is None:
            src = files[file_id] = Source(file_id, SourceKind.FILE, "", title=file_id,
                                          origin="file search" if kind == "file_citation"
                                          else "code interpreter")
        if kind == "file_path":
            return whole_target(src, "a file made by code execution; its content is not in the "
                                "message")
        problems.append(Problem("CV608", f"file_citation of {file_id}: the file's text is not "
                                "in the message, so nothing to check"))
        return whole_target(src, "the file's text is not in the message: nothing to check",
                            status=Status.UNCHECKED, cited_text=quote)
    if kind == "url_citation":
        inner = r.obj(ann.get(kind), f"{where}.{kind}")
        url = r.text(inner, "url", f"{where}.{kind}")
        assert url is not None
        src = web.get(url)
        if src is None:
            src = web[url] = Source(f"url{len(web)}", SourceKind.WEB, "",
                                    title=r.text(inner, "title", f"{where}.{kind}",
                                                 required=False), url=url, origin="web search")
        return whole_target(src, "web result: the URL (the page text is not in the message)",
                            unit="url")
    return None


__all__ = ["PROVIDER", "is_thread_message", "read_thread_message"]

"""Google Gemini ``generateContent``: ``groundingMetadata`` of the first candidate.

The answer is the candidate's text parts joined (thought parts left out). A grounding support's
claim is its ``segment``: ``startIndex``/``endIndex`` are UTF-8 byte offsets into the text of
part ``partIndex`` (both omitted when 0), converted here to code points of the answer. Thought
and function-call parts are not counted by those offsets: an omitted ``partIndex`` is the first
text part, and a ``partIndex`` naming no text part is tried as the n-th text part. When the
text at the offsets is not ``segment.text``, the offsets are tried in the joined parts, then
``segment.text`` is looked for near them (Vertex's offsets can be a few bytes off): found, it
is the claim (the CV603 finding stays); not found, the claim is widened to whole words.
Each of ``groundingChunkIndices`` names a ``groundingChunks`` entry: a web result (``chunk0``,
...; URL only) or retrieved context (its text, cited whole). Keys are read in camelCase (REST)
or snake_case (the Python SDK's dumps).
A candidate's ``citationMetadata`` (recitations) is read by :mod:`.vertex`.
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
    clip,
    missing_target,
    norm_ws,
    text_source,
    whole_target,
)
from citeview.core.providers.vertex import citation_metadata
from citeview.core.resolution import Target

PROVIDER = "gemini"


def _snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def _get(obj: Mapping[str, Any], key: str) -> Any:
    return obj[key] if key in obj else obj.get(_snake(key))


def _chunk_source(r: Reader, chunk: object, n: int, queries: list[str]) -> Source:
    where = f"groundingChunks[{n}]"
    chunk = r.obj(chunk, where)
    web = _get(chunk, "web")
    ctx = _get(chunk, "retrievedContext")
    meta = [("Query", "; ".join(queries))] if queries else []
    if ctx is not None:
        ctx = r.obj(ctx, f"{where}.retrievedContext")
        text = r.text(ctx, "text", f"{where}.retrievedContext", required=False) or ""
        title = r.text(ctx, "title", f"{where}.retrievedContext", required=False)
        uri = r.text(ctx, "uri", f"{where}.retrievedContext", required=False)
        return text_source(f"chunk{n}", SourceKind.DOCUMENT,
                           text.replace("\r\n", "\n").replace("\r", "\n"), title=title,
                           url=uri, metadata=meta, origin="retrieval")
    info = r.obj(web, f"{where}.web") if web is not None else {}
    domain = r.text(info, "domain", f"{where}.web", required=False)
    if domain:
        meta.append(("Domain", domain))
    return Source(f"chunk{n}", SourceKind.WEB, "",
                  title=r.text(info, "title", f"{where}.web", required=False) or None,
                  url=r.text(info, "uri", f"{where}.web", required=False) or None,
                  metadata=meta, origin="web search")


def read_gemini(response: object) -> ProviderReading:
    """A ``generateContent`` response (its first candidate)."""
    r = Reader("Gemini response")
    top = r.obj(response, "")
    candidates = r.items(top, "candidates", "", required=True)
    if not candidates:
        raise r.fail("candidates", "is empty (no answer)")
    cand = r.obj(candidates[0], "candidates[0]")
    content = r.obj(cand.get("content"), "candidates[0].content")
    parts = r.items(content, "parts", "candidates[0].content", required=True)
    texts: dict[int, tuple[int, str]] = {}  # part index -> (start in the answer, text)
    answer_parts: list[str] = []
    pos = 0
    for k, part in enumerate(parts):
        pw = f"candidates[0].content.parts[{k}]"
        part = r.obj(part, pw)
        text = r.text(part, "text", pw, required=False)
        if text is None or part.get("thought") is True:
            continue
        texts[k] = (pos, text)
        answer_parts.append(text)
        pos += len(text)
    if not answer_parts:
        raise r.fail("candidates[0].content.parts", "has no text (no answer)")
    answer = "".join(answer_parts)
    recited, recitations = citation_metadata(r, cand, answer, "candidates[0]")
    meta = _get(cand, "groundingMetadata")
    if meta is None:
        return ProviderReading(PROVIDER, answer, recited, recitations)
    gw = "candidates[0].groundingMetadata"
    meta = r.obj(meta, gw)
    queries = [q for q in r.items(meta, "webSearchQueries", gw, alt="web_search_queries")
               if isinstance(q, str)]
    chunks = [_chunk_source(r, c, n, queries)
              for n, c in enumerate(r.items(meta, "groundingChunks", gw,
                                           alt="grounding_chunks"))]
    offsets: dict[tuple[int, int], Utf8Offsets] = {}  # (start, length) of a text -> map
    citations: list[ProviderCitation] = []
    for k, support in enumerate(r.items(meta, "groundingSupports", gw, alt="grounding_supports")):
        sw = f"{gw}.groundingSupports[{k}]"
        support = r.obj(support, sw)
        indices = r.items(support, "groundingChunkIndices", sw, alt="grounding_chunk_indices")
        seg = r.obj(_get(support, "segment"), f"{sw}.segment")
        segw = f"{sw}.segment"
        given = "partIndex" in seg or "part_index" in seg
        part_index = r.number(seg, "partIndex", segw, default=0, alt="part_index")
        start = r.number(seg, "startIndex", segw, default=0, alt="start_index")
        end = r.number(seg, "endIndex", segw, default=0, alt="end_index")
        seg_text = r.text(seg, "text", segw, required=False)
        problems: list[Problem] = []
        claim = _locate(answer, texts, offsets, part_index if given else None, start,
                        end, seg_text, problems)
        scores = r.items(support, "confidenceScores", sw, alt="confidence_scores")
        targets: list[Target] = []
        for j, idx in enumerate(indices):
            if isinstance(idx, bool) or not isinstance(idx, int):
                raise r.fail(f"{sw}.groundingChunkIndices[{j}]", "must be a whole number")
            score = scores[j] if j < len(scores) else None
            conf = (f" (confidence {score:g})" if isinstance(score, (int, float))
                    and not isinstance(score, bool) else "")
            if not 0 <= idx < len(chunks):
                problems.append(Problem("CV605", f"groundingChunkIndices: chunk {idx} does not "
                                        f"exist (there are {len(chunks)} grounding chunks)"))
                targets.append(missing_target(f"chunk{idx}", f"grounding chunk {idx} is not in "
                                              "the response"))
                continue
            src = chunks[idx]
            if src.kind is SourceKind.WEB:
                targets.append(whole_target(src, f"web result{conf}: the URL (the page text "
                                            "is not in the response)", unit="url"))
            else:
                targets.append(whole_target(src, f"retrieved context{conf}, cited whole"))
        if not targets:
            continue
        citations.append(ProviderCitation("grounding_support", claim, tuple(targets), problems,
                                          detail=f"bytes {start}-{end} of part {part_index}"))
    return ProviderReading(PROVIDER, answer, chunks + recited, citations + recitations)


def _convert(off: Utf8Offsets, start: int, end: int, problems: list[Problem]
             ) -> tuple[int, int]:
    wrong = []
    if start > end:
        wrong.append(f"bytes {start}-{end} are a reversed range")
        start, end = end, start
    if start < 0 or end > off.size:
        wrong.append(f"bytes {start}-{end} are outside the text ({off.size} bytes)")
    if wrong:
        problems.append(Problem("CV601", f"segment: {'; '.join(wrong)}"))
    start, end = max(0, min(start, off.size)), max(0, min(end, off.size))
    s, s_ok = off.to_code_point(start)
    e, e_ok = off.to_code_point(end, round_up=True)
    inside = [f"{name} {b}" for name, b, ok in (("startIndex", start, s_ok),
                                                  ("endIndex", end, e_ok)) if not ok]
    if inside:
        problems.append(Problem("CV602", f"segment: {' and '.join(inside)} fall"
                                f"{'s' if len(inside) == 1 else ''} inside a multi-byte "
                                "character (UTF-8 byte offsets must be character boundaries)"))
    return s, e


def _bases(answer: str, texts: dict[int, tuple[int, str]], part_index: int | None
           ) -> list[tuple[int, str]]:
    """Where the offsets may count, most likely first: the part named (an omitted index is
    the first text part), the n-th text part (thoughts and calls not counted), the joined
    parts."""
    order = list(texts)
    bases: list[tuple[int, str]] = []
    if part_index is not None and part_index in texts:
        bases.append(texts[part_index])
    n = 0 if part_index is None else part_index
    if 0 <= n < len(order) and texts[order[n]] not in bases:
        bases.append(texts[order[n]])
    if len(order) > 1 or not bases:
        bases.append((0, answer))
    return bases


def _locate(answer: str, texts: dict[int, tuple[int, str]],
            offsets: dict[tuple[int, int], Utf8Offsets], part_index: int | None, start: int,
            end: int, seg_text: str | None, problems: list[Problem]) -> tuple[int, int]:
    """The claim of a segment in code points of the answer (see the module docstring)."""
    if part_index is not None and part_index not in texts and not 0 <= part_index < len(texts):
        problems.append(Problem("CV605", f"segment: partIndex {part_index} is not a text part "
                                "of the candidate"))
    first: tuple[tuple[int, int], list[Problem]] | None = None
    for base, text in _bases(answer, texts, part_index):
        off = offsets.get((base, len(text)))
        if off is None:
            off = offsets[(base, len(text))] = Utf8Offsets(text)
        mine: list[Problem] = []
        s, e = _convert(off, start, end, mine)
        claim = (base + s, base + e)
        if first is None:
            first = (claim, mine)
            if seg_text is None or _same(answer[claim[0]:claim[1]], seg_text):
                problems.extend(mine)
                return claim
        elif not mine and seg_text is not None and _same(answer[claim[0]:claim[1]], seg_text):
            return claim
    assert first is not None and seg_text is not None
    claim, mine = first
    problems.extend(mine)
    said = (f"segment.text \u00ab{clip(seg_text)}\u00bb is not the answer at bytes "
            f"{start}-{end} (\u00ab{clip(answer[claim[0]:claim[1]])}\u00bb)")
    near = _near(answer, seg_text, claim)
    if near is not None:
        moved = len(answer[min(near[0], claim[0]):max(near[0], claim[0])].encode("utf-8"))
        problems.append(Problem("CV603", f"{said}; it stands {moved} bytes "
                                f"{'later' if near[0] >= claim[0] else 'earlier'}, read there"))
        return near
    problems.append(Problem("CV603", said))
    return _whole_words(answer, claim)


#: How far from the offsets ``segment.text`` is looked for, in characters either side.
NEAR = 64


def _near(answer: str, seg_text: str, claim: tuple[int, int]) -> tuple[int, int] | None:
    """The occurrence of ``seg_text`` nearest the claim's start, within :data:`NEAR`."""
    if not seg_text.strip():
        return None
    lo = max(0, claim[0] - NEAR)
    hi = min(len(answer), claim[0] + NEAR + len(seg_text))
    best: int | None = None
    k = answer.find(seg_text, lo, hi)
    while k >= 0:
        if best is None or abs(k - claim[0]) < abs(best - claim[0]):
            best = k
        k = answer.find(seg_text, k + 1, hi)
    return None if best is None else (best, best + len(seg_text))


def _whole_words(answer: str, claim: tuple[int, int]) -> tuple[int, int]:
    """The claim widened so neither end falls inside a word."""
    s, e = claim
    while 0 < s < len(answer) and answer[s - 1].isalnum() and answer[s].isalnum():
        s -= 1
    while 0 < e < len(answer) and answer[e - 1].isalnum() and answer[e].isalnum():
        e += 1
    return s, e


def _same(shown: str, seg_text: str) -> bool:
    return shown == seg_text or norm_ws(shown) == norm_ws(seg_text)


__all__ = ["PROVIDER", "read_gemini"]

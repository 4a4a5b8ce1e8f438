"""Perplexity's chat completion: an OpenAI-shaped response whose answer cites by inline
``[n]`` (1-based) into the response's ``search_results`` (``title``, ``url``, ``date``,
``snippet``), or into its bare ``citations`` list of URLs when there are no search results.

Each ``[n]`` is a citation of result n: its claim runs from the start of its sentence to the
end of its run of numbers (``[2][3]``: both claim up to ``[3]``, where their chips stand; the
text stays as the provider wrote it), its source is the result (the
snippet as its text when given, cited whole). An ``[n]`` past the results is a CV605 finding.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from citeview.core.claims import sentence_at
from citeview.core.material import Source, SourceKind
from citeview.core.providers.model import (
    Problem,
    ProviderCitation,
    ProviderReading,
    Reader,
    missing_target,
    text_source,
    whole_target,
)

PROVIDER = "perplexity"
# "[3]" not followed by "(" (a Markdown link) nor part of "[[3]]".
_REF_RE = re.compile(r"(?<!\[)\[(\d{1,4})\](?![(\]])")


def is_perplexity(obj: Mapping[str, Any]) -> bool:
    """A chat completion carrying Perplexity's ``search_results`` or ``citations`` URLs."""
    results = obj.get("search_results")
    cites = obj.get("citations")
    return isinstance(results, list) or (isinstance(cites, list) and bool(cites)
                                         and all(isinstance(c, str) for c in cites))


def _sources(r: Reader, top: Mapping[str, Any]) -> list[Source]:
    out: list[Source] = []
    results = r.items(top, "search_results", "")
    if results:
        for k, res in enumerate(results):
            rw = f"search_results[{k}]"
            res = r.obj(res, rw)
            meta = [(label, v) for label, key in (("Date", "date"), ("Last updated",
                                                                     "last_updated"))
                    if isinstance(v := res.get(key), str) and v]
            snippet = r.text(res, "snippet", rw, required=False) or ""
            out.append(text_source(f"result{k + 1}", SourceKind.WEB,
                                   snippet.replace("\r\n", "\n").replace("\r", "\n").strip(),
                                   title=r.text(res, "title", rw, required=False),
                                   url=r.text(res, "url", rw, required=False),
                                   metadata=meta, origin="web search"))
        return out
    for k, url in enumerate(r.items(top, "citations", "")):
        if not isinstance(url, str):
            raise r.fail(f"citations[{k}]", "must be a string (a URL)")
        out.append(Source(f"result{k + 1}", SourceKind.WEB, "", url=url, origin="web search"))
    return out


def read_perplexity(obj: object) -> ProviderReading:
    """A Perplexity chat completion: ``choices[0].message.content`` with its ``[n]``."""
    r = Reader("Perplexity response")
    top = r.obj(obj, "")
    choices = r.items(top, "choices", "", required=True)
    if not choices:
        raise r.fail("choices", "is empty (no answer)")
    message = r.obj(r.obj(choices[0], "choices[0]").get("message"), "choices[0].message")
    answer = r.text(message, "content", "choices[0].message")
    assert answer is not None
    sources = _sources(r, top)
    citations: list[ProviderCitation] = []
    matches = list(_REF_RE.finditer(answer))
    run_end: dict[int, int] = {}  # a run of numbers ("[2][3]") ends at its last one
    for m in reversed(matches):
        nxt = run_end.get(m.end())
        run_end[m.start()] = nxt if nxt is not None else m.end()
    for m in matches:
        n = int(m.group(1))
        start = min(sentence_at(answer, m.start())[0], m.start())
        end = run_end[m.start()]
        problems: list[Problem] = []
        if 1 <= n <= len(sources):
            src = sources[n - 1]
            target = whole_target(src, "search result: its snippet" if src.text else
                                  "search result: the URL (the page text is not in the "
                                  "response)", unit="url")
        else:
            problems.append(Problem("CV605", f"[{n}] names search result {n}; the response has "
                                    f"{len(sources)}"))
            target = missing_target(f"result{n}", f"search result {n} is not in the response",
                                    unit="url")
        citations.append(ProviderCitation("inline_reference", (start, end), (target,),
                                          problems, detail=f"[{n}]"))
    return ProviderReading(PROVIDER, answer, sources, citations)


__all__ = ["PROVIDER", "is_perplexity", "read_perplexity"]

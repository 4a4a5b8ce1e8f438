"""A pattern's matches found by trying it only near the literal every match holds.

Python's ``re`` finds a pattern that starts with a literal at C speed, but one that starts with a
look-behind (``(?<![A-Za-z0-9_-])...``, a whole word) is tried at every position of the text:
such passes of the marker scan cost more than the rest of an answer's analysis. When every
match holds one of a few literals near its start (a degraded marker's ``turn``, its family),
:func:`finditer_near` tries the pattern only at the places a match could start, found with
``str.find``, and gives exactly what ``pattern.finditer(text)`` gives.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

#: What the callers' patterns take as a word character: none may precede a match.
WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def occurrences(text: str, literal: str) -> list[int]:
    """Where ``literal`` starts in ``text``, overlapping occurrences included, in order."""
    out = []
    find = text.find
    i = find(literal)
    while i >= 0:
        out.append(i)
        i = find(literal, i + 1)
    return out


def finditer_near(pattern: re.Pattern[str], text: str, literals: Sequence[str], back: int,
                  lead: frozenset[str] = frozenset()) -> Iterator[re.Match[str]]:
    """The matches of ``pattern.finditer(text)`` that start ``back`` characters or fewer before
    an occurrence of one of ``literals``, with only characters of ``lead`` between, and where no
    character of :data:`WORD_CHARS` precedes them: all of its matches when every match is so
    (and matches nothing empty), or when its matches never overlap (each a whole word).

    Only those places are tried, each once and in order (from the end of the last match on),
    so a text without the literals costs a ``str.find`` each."""
    if len(literals) == 1:
        hits = occurrences(text, literals[0])
    else:
        hits = sorted({i for lit in literals for i in occurrences(text, lit)})
    pos = 0  # where finditer would search on from
    tried = -1  # the last place tried
    match = pattern.match
    for t in hits:
        p = t
        if t and text[t - 1] in lead:  # (else only t itself may start a match)
            stop = max(pos, t - back, tried + 1)
            while p > stop and text[p - 1] in lead:
                p -= 1
        while p <= t:
            if p >= pos and p > tried and (not p or text[p - 1] not in WORD_CHARS):
                tried = p
                m = match(text, p)
                if m is not None:
                    yield m
                    pos = m.end()
            p += 1


__all__ = ["WORD_CHARS", "finditer_near", "occurrences"]

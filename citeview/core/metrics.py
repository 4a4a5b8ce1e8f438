"""Review metrics: pure functions over verdicts (issue 7's definitions, stated here once).

Verdicts are label strings; the default rubric is ``supported``, ``partially supported``,
``unsupported``, ``cannot tell``. A session with its own rubric still gets every count; the
formulas below look for these four names and weigh any other label 0.

- *decided*: a verdict other than ``cannot tell`` (no verdict is not decided). Progress, by
  contrast, counts any verdict as *judged*, ``cannot tell`` included: one word, one meaning.
- *citation precision* = (supported + 0.5 x partially supported) / decided, over decided
  (citation, source id) pairs; the *plain supported share* = supported / decided beside it.
- *unsupported rate* of a source kind = unsupported / decided, over pairs citing that kind.
- *citation recall* (ALCE): over the answers' sentences (headings and code blocks excluded), a
  sentence is supported when at least one of its citations has a source judged ``supported``;
  an uncited sentence counts as unsupported. Recall = supported sentences / sentences.
- *agreement* between two annotators over items both gave a verdict (any label, ``cannot tell``
  included): percent agreement p_o = agreeing / n; Cohen's kappa = (p_o - p_e) / (1 - p_e),
  with p_e = sum over labels of (A's share of the label x B's share). Kappa is undefined
  (None) when p_e = 1 (both used one and the same label throughout).

A ratio with a zero denominator is None ("n/a"), never 0.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from markdown_it import MarkdownIt

# The sentence boundaries of claims (one notion of "sentence" across citeview).
from citeview.core.claims import SENTENCE_BOUNDARY_RE, Spanned
from citeview.core.markers import StrippedText

SUPPORTED = "supported"
PARTIAL = "partially supported"
UNSUPPORTED = "unsupported"
CANNOT_TELL = "cannot tell"


def is_decided(verdict: str | None) -> bool:
    """A verdict that decides: any but "cannot tell" (and none)."""
    return verdict is not None and verdict != CANNOT_TELL


def _ratio(num: float, den: int) -> float | None:
    return num / den if den else None


# --------------------------------------------------------------------------- precision


@dataclass(slots=True, frozen=True)
class Precision:
    decided: int
    supported: int
    partial: int

    @property
    def precision(self) -> float | None:
        """(supported + 0.5 x partially supported) / decided."""
        return _ratio(self.supported + 0.5 * self.partial, self.decided)

    @property
    def supported_share(self) -> float | None:
        """supported / decided."""
        return _ratio(self.supported, self.decided)


def precision(verdicts: Iterable[str | None]) -> Precision:
    """Citation precision over one verdict per (citation, source id)."""
    counts = Counter(v for v in verdicts if is_decided(v))
    return Precision(sum(counts.values()), counts[SUPPORTED], counts[PARTIAL])


def precision_from_counts(counts: dict[str, int]) -> Precision:
    """:func:`precision` from verdict counts (``None`` and ``cannot tell`` keys are ignored)."""
    decided = sum(n for v, n in counts.items() if is_decided(v))
    return Precision(decided, counts.get(SUPPORTED, 0), counts.get(PARTIAL, 0))


@dataclass(slots=True, frozen=True)
class Rate:
    decided: int
    unsupported: int

    @property
    def rate(self) -> float | None:
        return _ratio(self.unsupported, self.decided)


def unsupported_rates(pairs: Iterable[tuple[str, str | None]]) -> dict[str, Rate]:
    """Unsupported rate per source kind from ``(kind, verdict)`` pairs; kinds sorted."""
    decided: Counter[str] = Counter()
    unsupported: Counter[str] = Counter()
    for kind, verdict in pairs:
        if is_decided(verdict):
            decided[kind] += 1
            if verdict == UNSUPPORTED:
                unsupported[kind] += 1
    return {k: Rate(decided[k], unsupported[k]) for k in sorted(decided)}


# --------------------------------------------------------------------------- sentences, recall


@dataclass(slots=True, frozen=True)
class Sentence:
    """A sentence of an answer: ``start``/``end`` in the answer (citation markers after it
    excluded) and the indices (into the citations given) of the citations that belong to it."""

    start: int
    end: int
    citations: tuple[int, ...]


@lru_cache(maxsize=1)
def _blocks() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table"]).disable("inline")


# A line that could start a heading (ATX or setext underline) or code (fence or indent).
_MAYBE_BLOCK = re.compile(r"^(?: {0,3}(?:#|```|~~~|=+[ \t]*$|-+[ \t]*$)| {4}|\t)",
                          re.MULTILINE)
_WORDY = re.compile(r"[^\W_]")
_SKIPPED_BLOCKS = ("heading_open", "fence", "code_block")
_ENDERS = frozenset(".!?\u2026\u3002\uff01\uff1f\"')]}\u00bb\u201d\u2019\u300d\u300f\uff09")


def _line_starts(text: str) -> list[int]:
    # markdown-it counts lines after turning \r\n and \r into \n: the same breaks.
    return [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]


def answer_sentences(answer: str, citations: Sequence[Spanned]) -> list[Sentence]:
    """The sentences of ``answer`` that count for recall, with their citations.

    Markers are removed first (``Foo.<cite> Bar.`` is two sentences). Headings and code blocks
    (fenced or indented) are left out, and so are their citations; a "sentence" without a letter
    or digit (a rule, a table border) is none. A citation belongs to the sentence its marker
    follows (markers stand after the punctuation and whitespace that end a sentence); one at the
    very start belongs to the first sentence."""
    stripped = StrippedText.build(answer, [(c.start, c.end) for c in citations])
    clean = stripped.text
    starts = _line_starts(clean)
    skipped: list[tuple[int, int]] = []
    # Parse only text that may hold a heading or code block (most answers hold neither).
    maybe = "\r" in clean or _MAYBE_BLOCK.search(clean) is not None
    blocks = _blocks().parse(clean) if maybe else []
    for tok in blocks:
        if tok.type in _SKIPPED_BLOCKS and tok.map is not None:
            lo, hi = tok.map
            end = starts[hi] if hi < len(starts) else len(clean)
            if skipped and skipped[-1][1] >= starts[lo]:
                skipped[-1] = (skipped[-1][0], max(skipped[-1][1], end))
            else:
                skipped.append((starts[lo], end))
    # Sentence pieces of the clean text outside skipped blocks: (start, end) in clean text.
    pieces: list[tuple[int, int]] = []
    regions: list[tuple[int, int]] = []
    pos = 0
    for s, e in skipped:
        if s > pos:
            regions.append((pos, s))
        pos = max(pos, e)
    if pos < len(clean):
        regions.append((pos, len(clean)))
    for rs, re_ in regions:
        lo = rs
        for m in SENTENCE_BOUNDARY_RE.finditer(clean, rs, re_):
            end = m.start()
            while end < m.end() and clean[end] in _ENDERS:
                end += 1  # the full stop belongs to its sentence, a list marker does not
            pieces.append((lo, end))
            lo = max(lo, m.end())
        pieces.append((lo, re_))
    pieces = [_trim(clean, s, e) for s, e in pieces if _WORDY.search(clean, s, e)]
    # A citation belongs to the last piece starting before the text its marker follows.
    firsts = [s for s, _ in pieces]
    members: list[list[int]] = [[] for _ in pieces]
    for i, c in enumerate(citations):
        at = stripped.to_clean(c.start)
        while at > 0 and clean[at - 1].isspace():
            at -= 1
        if not pieces:
            break
        if at == 0:
            if any(s < pieces[0][0] for s, _ in skipped):
                continue  # a heading or code block comes first
            k = 0
        else:
            if _inside(skipped, at - 1):
                continue  # in a heading or code block
            k = bisect_right(firsts, at - 1) - 1
            if k < 0:
                continue
            end = pieces[k][1]
            if at > end and any(end <= s < at for s, _ in skipped):
                continue  # a heading or code block stands between the sentence and the marker
        members[k].append(i)
    return [Sentence(stripped.to_original(s), stripped.to_original(e - 1) + 1, tuple(m))
            for (s, e), m in zip(pieces, members, strict=True)]


def _trim(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


def _inside(spans: Sequence[tuple[int, int]], at: int) -> bool:
    return any(s <= at < e for s, e in spans)


@dataclass(slots=True, frozen=True)
class Recall:
    """Sentence counts for citation recall: ``sentences`` in all, ``cited`` with at least one
    citation, ``supported`` with a citation judged supported."""

    sentences: int = 0
    cited: int = 0
    supported: int = 0

    @property
    def recall(self) -> float | None:
        return _ratio(self.supported, self.sentences)

    @property
    def uncited(self) -> int:
        return self.sentences - self.cited

    def __add__(self, other: Recall) -> Recall:
        return Recall(self.sentences + other.sentences, self.cited + other.cited,
                      self.supported + other.supported)


def citation_recall(sentence_verdicts: Iterable[Sequence[str | None]]) -> Recall:
    """Recall from, per sentence, the verdicts of its citations' sources (empty: uncited)."""
    n = cited = supported = 0
    for verdicts in sentence_verdicts:
        n += 1
        if verdicts:
            cited += 1
            if SUPPORTED in verdicts:
                supported += 1
    return Recall(n, cited, supported)


# --------------------------------------------------------------------------- agreement


def percent_agreement(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Share of ``(a, b)`` verdict pairs that are equal."""
    return _ratio(sum(1 for a, b in pairs if a == b), len(pairs))


def cohen_kappa(pairs: Sequence[tuple[str, str]]) -> float | None:
    """Cohen's kappa of two annotators' verdicts on the same items (None when undefined)."""
    n = len(pairs)
    if not n:
        return None
    po = sum(1 for a, b in pairs if a == b) / n
    ca = Counter(a for a, _ in pairs)
    cb = Counter(b for _, b in pairs)
    pe = sum(ca[k] * cb[k] for k in ca) / (n * n)
    if pe >= 1.0:
        return None
    return (po - pe) / (1 - pe)


@dataclass(slots=True, frozen=True)
class Confusion:
    """``counts[i][j]``: items A labelled ``labels[i]`` and B labelled ``labels[j]``."""

    labels: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    def to_dict(self) -> dict[str, object]:
        return {"labels": list(self.labels), "counts": [list(r) for r in self.counts]}


def confusion_matrix(pairs: Sequence[tuple[str, str]], labels: Sequence[str] = ()) -> Confusion:
    """The confusion matrix over ``labels`` (rubric order), followed by any other label seen,
    in order of first appearance."""
    order = list(dict.fromkeys(labels))
    for a, b in pairs:
        for v in (a, b):
            if v not in order:
                order.append(v)
    index = {v: i for i, v in enumerate(order)}
    grid = [[0] * len(order) for _ in order]
    for a, b in pairs:
        grid[index[a]][index[b]] += 1
    return Confusion(tuple(order), tuple(tuple(r) for r in grid))

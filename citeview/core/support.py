"""Lexical support: how much of a claim's wording the cited text contains. A triage hint for a
reviewer (which citations to look at first), never a verdict: paraphrase scores low and a
negated claim can score high.

Formula::

    support(claim, cited) = |W(claim) ∩ W(cited)| / |W(claim)|

where ``W(t)`` is the *set* of content words of ``t``, found by

1. NFKC normalisation and case folding (``Ｆｉｖｅ`` and ``five`` match, ``ß`` matches ``ss``);
2. splitting into words and numbers; punctuation and citation markers are dropped. A number is
   one token with its inner separators (``3.5``, ``1,000``, ``2026-03-01`` -> ``2026``, ``03``,
   ``01``) and is always a content word, however short;
3. dropping stopwords (:data:`STOPWORDS`, a small English list) and one-letter words;
4. light suffix stemming (:func:`stem`): one of plural ``-s``/``-es``/``-ies``, ``-ing``,
   ``-ed``, ``-ly`` when a stem of at least 3 letters remains, then a final ``-e``;
5. runs of Han, kana, Hangul or Thai (scripts written without spaces) become character
   bigrams, so a CJK claim can still match its source.

The score lies in [0, 1]; it is ``None`` when the claim has no content word (nothing to match),
or when there is no cited text. Rule CV401 (weak-support, info, off by default) fires for a
resolved citation whose score is below a threshold (:data:`DEFAULT_THRESHOLD`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from citeview.core.diagnostics import Diagnostic, make
from citeview.core.markers import Citation
from citeview.core.resolution import Resolution, Status, Target

DEFAULT_THRESHOLD = 0.3

STOPWORDS: frozenset[str] = frozenset((
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few",
    "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
    "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "of", "off", "on",
    "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over", "own", "same",
    "she", "should", "so", "some", "such", "than", "that", "the", "their", "theirs", "them",
    "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
    "under", "until", "up", "very", "was", "we", "were", "what", "when", "where", "which",
    "while", "who", "whom", "why", "will", "with", "would", "you", "your", "yours", "yourself",
    "yourselves", "may", "might", "must", "shall", "per", "via",
))

# Scripts written without spaces between words: compared as character bigrams.
_UNSPACED = (r"\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
             r"\uf900-\ufaff")
_TOKEN_RE = re.compile(
    rf"(\d+(?:[.,]\d+)*)|([{_UNSPACED}]+)|([^\W\d_{_UNSPACED}]+"
    rf"(?:['\u2019][^\W\d_{_UNSPACED}]+)*)"
)
_SUFFIXES = (("ies", "y"), ("sses", "ss"), ("es", ""), ("s", ""), ("ing", ""), ("ed", ""),
             ("ly", ""))


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Strip one common English suffix, keeping a stem of at least 3 letters, then a final
    ``e`` and a doubled final consonant, so that word forms meet: ``requires``, ``required``,
    ``requiring`` -> ``requir``; ``days`` -> ``day``; ``policies`` -> ``policy``; ``stopped`` ->
    ``stop``. Words ending in ``ss``, ``us`` or ``is`` (``class``, ``status``, ``basis``) keep
    their ``s``."""
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) + len(repl) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break
            if suffix == "es" and not word.endswith(("ches", "shes", "xes", "zes")):
                word = word[:-1]  # "notices" -> "notice": only the s is an ending
            else:
                word = word[: len(word) - len(suffix)] + repl
                if (suffix in ("ing", "ed") and len(word) >= 4 and word[-1] == word[-2]
                        and word[-1] not in "aeiouylsz"):
                    word = word[:-1]  # "stopped" -> "stop"
            break
    if len(word) >= 4 and word.endswith("e"):
        word = word[:-1]
    return word


# ASCII text has no unspaced script and no U+2019: its words and numbers are what _TOKEN_RE
# finds there, found by one pattern without groups (letters and digits never share a token).
_ASCII_TOKEN_RE = re.compile(r"[a-z]+(?:'[a-z]+)*|\d+(?:[.,]\d+)*")


def _letters_table() -> bytes:
    table = bytearray(b" " * 256)
    for c in range(ord("a"), ord("z") + 1):
        table[c] = table[c - 32] = c
    for c in b"0123456789'":
        table[c] = ord("0")
    return bytes(table)


# ASCII text lower-cased, every character that is neither a letter nor a digit nor an apostrophe
# made a space, digits and apostrophes made "0" (one bytes.translate): a text with no "0" then
# is one whose tokens are exactly its runs of letters, found by bytes.split at C speed (a third
# of what _ASCII_TOKEN_RE.findall costs, which tries its alternatives at every character). The
# runs stay bytes: no str decoded, and a bytes run is cut and looked up for less than a str.
_LETTERS = _letters_table()
_ZERO = ord("0")  # (``48 in letters``: ``b"0" in letters`` first fails to read b"0" as an int)
_FORMS_MAX = 1 << 16


class _Forms(dict[bytes, str]):
    """A run of ASCII letters (lower-cased, as bytes) -> its content form (:func:`_word`), made
    on first sight: looked up by ``map`` at C speed. Cleared when full (the forms of a few
    thousand words are what recurs)."""

    __slots__ = ()

    def __missing__(self, run: bytes) -> str:
        if len(self) >= _FORMS_MAX:
            self.clear()
        form = self[run] = _word(run.decode("ascii"))
        return form


_FORMS = _Forms()
_FORM = _FORMS.__getitem__


def _letter_runs(text: str) -> list[bytes] | None:
    """The tokens of ASCII ``text`` when they are exactly its runs of letters (lower-cased),
    else None (a digit or an apostrophe: the tokenizer decides)."""
    letters = text.encode("ascii").translate(_LETTERS)
    return None if _ZERO in letters else letters.split()


def content_words(text: str) -> set[str]:
    """The set of normalised content words (and numbers, and CJK bigrams) of ``text``."""
    if text.isascii():
        letters = text.encode("ascii").translate(_LETTERS)
        out = _ascii_words(text) if _ZERO in letters else set(map(_FORM, letters.split()))
        out.discard("")
        return out
    norm = unicodedata.normalize("NFKC", text).casefold()
    out = set()
    for num, cjk, word in _TOKEN_RE.findall(norm):
        if num:
            out.add(num)
        elif cjk:
            if len(cjk) == 1:
                out.add(cjk)
            else:
                out.update(cjk[i : i + 2] for i in range(len(cjk) - 1))
        else:
            out.add(_word(word))
    out.discard("")
    return out


def _ascii_words(text: str) -> set[str]:
    """The content forms of ASCII ``text`` as its tokenizer finds them ("" among them when a
    word has none)."""
    return set(map(_ascii_token, _ASCII_TOKEN_RE.findall(text.lower())))


@lru_cache(maxsize=1 << 16)
def _ascii_token(tok: str) -> str:
    """An ASCII token's content form: a number as it is, a word as :func:`_word` makes it."""
    return tok if tok[0].isdigit() else _word(tok)


@lru_cache(maxsize=1 << 16)
def _word(tok: str) -> str:
    """A word's content form, or "" for a stopword or one letter."""
    tok = tok.replace("\u2019", "'")
    if tok.endswith("'s"):
        tok = tok[:-2]
    if len(tok) < 2 or tok in STOPWORDS:
        return ""
    return stem(tok)


@dataclass(slots=True, frozen=True)
class Support:
    """A support score with its parts: ``matched`` of the claim's ``total`` content words."""

    matched: int
    total: int

    @property
    def score(self) -> float | None:
        return self.matched / self.total if self.total else None


def support_parts(claim: str | set[str], cited: str | set[str]) -> Support:
    """Matched and total content words (either side may be given as :func:`content_words`)."""
    cw = content_words(claim) if isinstance(claim, str) else claim
    if not cw:
        return Support(0, 0)
    tw = content_words(cited) if isinstance(cited, str) else cited
    return Support(len(cw & tw), len(cw))


def support_score(claim: str, cited: str) -> float | None:
    """The lexical support score in [0, 1] (module docstring), or None when the claim has no
    content word or there is no cited text."""
    if not cited:
        return None
    return support_parts(claim, cited).score


def _forms(text: str) -> Collection[str]:
    """What :func:`content_words` makes a set of, as it comes: for ASCII text of words only, the
    form of each word in turn (an empty one and repeats included); else that set. Enough to
    intersect a set with, without the set made. A long text (a whole source cited) gets its
    set: a list of every word it holds would be kept as long as the scorer."""
    if len(text) <= 1 << 14 and text.isascii():
        runs = _letter_runs(text)
        if runs is not None:
            return list(map(_FORM, runs))
    return content_words(text)


class SupportScorer:
    """Scores many claims against cited texts, tokenising each distinct cited text once (a
    whole source cited ten times is read once). Keep one per case: the cache holds that case's
    texts only."""

    __slots__ = ("_cache", "_cited")

    def __init__(self) -> None:
        self._cache: dict[str, set[str]] = {}
        self._cited: dict[str, Collection[str]] = {}  # cited text -> _forms(text)

    def words(self, text: str) -> set[str]:
        got = self._cache.get(text)
        if got is None:
            got = self._cache[text] = content_words(text)
        return got

    def parts(self, claim: str, cited: str) -> Support:
        if not cited:
            return Support(0, 0)
        return support_parts(self.words(claim), self.words(cited))

    def score(self, claim: str, cited: str) -> float | None:
        """``parts(claim, cited).score``, with no :class:`Support` made (a score per cited
        source of every case of an export), nor a set of the cited text's words."""
        if not cited:
            return None  # Support(0, 0)
        cw = self._cache.get(claim)
        if cw is None:
            cw = self._cache[claim] = content_words(claim)
        if not cw:
            return None  # Support(0, 0)
        forms = self._cited.get(cited)
        if forms is None:
            forms = self._cited[cited] = _forms(cited)
        return len(cw.intersection(forms)) / len(cw)  # ("" is never in cw)

    def scores(self, claim: str, targets: Sequence[Target]) -> tuple[float | None, ...]:
        """One citation's scores: ``score(claim, t.text)`` for each resolved target ``t``,
        None for the others (what AnalysedCase.support holds per citation, in one call)."""
        score = self.score
        return tuple([score(claim, t.text) if t.ok else None for t in targets])


class Claimed(Protocol):
    """A citation with its claim's span in ``answer`` and its resolution (an
    :class:`~citeview.core.analysis.AnalysedCitation`)."""

    @property
    def claim(self) -> tuple[int, int]: ...

    @property
    def answer(self) -> str: ...

    @property
    def resolution(self) -> Resolution: ...


_OK, _WHOLE = Status.OK, Status.WHOLE_SOURCE


# A cited text longer than this is tokenised once per case however often it is cited (a whole
# source cited ten times); a shorter one each time it is cited (a line or two: looking it up
# would cost about as much as reading it again).
_SHARED_CITED = 1 << 10


def citation_scores(citations: Iterable[Claimed]) -> tuple[tuple[float | None, ...], ...]:
    """``SupportScorer().scores(c.claim_text, c.targets)`` for each citation of a case, in one
    loop (every case of an export is scored: no call per citation and per source, no claim
    cut from the answer unless a source is scored against it).

    ASCII text of words only (no digit, no apostrophe) is read inline: its runs of letters
    mapped to their forms (:data:`_FORMS`) and intersected with the claim's at C speed, no set
    made of the cited text's; other text is read by :func:`content_words`. The claim of a group
    of markers (one span shared) is read once, and so is a long cited text
    (:data:`_SHARED_CITED`)."""
    out: list[tuple[float | None, ...]] = []
    form = _FORM
    letters_of = _LETTERS
    shared: dict[str, set[str]] = {}  # a long cited text -> its content words
    prev_span: tuple[int, int] | None = None
    prev_answer: str | None = None
    prev_cw: set[str] = set()
    for c in citations:
        row: list[float | None] = []
        cw: set[str] | None = None
        for t in c.resolution.targets:
            score: float | None = None
            status = t.status
            source = t.source
            span = t.span
            # (Target.ok and Target.text, inline)
            if (status is _OK or status is _WHOLE) and source is not None and span is not None:
                cited = source.text[span[0] : span[1]]
                if cited:
                    if cw is None:
                        claim_span = c.claim
                        answer = c.answer
                        if claim_span is prev_span and answer is prev_answer:
                            cw = prev_cw  # a group's markers share one claim span
                        else:
                            s, e = claim_span
                            claim = answer[s:e]
                            if claim.isascii():
                                letters = claim.encode("ascii").translate(letters_of)
                                if _ZERO not in letters:
                                    cw = set(map(form, letters.split()))
                                    cw.discard("")
                            if cw is None:
                                cw = content_words(claim)
                            prev_span, prev_answer, prev_cw = claim_span, answer, cw
                    if cw:  # ("" is never in cw)
                        if len(cited) > _SHARED_CITED:
                            words = shared.get(cited)
                            if words is None:
                                words = shared[cited] = content_words(cited)
                            score = len(cw.intersection(words)) / len(cw)
                        elif cited.isascii():
                            letters = cited.encode("ascii").translate(letters_of)
                            score = len(cw.intersection(
                                _ascii_words(cited) if _ZERO in letters
                                else map(form, letters.split()))) / len(cw)
                        else:
                            score = len(cw.intersection(content_words(cited))) / len(cw)
            row.append(score)
        out.append(tuple(row))
    return tuple(out)


def weak_support_diagnostics(answer: str, citations: Sequence[Citation],
                             resolutions: Sequence[Resolution],
                             claim_spans: Sequence[tuple[int, int]],
                             threshold: float = DEFAULT_THRESHOLD) -> list[Diagnostic]:
    """CV401 for each resolved source of a citation whose support score is below ``threshold``.

    ``citations``, ``resolutions`` and ``claim_spans`` are parallel (the order of
    :func:`~citeview.core.resolution.resolve` and :func:`~citeview.core.claims.claim_spans`).
    The diagnostic spans the citation's marker. Claims without content words are skipped."""
    if not len(citations) == len(resolutions) == len(claim_spans):
        raise ValueError("citations, resolutions and claim spans must be parallel")
    scorer = SupportScorer()
    out: list[Diagnostic] = []
    for cit, res, (s, e) in zip(citations, resolutions, claim_spans, strict=True):
        claim = answer[s:e]
        for target in res.targets:
            if not target.ok:
                continue
            parts = scorer.parts(claim, target.text)
            score = parts.score
            if score is None or score >= threshold:
                continue
            out.append(make(
                "CV401",
                f"weak support from {target.source_id!r}: the cited text contains "
                f"{parts.matched} of the claim's {parts.total} content words ({score:.0%}, "
                f"below {threshold:.0%}); a hint to check, not a verdict",
                cit.start, cit.end))
    return out

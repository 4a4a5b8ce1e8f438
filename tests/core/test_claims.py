"""Claim spans: the text each citation supports, as a reviewer reads it."""

from __future__ import annotations

import re
from random import Random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from citeview.core.claims import claim_span, claim_spans, claim_texts
from citeview.core.markers import DELIMITER, START, STOP, scan


def m(source: str, locator: str | None = None) -> str:
    parts = [source] + ([locator] if locator else [])
    return START + "cite" + DELIMITER + DELIMITER.join(parts) + STOP


def claims(answer: str) -> list[str]:
    return claim_texts(answer, scan(answer).citations)


def test_each_sentence_is_the_claim_of_the_marker_after_it() -> None:
    answer = f"Remote work is three days.{m('f0', 'L1')} More needs approval.{m('f0', 'L2')}\n"
    assert claims(answer) == ["Remote work is three days.", "More needs approval."]


def test_a_claim_starts_after_the_previous_citation_inside_a_sentence() -> None:
    answer = f"Fares rise to $2.90{m('s0')} while passes stay at $127.{m('s1')}"
    assert claims(answer) == ["Fares rise to $2.90", "while passes stay at $127."]


def test_adjacent_markers_share_one_claim() -> None:
    answer = f"Intro. Riders objected.{m('a')} {m('b')}{m('c')} Next one.{m('d')}"
    assert claims(answer) == ["Riders objected."] * 3 + ["Next one."]
    spans = claim_spans(answer, scan(answer).citations)
    assert spans[0] == spans[1] == spans[2]


def test_recovered_citations_have_claims_too() -> None:
    # An unterminated marker (recovered by scan) still gets the sentence before it.
    answer = f"First claim.{m('a')} Second claim.{START}cite{DELIMITER}b"
    cits = scan(answer).citations
    assert [c.recovered is not None for c in cits] == [False, True]
    assert claim_texts(answer, cits) == ["First claim.", "Second claim."]


def test_emoji_offsets_are_code_points() -> None:
    answer = f"🎉 Party time 👍🏽.{m('a')} Then 🍰 cake.{m('b')}"
    cits = scan(answer).citations
    (s0, e0), (s1, e1) = claim_spans(answer, cits)
    assert answer[s0:e0] == "🎉 Party time 👍🏽." and (s0, e0) == (0, 16)
    assert answer[s1:e1] == "Then 🍰 cake."


def test_crlf_paragraphs_and_lists() -> None:
    answer = (f"Intro line\r\n\r\nThe fee is $5{m('a')}\r\n\r\n- item one{m('b')}\r\n"
              f"- item two, wrapped\r\n  over lines{m('c')}\r\n# Heading\r\nBody text{m('d')}")
    assert claims(answer) == ["The fee is $5", "item one", "item two, wrapped\r\n  over lines",
                              "Body text"]


def test_hard_wrapped_sentence_is_one_claim_and_cjk_stops_split() -> None:
    answer = f"A long sentence that\nwraps here.{m('a')} 第一句。第二句。{m('b')}"
    assert claims(answer) == ["A long sentence that\nwraps here.", "第二句。"]


def test_citation_at_start_has_an_empty_claim_and_claim_span_matches() -> None:
    answer = f"{m('a')} Text.{m('b')}"
    cits = scan(answer).citations
    assert claim_spans(answer, cits)[0] == (0, 0)
    assert claim_span(answer, cits, 1) == claim_spans(answer, cits)[1]
    assert claim_spans(answer, []) == []


# ------------------------------------------------------------------- properties

WORDS = st.sampled_from(["alpha", "beta", "🎉", "x2.5", "Ünï", "gamma", "(delta)", "e,"])
SEPS = st.sampled_from([" ", " ", "\n", "\r\n", "\r\n\r\n", ". ", "! ", "\n\n- ", "\t"])
PIECES = st.one_of(WORDS, SEPS, st.builds(m, st.sampled_from(["f0", "t1b2"]),
                                          st.sampled_from([None, "L1", "L2-L4"])))


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40))
def test_claims_lie_between_citations_within_one_sentence(pieces: list[str]) -> None:
    answer = "".join(pieces)
    cits = scan(answer).citations
    spans = claim_spans(answer, cits)
    assert len(spans) == len(cits)
    prev_end = 0
    for i, (c, (s, e)) in enumerate(zip(cits, spans, strict=True)):
        assert 0 <= s <= e <= c.start
        text = answer[s:e]
        assert text == text.strip()
        adjacent = i > 0 and not answer[cits[i - 1].end:c.start].strip()
        if adjacent:
            assert spans[i] == spans[i - 1]
        else:
            assert s >= prev_end
            # The claim reaches the marker (only whitespace between) and holds no sentence end
            # followed by more text, nor a paragraph break.
            assert not answer[e:c.start].strip()
            assert not re.search(r"[.!?]\s+\S", text)
            assert not re.search(r"\n[ \t]*\r?\n", text)
        prev_end = c.end


_SENTENCE_PIECES = st.sampled_from([
    "Claim", " ", ".", "!", "?", "\u2026", "\u3002", "\uff01", "\"", ")", "\u201d", "\n", "\r",
    "\r\n", "\t", "# ", "##", "```", "~~~", "- ", "* ", "> ", "| ", "1. ", "12) ", "x", "7",
])


@settings(max_examples=600, deadline=None)
@given(st.lists(_SENTENCE_PIECES, max_size=40).map("".join), st.integers(0, 60),
       st.integers(0, 60))
def test_sentence_boundaries_are_the_patterns_matches(text: str, a: int, b: int) -> None:
    """Sentence boundaries found from the places one may start (terminators, line breaks,
    line starts) are the boundary pattern's own matches, in any window: claims stay the same."""
    from citeview.core.claims import SENTENCE_BOUNDARY_RE, sentence_boundaries

    pos, endpos = min(a, b, len(text)), min(max(a, b), len(text))
    got = [m.span() for m in sentence_boundaries(text, pos, endpos)]
    assert got == [m.span() for m in SENTENCE_BOUNDARY_RE.finditer(text, pos, endpos)]


_CLAIM_PIECES = st.sampled_from([
    "Claim", "x", " ", "  ", "\t", "\n", "\r", "\r\n", "\n\n", "\u2028", "\x0c", "\u00a0", ".", "!",
    "?", ",", ";", "\u2026", "\u3002", "\uff01", "\uff1f", "\"", ")", "\u201d", "# ", "```",
    "- ", "-", "* ", "> ", "| ", "1. ", "12) ", "7", "\u0663) ", "é", "😀",
])


@settings(max_examples=1000, deadline=None)
@given(st.lists(_CLAIM_PIECES, max_size=30).map("".join), st.integers(0, 80),
       st.one_of(st.just(80), st.integers(0, 80)))
@example("Claim\r\rMore", 0, 80)
@example("\n# Head\rClaim", 0, 80)
@example("Intro\n \u0663) Claim", 5, 80)
@example("- Claim", 0, 80)
@example("Intro\u3002Claim", 0, 80)
def test_a_claims_quick_start_is_the_one_its_sentence_boundaries_give(
        text: str, a: int, b: int) -> None:
    """A claim decided by its cheap check starts where the last sentence boundary before the
    marker says it does."""
    from citeview.core.claims import _claim

    lo, marker = min(a, b, len(text)), min(max(a, b), len(text))
    assert _claim(text, lo, marker) == _claim(text, lo, marker, quick=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(PIECES, max_size=40), st.randoms(use_true_random=False))
def test_claims_do_not_depend_on_the_order_citations_are_given_in(
        pieces: list[str], rnd: Random) -> None:
    """Citations given in any order get the claims they get in reading order."""
    answer = "".join(pieces)
    cits = scan(answer).citations
    shuffled = list(range(len(cits)))
    rnd.shuffle(shuffled)
    spans = claim_spans(answer, cits)
    assert claim_spans(answer, [cits[i] for i in shuffled]) == [spans[i] for i in shuffled]


@given(st.text(st.sampled_from(list(" \t\n\r\u00a0\u2028\u3000.!?,;:\"')]}\u00bb\u201d\u2019"
                                    "\u300d\u300f\uff09\u2026\u3002\uff01\uff1fab"))),
       st.integers(0, 40), st.integers(0, 40))
def test_a_claim_ends_where_the_whitespace_before_its_marker_starts(text: str, a: int,
                                                                   b: int) -> None:
    """A claim runs up to its marker less the whitespace before it (what str.isspace calls
    whitespace, character by character), its closing punctuation kept."""
    from citeview.core.claims import _claim

    lo, marker = min(a, b, len(text)), min(max(a, b), len(text))
    end = marker
    while end > lo and text[end - 1].isspace():
        end -= 1
    start, got_end = _claim(text, lo, marker)
    assert got_end == end
    assert lo <= start <= end


class _At:
    """A citation at ``start``..``end`` (claim_spans reads nothing else)."""

    def __init__(self, start: int, end: int) -> None:
        self.start, self.end = start, end


@settings(max_examples=600, deadline=None)
@given(st.lists(_CLAIM_PIECES | WORDS, max_size=30).map("".join),
       st.lists(st.tuples(st.integers(0, 90), st.integers(0, 25)), max_size=8))
@example("One.  Two three.\n\nFour", [(4, 0), (5, 0), (16, 2), (17, 0)])
@example("Intro claim here and more", [(0, 20), (5, 2), (12, 0)])
def test_claims_walked_as_given_are_those_of_the_sorted_walk(
        text: str, raw: list[tuple[int, int]]) -> None:
    """Citations given in reading order (a scan's) get the claims of the general walk, which
    sorts them first: in groups, after whitespace only, and when one overlaps the next."""
    from citeview.core.claims import _sorted_claim_spans

    starts = sorted({min(s, len(text)) for s, _ in raw})
    cits = [_At(s, min(s + n, len(text))) for s, (_, n) in zip(starts, raw, strict=False)]
    assert claim_spans(text, cits) == _sorted_claim_spans(text, cits)


_PROSE = st.lists(st.sampled_from(["Policy", "requires", "approval", "the", "it's", "3.5",
                                   "日本語", "(note)", "e.g.", "x"]), max_size=12).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_PROSE, st.sampled_from([".", "", "!", ".)"]),
                          st.lists(st.sampled_from(["L1", "L2-L3", None]), min_size=1,
                                   max_size=3),
                          st.sampled_from(["", " ", "  "]),
                          st.sampled_from(["\n\n", " ", "\n", "\r\n\r\n", "\n- ", "\n1. "])),
                max_size=5))
def test_an_export_shaped_answers_claims_are_those_of_the_sorted_walk(
        parts: list[tuple[str, str, list[str | None], str, str]]) -> None:
    """Answers shaped like an export's (sentences each ending in a marker or a group of them,
    paragraphs apart) and near that shape get the claims of the general walk."""
    from citeview.core.claims import _sorted_claim_spans

    answer = "".join(prose.capitalize() + stop + glue.join(m("turn0file0", loc) for loc in locs)
                     + sep for prose, stop, locs, glue, sep in parts)
    cits = scan(answer).citations
    assert claim_spans(answer, cits) == _sorted_claim_spans(answer, cits)

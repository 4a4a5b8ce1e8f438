"""The marker scan tries its whole-word patterns only near the literal each match holds
(core/nearsearch.py): it must find exactly what trying them everywhere finds."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core import markers, wild
from citeview.core.markers import scan
from citeview.core.nearsearch import finditer_near

# Pieces that make near misses of every pattern tried near a literal: degraded markers of the
# enabled and other families, bare and glued ids, lost characters, words around them.
_PIECES = st.sampled_from([
    "turn", "turn0", "file", "0", "12", "search", "cite", "filecite", "i", "url", "entity",
    "navlist", "citeturn0file0", "turn0file0", "turn1view2", "L3", "-L4", "\ufffd", "?", " ",
    ".", "\n", "-", "_", "a", "x", "Z", "\ue200", "\ue202", "\ue201", "doc7", "ab1c",
    "returns", "\u3010", "\u3011",
])
texts = st.lists(_PIECES, max_size=40).map("".join)
families = st.sampled_from([("cite",), ("cite", "filecite"), ("i",), ("url", "cite")])
known = st.lists(st.sampled_from(["doc7", "turn0file0", "ab1c", "file12", "x" * 3 + "9"]),
                 max_size=3)


def _everywhere(pattern: re.Pattern[str], text: str, *_: object) -> object:
    return pattern.finditer(text)


@settings(max_examples=600, deadline=None)
@given(texts, families, known)
def test_scan_finds_what_trying_every_place_finds(text: str, fams: tuple[str, ...],
                                                  ids: list[str]) -> None:
    """Citations and diagnostics of the scan (degraded markers, bare ids, verbatim ids, wild
    forms of other families) are those of the patterns tried at every position."""
    got = scan(text, fams, ids)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(markers, "finditer_near", _everywhere)
        mp.setattr(wild, "finditer_near", _everywhere)
        want = scan(text, fams, ids)
    assert [c.to_dict() for c in got.citations] == [c.to_dict() for c in want.citations]
    assert got.diagnostics == want.diagnostics


@settings(max_examples=400, deadline=None)
@given(texts, st.sampled_from(["turn", "cite", "0"]), st.integers(0, 6))
def test_matches_are_finditers_for_a_pattern_that_holds_the_literal(text: str, literal: str,
                                                                    back: int) -> None:
    """A whole-word pattern whose matches hold the literal within ``back`` letters of their
    start: the same matches, in order."""
    pattern = re.compile(f"(?<![A-Za-z0-9_-])[a-z]{{0,{back}}}{re.escape(literal)}[a-z0-9]*")
    lead = frozenset("abcdefghijklmnopqrstuvwxyz")
    got = [(m.span(), m.group()) for m in finditer_near(pattern, text, [literal], back, lead)]
    assert got == [(m.span(), m.group()) for m in pattern.finditer(text)]


def test_a_degraded_marker_of_another_family_and_bare_ids_are_still_told() -> None:
    text = "See urlturn0search1 and turn0file0turn0file1 here, or file12 and doc7."
    codes = [(d.code, text[d.start:d.end]) for d in scan(text, ("cite",), ["doc7"]).diagnostics]
    assert ("CV113", "urlturn0search1") in codes or ("CV111", "urlturn0search1") in codes
    assert ("CV117", "turn0file0turn0file1") in codes
    assert ("CV109", "doc7") in codes


_MARKED = st.lists(st.sampled_from([
    "Claim one.", " ", "\n", "\ue200cite\ue202turn0file0\ue202L2\ue201",
    "\ue200cite\ue202turn0file1\ue201", "\ue200cite\ue202 turn1view0 \ue202 turn0file0 \ue201",
    "\ue200cite\ue202L3\ue202turn0file0\ue201", "\ue200cite\ue202bad id\ue201", "citeturn0file2",
    "turn0file0", "\u3010turn0file0\u3011", "x7", "\ue200cite\ue202turn0file0L2-3\ue201",
]), max_size=20).map("".join)


@settings(max_examples=500, deadline=None)
@given(_MARKED)
def test_a_stray_delimiter_at_the_end_changes_nothing_but_its_own_finding(text: str) -> None:
    """An answer whose marker characters all belong to well-formed markers is scanned without
    visiting each character; one stray DELIMITER after it makes the scan visit them all: the
    findings must be the same but for that stray character's own."""
    plain, stray = scan(text, ("cite",), ["turn0file0"]), scan(text + "\ue202", ("cite",),
                                                                ["turn0file0"])
    assert [c.to_dict() for c in plain.citations] == [c.to_dict() for c in stray.citations]
    assert [*plain.diagnostics, *(d for d in stray.diagnostics if d.start == len(text))] \
        == stray.diagnostics
    assert [d.code for d in stray.diagnostics if d.start == len(text)] == ["CV105"]

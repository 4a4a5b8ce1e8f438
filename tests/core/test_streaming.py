"""Streaming: for every chunking, the incremental result equals the whole-text parse."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.markers import DELIMITER as D
from citeview.core.markers import START as S
from citeview.core.markers import STOP as E
from citeview.core.markers import extract_citations
from citeview.core.streaming import IncrementalExtractor

_atoms = st.sampled_from([
    S, D, E, "cite", "navlist", "turn0file0", "turn1news2", "L8", "L8-L13", " ", "\n", "x",
    "😀", "ci", "te", "-", "L", "block5", ".",
])
marker_text = st.lists(_atoms, max_size=60).map("".join)
families = st.sampled_from([("cite",), ("cite", "navlist"), ("navlist", "cite"), (), ("ci",)])


def chunked(text: str, cuts: list[int]) -> list[str]:
    points = sorted({min(c, len(text)) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in zip(points, points[1:], strict=False)]


@settings(max_examples=500, deadline=None)
@given(marker_text, families, st.lists(st.integers(0, 200), max_size=12))
def test_any_chunking_gives_the_whole_text_parse(text: str, fams: tuple[str, ...],
                                                cuts: list[int]) -> None:
    stream = IncrementalExtractor(fams)
    got = []
    for chunk in chunked(text, cuts):
        got.extend(stream.feed(chunk))
    got.extend(stream.finish())
    expected = extract_citations(text, fams)
    assert [c.to_dict() for c in got] == [c.to_dict() for c in expected]
    assert stream.citations == got


def test_a_citation_is_returned_as_soon_as_its_stop_arrives() -> None:
    stream = IncrementalExtractor()
    assert stream.feed(f"Remote work is allowed.{S}ci") == []
    assert stream.feed(f"te{D}turn0file0{D}L1") == []
    [c] = stream.feed(f"{E} More text")
    assert (c.source_ids, c.locator, c.start) == (("turn0file0",), "L1", 23)
    assert stream.feed(f"{S}cite{D}turn0file1") == []
    assert stream.finish() == []  # never closed: the reference returns nothing for it


def test_one_character_at_a_time() -> None:
    text = (f"A.{S}cite{D}turn0file0{E} B.{S}cite{D}turn0file1 unterminated "
            f"C.{S}cite{D}turn1news2{D}L2-L4{E}")
    stream = IncrementalExtractor()
    got = [c for ch in text for c in stream.feed(ch)]
    assert [c.to_dict() for c in got] == [c.to_dict() for c in extract_citations(text)]


def test_families_with_marker_characters_are_refused() -> None:
    with pytest.raises(ValueError):
        IncrementalExtractor((f"ci{E}te",))

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


# --------------------------------------------------------------------------- incremental scan

from citeview.core.markers import ScanResult, scan  # noqa: E402
from citeview.core.streaming import IncrementalScanner, safe_cut  # noqa: E402

MS, MD, MT = "\u00ee\u02c6\u20ac", "\u00ee\u02c6\u201a", "\u00ee\u02c6"
_scan_atoms = st.sampled_from([
    S, D, E, "cite", "filecite", "entity", "turn0file0", "turn1news2", "L8", "L8-L13", " ", "\n",
    "x", "😀", "-", ".", "\\ue200", "\\ue201", "\\ue202", "citeturn0file0", "【3†source】",
    "[3†source]", ":contentReference[oaicite:0]{index=0}", MS, MD, MT, "\x81", "\r\n", "?",
    "iturn0image0",
])
scan_text = st.lists(_scan_atoms, max_size=40).map("".join)


def dump(r: ScanResult) -> tuple[list[object], list[object]]:
    return ([c.to_dict() for c in r.citations], [d.to_dict() for d in r.diagnostics])


@settings(max_examples=400, deadline=None)
@given(scan_text, st.lists(st.integers(0, 200), max_size=12),
       st.sampled_from([("cite",), ("cite", "filecite")]), st.sampled_from([4096, 3, 0]))
def test_incremental_scan_equals_the_whole_text_scan_for_every_chunking(
        text: str, cuts: list[int], fams: tuple[str, ...], limit: int) -> None:
    stream = IncrementalScanner(fams, hold_limit=limit)
    seen = 0
    for chunk in chunked(text, cuts):
        update = stream.feed(chunk)
        seen += len(chunk)
        # While streaming: what is found is the static scan of the text released so far.
        assert update.released <= seen
        if not update.held:
            assert update.released == seen
        assert dump(stream.result()) == dump(scan(text[:update.released], fams))
    assert dump(stream.finish()) == dump(scan(text, fams))


@settings(max_examples=300, deadline=None)
@given(scan_text)
def test_a_safe_cut_splits_the_scan(text: str) -> None:
    cut = safe_cut(text)
    if cut:
        head, tail = scan(text[:cut]), scan(text[cut:])
        for c in tail.citations:
            c.start += cut
            c.end += cut
        for d in tail.diagnostics:
            d.start += cut
            d.end += cut
        assert dump(scan(text)) == (dump(head)[0] + dump(tail)[0], dump(head)[1] + dump(tail)[1])


def test_diagnostics_appear_while_streaming() -> None:
    stream = IncrementalScanner()
    update = stream.feed("Yes fileciteturn45file0L2-L2.\nMore")
    assert [d.code for d in update.final.diagnostics] == ["CV111"]
    update = stream.feed(f" text {S}cite{D}turn0file0")
    assert update.held and update.released == len("Yes fileciteturn45file0L2-L2.\nMore text ")
    update = stream.feed(f"{E}.")
    assert not update.held and [c.source_ids for c in update.provisional.citations] == [
        ("turn0file0",)]


def test_an_unterminated_marker_is_held_up_to_the_limit_then_released_then_replaced() -> None:
    head = f"Leave {S}cite{D}turn0file0"
    text = head + " " * 5000 + E + " done."
    stream = IncrementalScanner()
    update = stream.feed(head)
    assert update.held and update.released == len("Leave ") and not update.provisional.diagnostics
    update = stream.feed(" " * 4000)
    assert update.held
    update = stream.feed(" " * 1000)  # over 4 KiB: released as text, with its diagnostic
    assert not update.held and update.released == len(head) + 5000
    assert [d.code for d in update.provisional.diagnostics] == ["CV101"]
    assert [c.recovered for c in update.provisional.citations] == ["unterminated"]
    update = stream.feed(E + " done.")  # it completes: the citation replaces the released text
    assert update.provisional.diagnostics == []
    (c,) = update.provisional.citations
    assert c.recovered is None and (c.start, c.end) == (6, len(head) + 5001)
    assert dump(stream.finish()) == dump(scan(text))

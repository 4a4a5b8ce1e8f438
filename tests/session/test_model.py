"""Citation numbering and re-attachment of annotations when an answer changes."""

from __future__ import annotations

from citeview.core.cases import Case
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    case_citations,
    reattach,
)

S, D, E = "\ue200", "\ue202", "\ue201"


def mk(src: str) -> str:
    return f"{S}cite{D}{src}{E}"


def test_citations_are_numbered_in_reading_order_with_recovered_ones_flagged() -> None:
    answer = f"One.{mk('a')} Two.{mk('b')}{mk('c')} Three.{S}cite{D}d"
    slots = case_citations(Case("x", answer))
    assert [(s.number, s.source_ids, s.recovered) for s in slots] == [
        (1, ("a",), None), (2, ("b",), None), (3, ("c",), None), (4, ("d",), "unterminated")]
    assert [s.claim for s in slots] == ["One.", "Two.", "Two.", "Three."]
    assert slots[3].keys("x") == [AnnotationKey("x", 4, slots[3].anchor, "d")]


def ann(number: int, raw: str, src: str, claim: str, verdict: str = "supported",
        who: str = "ana") -> Annotation:
    return Annotation(AnnotationKey("x", number, raw, src), who, verdict, claim=claim)


def test_reattach_keeps_matches_moves_by_marker_and_claim_and_orphans_the_rest() -> None:
    old = f"A claim.{mk('a')} Another claim.{mk('b')} Third.{mk('c')}"
    new = f"New first.{mk('z')} A claim.{mk('a')} Another  claim.{mk('b')} Third, changed.{mk('c')}"
    before = case_citations(Case("x", old))
    anns = [ann(s.number, s.anchor, s.source_ids[0], s.claim, v, who)
            for s, v in zip(before, ["supported", "unsupported", "cannot tell"], strict=True)
            for who in ("ana", "bob")]
    result = reattach(anns, case_citations(Case("x", new)))
    assert sorted((a.annotator, a.key.number, a.verdict) for a in result.placed) == [
        ("ana", 2, "supported"), ("ana", 3, "unsupported"),
        ("bob", 2, "supported"), ("bob", 3, "unsupported")]
    assert [(a.key.number, a.verdict, a.orphaned) for a in result.orphaned] == [
        (3, "cannot tell", True), (3, "cannot tell", True)]


def test_reattach_prefers_the_nearest_of_repeated_markers() -> None:
    text = f"Same.{mk('a')} Same.{mk('a')} Same.{mk('a')}"
    slots = case_citations(Case("x", text))
    result = reattach([ann(3, slots[0].anchor, "a", "Same."),
                       ann(9, slots[0].anchor, "a", "Same.")], slots)
    assert sorted(a.key.number for a in result.placed) == [2, 3]
    assert result.orphaned == []


def test_nothing_is_dropped_when_the_answer_loses_all_citations() -> None:
    slots = case_citations(Case("x", "No citations left."))
    anns = [ann(1, mk("a"), "a", "A claim."), ann(2, mk("b"), "b", "B.")]
    result = reattach(anns, slots)
    assert result.placed == [] and len(result.orphaned) == 2

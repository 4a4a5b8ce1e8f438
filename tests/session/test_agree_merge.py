"""Agreement between two annotators' sessions, merging them, and adjudicating (hand-computed)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from _review_cases import ANSWERS, CT, PART, SUP, UNS, build, cite, session_a, session_b

from citeview.core.errors import InputError
from citeview.session import Annotation, Session, SessionError, case_citations
from citeview.session.agree import compare, render_text
from citeview.session.merge import (
    ADJUDICATED,
    adjudicate,
    iter_disagreements,
    merge_sessions,
    merged_annotators,
)
from citeview.session.report import summarize


def test_agreement_over_citations_judged_in_both(tmp_path: Path) -> None:
    with session_a(tmp_path) as a, session_b(tmp_path) as b:
        ag = compare(a, b)
    # shared cases c1, c2; c3 only in A, c4 only in B
    assert (ag.shared_cases, ag.only_a, ag.only_b) == (2, ["c3"], ["c4"])
    # pairs (A, B): c1 (sup,sup) (part,uns) (uns,uns); c2 (sup,sup) (ct,ct) (uns,part)
    assert ag.pairs == [(SUP, SUP), (PART, UNS), (UNS, UNS), (SUP, SUP), (CT, CT), (UNS, PART)]
    # p_o = 4 agreeing / 6 = 0.6667
    assert ag.percent == pytest.approx(4 / 6)
    # A: sup 2, part 1, uns 2, ct 1; B: sup 2, part 1, uns 2, ct 1
    # p_e = (2*2 + 1*1 + 2*2 + 1*1) / 6^2 = 10 / 36
    # kappa = (24/36 - 10/36) / (1 - 10/36) = (14/36) / (26/36) = 14 / 26 = 0.5385
    assert ag.kappa == pytest.approx(14 / 26)
    assert ag.confusion.counts == (
        # B: sup part uns ct
        (2, 0, 0, 0),  # A sup
        (0, 0, 1, 0),  # A part
        (0, 1, 1, 0),  # A uns
        (0, 0, 0, 1),  # A ct
    )
    assert [(d["case_id"], d["citation"], d["a"]["verdict"], d["a"]["note"],
             d["b"]["verdict"], d["b"]["note"]) for d in ag.disagreements] == [
        ("c1", 2, PART, "only half of it", UNS, "says nothing about more days"),
        ("c2", 3, UNS, "=1+1 not in the block", PART, ""),
    ]
    text = render_text(ag)
    assert "Cohen's kappa: 0.538" in text and "Percent agreement: 66.7%" in text
    assert "only in A: c3" in text and "A note: only half of it" in text


def test_sessions_sharing_no_case_are_an_input_error(tmp_path: Path) -> None:
    with (build(tmp_path / "x.citeview", ["c3"], "x", {}, "01") as x,
          build(tmp_path / "y.citeview", ["c4"], "y", {}, "01") as y,
          pytest.raises(InputError, match="share no case")):
        compare(x, y)


def test_merge_keeps_both_verdicts_side_by_side(tmp_path: Path) -> None:
    with session_a(tmp_path) as a, session_b(tmp_path) as b:
        merged, report = merge_sessions(a, b, str(tmp_path / "c.citeview"))
    with merged:
        assert merged.case_ids() == ["c1", "c2", "c3", "c4"]
        assert (report.only_a, report.only_b, report.differing) == (["c3"], ["c4"], [])
        assert merged_annotators(merged) == ["ana", "bo"]
        key = case_citations(merged.get_case("c1"))[1].keys("c1")[0]
        assert merged.annotation(key, "ana").verdict == PART
        assert merged.annotation(key, "bo").verdict == UNS
        assert merged.annotation(key, "bo").note == "says nothing about more days"
        assert len(merged.annotations()) == 6 + 7
        assert {(r.case_id, r.annotator) for r in merged.reviews()} >= {("c1", "ana"),
                                                                       ("c4", "bo")}


def test_adjudication_records_a_final_verdict_the_report_counts(tmp_path: Path) -> None:
    with session_a(tmp_path) as a, session_b(tmp_path) as b:
        merged, _ = merge_sessions(a, b, str(tmp_path / "c.citeview"))
    with merged:
        merged.annotator = "chair"
        found = list(iter_disagreements(merged))
        assert [(d.key.case_id, d.key.number, d.verdicts) for d in found] == [
            ("c1", 2, {"ana": PART, "bo": UNS}), ("c2", 3, {"ana": UNS, "bo": PART})]
        assert found[0].claim == "More days need manager approval."
        # Before adjudication the most recent verdict counts (B's, a day later):
        # sup: c1#1 c2#1 c4#1 = 3; part: c2#3 = 1; uns: c1#2 c1#3 = 2; ct: c2#2 = 1
        before = summarize(merged)["verdicts"]
        assert (before[SUP], before[PART], before[UNS], before[CT]) == (3, 1, 2, 1)
        edit = adjudicate(merged, found[0].key, PART, "the block says half")
        final = merged.annotation(found[0].key, ADJUDICATED)
        assert (final.verdict, final.note, final.extra) == (
            PART, "the block says half", {"adjudicator": "chair"})
        assert [d.key.number for d in iter_disagreements(merged, pending_only=True)] == [3]
        # Adjudicated c1#2 = part: sup 3, part 2, uns 1, ct 1 -> judged 6,
        # precision = (3 + 0.5 x 2) / 6 = 4 / 6
        rep = summarize(merged)
        after = rep["verdicts"]
        assert (after[SUP], after[PART], after[UNS], after[CT]) == (3, 2, 1, 1)
        assert rep["precision"]["precision"] == pytest.approx(4 / 6)
        edit.undo()
        assert merged.annotation(found[0].key, ADJUDICATED) is None
        edit.redo()
        assert merged.annotation(found[0].key, ADJUDICATED).verdict == PART
        with pytest.raises(SessionError, match="unknown verdict"):
            adjudicate(merged, found[0].key, "maybe")


def test_same_annotator_name_in_both_is_told_apart(tmp_path: Path) -> None:
    with build(tmp_path / "one.citeview", ["c1"], "ana", {"c1": [SUP, SUP, SUP]}, "01") as x, \
            build(tmp_path / "two.citeview", ["c1"], "ana", {"c1": [SUP, UNS, SUP]}, "02") as y:
        merged, report = merge_sessions(x, y, str(tmp_path / "m.citeview"))
        ag = compare(x, y)
    with merged:
        assert merged_annotators(merged) == ["ana (one)", "ana (two)"]
        assert report.renamed == [{"ana": "ana (one)"}, {"ana": "ana (two)"}]
        assert [d.verdicts for d in iter_disagreements(merged)] == [
            {"ana (one)": SUP, "ana (two)": UNS}]
    # 3 pairs, 2 agree; A: sup 3; B: sup 2, uns 1 -> p_e = (3*2 + 0*1) / 9 = 6/9
    # kappa = (6/9 - 6/9) / (1 - 6/9) = 0
    assert ag.kappa == pytest.approx(0.0)


def test_a_changed_answer_in_b_is_reattached_to_a(tmp_path: Path) -> None:
    a = build(tmp_path / "a.citeview", ["c1"], "ana", {"c1": [SUP, SUP, SUP]}, "01")
    b = build(tmp_path / "b.citeview", ["c1"], "bo", {"c1": [UNS, UNS, UNS]}, "02")
    # A's copy of c1 gains a sentence in front (citations renumber) and drops the last one.
    new = "Intro sentence.\u00a0" + cite("turn0file1") + " " + ANSWERS["c1"].replace(
        cite("turn0file1"), "")
    a.update_case(replace(a.get_case("c1"), answer=new))
    with a, b:
        merged, report = merge_sessions(a, b, str(tmp_path / "m.citeview"))
    with merged:
        assert report.differing == ["c1"] and report.orphaned == 1
        bo = {(x.key.number, x.orphaned): x.verdict for x in merged.annotations(annotator="bo")}
        # bo's citations 1 and 2 move to numbers 2 and 3; the 3rd has no place: orphaned
        assert bo == {(2, False): UNS, (3, False): UNS, (3, True): UNS}


def test_merge_refuses_to_overwrite_an_input(tmp_path: Path) -> None:
    with session_a(tmp_path) as a, session_b(tmp_path) as b:
        with pytest.raises(InputError, match="new file"):
            merge_sessions(a, b, a.path)
        with pytest.raises(SessionError, match="already exists"):
            Session.create(str(tmp_path / "z.citeview"), []).close()
            merge_sessions(a, b, str(tmp_path / "z.citeview"))


def _with_rubric(session: Session, labels: list[str]) -> Session:
    session.set_labels(labels)
    return session


def test_different_rubrics_compare_only_labels_both_have(tmp_path: Path) -> None:
    """A's rubric lacks "partially supported" and "cannot tell" and has "wrong source": pairs
    with a one-sided label say nothing about agreement and are set apart, with a warning."""
    wrong = "wrong source"
    a = _with_rubric(build(tmp_path / "a.citeview", ["c1", "c2"], "ana", {}, "01"),
                     [SUP, UNS, wrong])
    for cid, verdicts in {"c1": [SUP, wrong, UNS], "c2": [SUP, UNS, UNS]}.items():
        for slot, v in zip(case_citations(a.get_case(cid)), verdicts, strict=True):
            a.put_annotation(Annotation(slot.keys(cid)[0], "ana", v, "",
                                        "2026-01-01T10:00:00.000Z", slot.claim))
    with a, session_b(tmp_path) as b:
        ag = compare(a, b)
    # B (default rubric): c1 sup uns uns; c2 sup ct part. Compared: c1 1 and 3, c2 1.
    assert ag.pairs == [(SUP, SUP), (UNS, UNS), (SUP, SUP)]
    assert [(d["case_id"], d["citation"]) for d in ag.not_compared] == [
        ("c1", 2), ("c2", 2), ("c2", 3)]
    assert (ag.labels_only_a, ag.labels_only_b) == ((wrong,), (PART, CT))
    assert ag.percent == 1.0 and ag.kappa == pytest.approx(1.0)
    assert ag.confusion.labels == (SUP, UNS)
    (warning,) = ag.warnings
    assert "different verdict labels" in warning and "3 not compared" in warning
    text = render_text(ag)
    assert f"Warning: {warning}" in text and "Percent agreement: 100.0%" in text
    assert "c1 citation 2 [turn0file0]: A wrong source / B unsupported" in text


def test_disjoint_rubrics_give_no_agreement_rather_than_zero(tmp_path: Path) -> None:
    a = _with_rubric(build(tmp_path / "a.citeview", ["c1"], "ana", {}, "01"), ["yes", "no"])
    for slot, v in zip(case_citations(a.get_case("c1")), ["yes", "no", "no"], strict=True):
        a.put_annotation(Annotation(slot.keys("c1")[0], "ana", v, "",
                                    "2026-01-01T10:00:00.000Z", slot.claim))
    with a, session_b(tmp_path) as b:
        ag = compare(a, b)
    assert ag.pairs == [] and len(ag.not_compared) == 3
    assert ag.percent is None and ag.kappa is None  # was 0% and kappa 0, unexplained
    assert "no agreement is computed" in ag.warnings[0]
    assert "Percent agreement: n/a" in render_text(ag)


def test_same_rubric_in_another_order_is_no_mismatch(tmp_path: Path) -> None:
    with session_a(tmp_path) as a, session_b(tmp_path) as b:
        b.set_labels(list(reversed(b.labels)))
        ag = compare(a, b)
    assert ag.warnings == [] and ag.not_compared == [] and len(ag.pairs) == 6

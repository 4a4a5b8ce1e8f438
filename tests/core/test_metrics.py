"""Review metrics with hand-computed results (the arithmetic is in the comments)."""

from __future__ import annotations

import pytest

from citeview.core.claims import claim_texts
from citeview.core.markers import scan
from citeview.core.metrics import (
    Recall,
    answer_sentences,
    citation_recall,
    cohen_kappa,
    confusion_matrix,
    percent_agreement,
    precision,
    unsupported_rates,
)

S, D, E = "\ue200", "\ue202", "\ue201"
SUP, PART, UNS, CT = "supported", "partially supported", "unsupported", "cannot tell"


def cite(sid: str) -> str:
    return f"{S}cite{D}{sid}{E}"


def test_precision_counts_partial_support_as_half() -> None:
    p = precision([SUP, SUP, SUP, PART, UNS, CT, None, PART])
    # judged = everything but "cannot tell" and None: 3 sup + 2 part + 1 uns = 6
    # precision = (3 + 0.5 * 2) / 6 = 4 / 6; plain supported share = 3 / 6
    assert (p.decided, p.supported, p.partial) == (6, 3, 2)
    assert p.precision == pytest.approx(4 / 6)
    assert p.supported_share == pytest.approx(0.5)


def test_nothing_judged_is_not_applicable_rather_than_zero() -> None:
    p = precision([CT, None])
    assert p.decided == 0 and p.precision is None and p.supported_share is None


def test_unsupported_rate_per_source_kind() -> None:
    rates = unsupported_rates([("line", UNS), ("line", SUP), ("line", PART), ("block", UNS),
                               ("block", CT), ("document", None)])
    # line: 1 unsupported of 3 judged; block: 1 of 1 ("cannot tell" is not judged);
    # document: nothing judged, so not listed
    assert {k: (r.unsupported, r.decided) for k, r in rates.items()} == {
        "block": (1, 1), "line": (1, 3)}
    assert rates["line"].rate == pytest.approx(1 / 3)


def test_sentences_leave_out_headings_and_code_and_keep_their_citations() -> None:
    answer = (f"# Remote work {cite('h')}\n\n"
              f"You may work remotely three days a week. {cite('a')} "
              f"More needs approval.{cite('b')}{cite('c')} Ask HR.\n\n"
              f"```\nnot. a sentence. {cite('x')}\n```\n\n"
              f"- first item{cite('d')}\n- second item\n")
    cits = scan(answer).citations
    got = [(answer[s.start:s.end], [cits[i].source_ids[0] for i in s.citations])
           for s in answer_sentences(answer, cits)]
    assert got == [
        ("You may work remotely three days a week.", ["a"]),
        ("More needs approval.", ["b", "c"]),
        ("Ask HR.", []),
        ("first item", ["d"]),
        ("second item", []),
    ]


def test_a_marker_before_the_full_stop_space_splits_sentences_after_removal() -> None:
    answer = f"One claim.{cite('a')} Two claims.{cite('b')}"
    cits = scan(answer).citations
    assert [s.citations for s in answer_sentences(answer, cits)] == [(0,), (1,)]


@pytest.mark.parametrize("pieces", [
    ["Remote work is three days.", " Approval is needed!", " Is it paid?"],
    ["A first point.", "\n\nA new paragraph starts here."],
    ["- Item one holds a claim", "\n- Item two holds another"],
    ["> Quoted text.", "\n> More quoted text."],
    ["远程工作每周三天。", "需要经理批准。"],
    ["It ends with a quote.\u201d", " Then another\u2026", " And a last one."],
])
def test_a_sentence_for_recall_is_a_claim(pieces: list[str]) -> None:
    # Each sentence cited once at its end: the claims are exactly the sentences of recall.
    answer = "".join(p + cite(f"turn0file{i}") for i, p in enumerate(pieces))
    cits = scan(answer).citations
    sentences = answer_sentences(answer, cits)
    assert [answer[x.start:x.end] for x in sentences] == claim_texts(answer, cits)
    assert [x.citations for x in sentences] == [(i,) for i in range(len(pieces))]


def test_recall_in_the_alce_sense() -> None:
    r = citation_recall([
        [SUP],            # supported
        [UNS, SUP],       # supported: at least one citation judged supported
        [PART],           # partially supported is not supported
        [None],           # cited, not judged: not supported
        [],               # uncited: unsupported
    ])
    # 2 supported of 5 sentences; 4 cited, 1 uncited
    assert (r.sentences, r.cited, r.supported, r.uncited) == (5, 4, 2, 1)
    assert r.recall == pytest.approx(2 / 5)
    assert (r + Recall(3, 3, 3)).recall == pytest.approx(5 / 8)
    assert citation_recall([]).recall is None


PAIRS = [(SUP, SUP), (SUP, SUP), (SUP, SUP), (SUP, UNS), (UNS, UNS), (UNS, UNS), (UNS, PART),
         (PART, PART), (PART, SUP), (CT, CT)]


def test_percent_agreement_and_cohens_kappa() -> None:
    # agreeing pairs: 1, 2, 3, 5, 6, 8, 10 -> p_o = 7 / 10
    assert percent_agreement(PAIRS) == pytest.approx(0.7)
    # A: sup 4, uns 3, part 2, ct 1; B: sup 4, uns 3, part 2, ct 1
    # p_e = (4*4 + 3*3 + 2*2 + 1*1) / 10^2 = 30 / 100
    # kappa = (0.7 - 0.3) / (1 - 0.3) = 0.4 / 0.7 = 0.571428...
    assert cohen_kappa(PAIRS) == pytest.approx(0.4 / 0.7)


def test_kappa_of_disagreement_beyond_chance_is_negative_and_undefined_for_one_label() -> None:
    # A always sup/uns, B the opposite: p_o = 0, p_e = (1*1 + 1*1) / 4 = 0.5 -> kappa = -1
    assert cohen_kappa([(SUP, UNS), (UNS, SUP)]) == pytest.approx(-1.0)
    # one label throughout: p_e = 1, kappa undefined (not 0, not 1)
    assert cohen_kappa([(SUP, SUP), (SUP, SUP)]) is None
    assert cohen_kappa([]) is None and percent_agreement([]) is None


def test_confusion_matrix_rows_are_a_columns_are_b_in_rubric_order() -> None:
    m = confusion_matrix(PAIRS, (SUP, PART, UNS, CT))
    assert m.labels == (SUP, PART, UNS, CT)
    assert m.counts == (
        # B: sup part uns ct
        (3, 0, 1, 0),  # A sup
        (1, 1, 0, 0),  # A part
        (0, 1, 2, 0),  # A uns
        (0, 0, 0, 1),  # A ct
    )
    assert confusion_matrix([("odd", SUP)], (SUP,)).labels == (SUP, "odd")

"""Lexical support score: the triage hint a reviewer sees beside each resolved citation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeview.core.cases import Case
from citeview.core.claims import claim_spans
from citeview.core.diagnostics import RULES, Severity
from citeview.core.markers import scan
from citeview.core.material import case_material
from citeview.core.resolution import Target, resolve
from citeview.core.support import (
    SupportScorer,
    content_words,
    stem,
    support_parts,
    support_score,
    weak_support_diagnostics,
)

S, D, E = "\ue200", "\ue202", "\ue201"
L1 = "Employees may work remotely up to three days per week."


def test_a_claim_restating_its_line_scores_one() -> None:
    # content words of the claim: work, remot(ely), thre(e), day(s), week -> all 5 in L1
    assert support_score("You may work remotely up to three days per week.", L1) == 1.0


def test_share_of_the_claims_content_words_found_in_the_cited_text() -> None:
    claim = "Managers approve remote work within ten days."
    # claim: manager, approv, remot, work, within, ten, day = 7 content words
    # cited: employe, work, remot, thre, day, week -> shared: remot, work, day = 3
    parts = support_parts(claim, L1)
    assert (parts.matched, parts.total) == (3, 7)
    assert support_score(claim, L1) == pytest.approx(3 / 7)


def test_word_forms_meet_after_light_stemming() -> None:
    assert stem("requires") == stem("required") == stem("requiring") == stem("require")
    assert stem("policies") == stem("policy")
    assert stem("class") == "class" and stem("status") == "status"
    assert support_score("Approval is required.", "Requests require manager approvals.") == 1.0


def test_case_width_and_punctuation_do_not_matter() -> None:
    assert support_score("ＴＨＲＥＥ　ＤＡＹＳ!", "three days") == 1.0
    assert support_score("“Remote” work—allowed?", "remote work (allowed)") == 1.0


def test_numbers_are_content_words_and_must_match() -> None:
    # claim: notic(e), 60, day -> the cited text has notic and day, not 60: 2 of 3
    assert support_score("Notice of 60 days.", "Notice of 30 days is required.") == \
        pytest.approx(2 / 3)
    assert support_score("Within 30 days.", "thirty (30) days within reach") == 1.0
    assert "3.5" in content_words("a rate of 3.5 per cent")


def test_stopwords_alone_give_no_score() -> None:
    assert support_score("It is what it is.", L1) is None
    assert support_score("work", "") is None


def test_scripts_without_spaces_compare_by_character_pairs() -> None:
    # 東京都 -> 東京, 京都; both in the cited text
    assert support_score("東京都", "東京都の会社") == 1.0
    assert support_score("大阪府", "東京都の会社") == 0.0


def test_citation_markers_in_text_are_not_words() -> None:
    marked = f"work{S}cite{D}turn0file0{E}"
    assert content_words(marked) == content_words("work turn0file0 cite") - {"turn0file0",
                                                                              "cite"}


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=60), st.text(max_size=60))
def test_score_is_a_share_between_zero_and_one(claim: str, cited: str) -> None:
    score = support_score(claim, cited)
    assert score is None or 0.0 <= score <= 1.0
    if score is not None:
        assert support_score(claim, claim + " " + cited) == 1.0


def test_weak_support_diagnostics_fire_below_the_threshold() -> None:
    material = ("Citation Marker: " + f"{S}cite{D}turn0file0{E}\n\n"
                f"[L1] {L1}\n[L2] Receipts must be uploaded within thirty days.\n")
    answer = (f"You may work remotely three days per week.{S}cite{D}turn0file0{D}L1{E} "
              f"Managers must approve travel.{S}cite{D}turn0file0{D}L2{E} "
              f"Unknown things.{S}cite{D}nosuch{E}")
    case = Case("c", answer, tool_outputs=[material])
    cits = scan(answer).citations
    res = resolve(cits, case_material(case))
    spans = claim_spans(answer, cits)
    diags = weak_support_diagnostics(answer, cits, res, spans, threshold=0.5)
    # 1st: 1.0; 2nd: manager, approv, travel -> none in L2 (0 of 3); 3rd unresolved: skipped
    assert [(d.code, d.start, d.end) for d in diags] == [("CV401", cits[1].start, cits[1].end)]
    assert diags[0].severity is Severity.INFO
    assert "0 of the claim's 3 content words" in diags[0].message
    assert weak_support_diagnostics(answer, cits, res, spans, threshold=0.0) == []
    assert not RULES["CV401"].enabled  # off unless a policy turns it on


@settings(max_examples=300, deadline=None)
@given(st.text(st.characters(max_codepoint=127), max_size=80)
       | st.lists(st.sampled_from(["Word", "words", "it's", "3.5", "1,000", "the", "a", "IS",
                                   " ", ".", "\n", "'", "-", "x2", "Stopped"])).map("".join))
def test_ascii_content_words_are_the_tokenizers_words(text: str) -> None:
    """ASCII text read by runs of letters (no digit, no apostrophe in it) has the words the
    module's tokenizer finds."""
    from citeview.core.support import _ASCII_TOKEN_RE, _ascii_token

    expected = set(map(_ascii_token, _ASCII_TOKEN_RE.findall(text.lower()))) - {""}
    assert content_words(text) == expected


def test_a_citations_scores_are_its_resolved_targets_scores_and_none_for_the_others() -> None:
    material = ("Citation Marker: " + f"{S}cite{D}turn0file0{E}\n\n"
                f"[L1] {L1}\n[L2] Receipts must be uploaded within thirty days.\n")
    answer = f"You may work remotely three days per week.{S}cite{D}turn0file0{D}nosuch{D}L1{E}"
    case = Case("c", answer, tool_outputs=[material])
    cits = scan(answer).citations
    (res,) = resolve(cits, case_material(case))
    claim = answer[slice(*claim_spans(answer, cits)[0])]
    assert [t.ok for t in res.targets] == [True, False]
    assert SupportScorer().scores(claim, res.targets) == (1.0, None)


_SUPPORT_PIECES = st.sampled_from([
    f"{S}cite{D}turn0file0{D}L1{E}", f"{S}cite{D}turn0file0{D}L2-L3{E}",
    f"{S}cite{D}turn0file0{D}L9{E}", f"{S}cite{D}turn0file0{E}", f"{S}cite{D}nosuch{D}L1{E}",
    f"{S}cite{D}turn0file0{D}nosuch{D}L2{E}", f"{S}cite{D}turn0file1{D}L1{E}",
    "Employees work remotely", "three days per week", "Receipts within thirty days",
    "the a of", "3.5 days", "Ｆｉｖｅ 日本語", ". ", "\n\n", " "])


@settings(max_examples=150, deadline=None)
@given(st.lists(_SUPPORT_PIECES, max_size=10).map("".join))
def test_a_cases_scores_are_each_citations_scores_as_the_scorer_gives_them(answer: str) -> None:
    """The support a reviewer sees per citation and source is the scorer's, whether scored
    citation by citation or the whole case at once (an export scores every case)."""
    from citeview.core.analysis import analyse
    from citeview.core.support import citation_scores

    material = ("Citation Marker: " + f"{S}cite{D}turn0file0{E}\n\n"
                f"[L1] {L1}\n[L2] Receipts must be uploaded within thirty days.\n"
                "[L3] 3.5 days of leave, Ｆｉｖｅ 日本語.\n\n"
                "Citation Marker: " + f"{S}cite{D}turn0file1{E}\n\n[L1] the a of\n")
    analysed = analyse(Case("c", answer, tool_outputs=[material]))
    scorer = SupportScorer()
    expected = tuple(scorer.scores(c.claim_text, c.targets) for c in analysed.citations)
    assert citation_scores(analysed.citations) == expected
    assert analysed.support == expected


# Cases shaped like an export's (benchmarks/million_data.py: a source of eight labelled lines,
# an answer of sentences each ending in a marker citing a line or two), and near that shape:
# numbers, apostrophes, stopwords, capitals, non-ASCII words, a line long enough to be read
# once per case, groups of markers, whole and unknown sources, lines out of range.
_VOCAB = ["policy", "Employee", "approvals", "requires", "required", "stopped", "notices",
          "class", "status", "the", "a", "of", "IS", "it's", "don't", "3.5", "2026", "A1",
          "e-mail", "x", "Ünï", "日本語", "Ｆｉｖｅ", "café"]
_LINE = st.one_of(
    st.lists(st.sampled_from(_VOCAB[:9]), min_size=1, max_size=10),
    st.lists(st.sampled_from(_VOCAB), max_size=10),
    st.just(["Policy requires approvals."] * 50),
).map(lambda words: " ".join(words).capitalize() + ".")
_LOCATOR = st.one_of(
    st.builds(lambda a, n: f"{D}L{a}" if n == 0 else f"{D}L{a}-L{a + n}",
              st.integers(1, 9), st.integers(-1, 2)),
    st.sampled_from(["", f"{D}turn0file1{D}L1", f"{D}nosuch{D}L2"]),
)
_MARK = _LOCATOR.map(lambda loc: f"{S}cite{D}turn0file0{loc}{E}")
_SENTENCE = st.tuples(st.lists(st.sampled_from(_VOCAB), max_size=12).map(" ".join),
                      st.lists(_MARK, min_size=1, max_size=3),
                      st.sampled_from(["", " "])).map(
    lambda p: p[0].capitalize() + "." + p[2].join(p[1]))


def _tokenizer_words(text: str) -> set[str]:
    """:func:`content_words` as the module's tokenizer makes them (no run of letters read
    fast)."""
    from citeview.core.support import _ASCII_TOKEN_RE, _ascii_token

    if not text.isascii():
        return content_words(text)  # (no fast path for non-ASCII text)
    return set(map(_ascii_token, _ASCII_TOKEN_RE.findall(text.lower()))) - {""}


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, min_size=8, max_size=8), st.lists(_SENTENCE, min_size=1, max_size=4),
       st.sampled_from(["\n\n", " ", "\n"]))
def test_an_export_shaped_cases_scores_are_the_tokenizers(lines: list[str], sentences: list[str],
                                                         sep: str) -> None:
    """Each score is the share of the claim's words (as the tokenizer finds them) in the cited
    text, None when the source is not resolved, the cited text empty or the claim wordless,
    however fast the case is scored."""
    from citeview.core.analysis import analyse
    from citeview.core.support import citation_scores

    material = ("Citation Marker: " + f"{S}cite{D}turn0file0{E}\n\n"
                + "\n".join(f"[L{n}] {line}" for n, line in enumerate(lines, 1))
                + "\n\nCitation Marker: " + f"{S}cite{D}turn0file1{E}\n\n[L1] {lines[0]}\n")
    analysed = analyse(Case("c", sep.join(sentences) + "\n", tool_outputs=[material]))

    def score(claim: str, target: Target) -> float | None:
        cw = _tokenizer_words(claim)
        if not target.ok or not target.text or not cw:
            return None
        return len(cw & _tokenizer_words(target.text)) / len(cw)

    expected = tuple(tuple(score(c.claim_text, t) for t in c.targets)
                     for c in analysed.citations)
    assert citation_scores(analysed.citations) == expected
    assert analysed.support == expected

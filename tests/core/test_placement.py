"""Placement rules CV301-CV308 on Markdown answers: judged on the answer without its markers,
with spans in the raw answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from citeview.core.markers import DELIMITER, START, STOP, scan
from citeview.core.placement import PART_CHARS, check_placement


def M(sid: str = "turn0file0", loc: str | None = None) -> str:
    return START + "cite" + DELIMITER + sid + (DELIMITER + loc if loc else "") + STOP


def found(answer: str, **kw: object) -> list[tuple[str, str]]:
    """(code, spanned text) of each placement diagnostic."""
    result = scan(answer)
    return [(d.code, answer[d.start:d.end])
            for d in check_placement(answer, result.citations, **kw)]  # type: ignore[arg-type]


def codes(answer: str) -> list[str]:
    return [c for c, _ in found(answer)]


# --------------------------------------------------------------------------- CV301


@pytest.mark.parametrize("answer", [
    f"*Remote work is allowed {M()}* for staff.",
    f"_Remote work is allowed {M()}_ for staff.",
    f"**Remote work is allowed{M()}** for staff.",
    f"__Remote work {M()} is allowed__ for staff.",
    f"Staff: ***remote {M()}*** days.",
    f"Staff: _remote {M()}_ days.",
    f"A [link with **bold {M()}**](https://x.example) here.",
])
def test_citation_inside_emphasis_is_cv301(answer: str) -> None:
    assert found(answer) == [("CV301", M())]


@pytest.mark.parametrize("answer", [
    f"**Remote work is allowed.**{M()} Staff only.",
    f"{M()}**Remote work** is allowed.",
    f"The snake_case{M()}_name stays plain text.",
    f"Two * stars {M()} * apart are not emphasis.",
])
def test_citation_next_to_but_outside_emphasis_is_not_cv301(answer: str) -> None:
    assert "CV301" not in codes(answer)


def test_emphasis_message_names_the_kind() -> None:
    d = check_placement(f"**bold {M()}** and", scan(f"**bold {M()}** and").citations)
    assert "bold" in d[0].message
    d = check_placement(f"*it {M()}* and", scan(f"*it {M()}* and").citations)
    assert "italic" in d[0].message


# --------------------------------------------------------------------------- CV302 / CV303


@pytest.mark.parametrize("answer", [
    f"Use `the portal {M()}` to ask.",
    f"Use ``a `tick` {M()}`` to ask.",
    f"Example:\n\n```\nportal {M()}\n```\n",
    f"Example:\n\n~~~python\nportal {M()}\n~~~\n",
    f"Example:\n\n    indented code {M()}\n\nAfter.",
    f"Example:\n\n```\nnever closed {M()}\n",
    f"Example:\n\n```text {M()}\ncode\n```\n",
])
def test_citation_in_code_is_cv302(answer: str) -> None:
    assert found(answer) == [("CV302", M())]


@pytest.mark.parametrize("answer", [
    f"Example:\n\n```\ncode\n```{M()}\n",
    f"Example:\n\n```\ncode\n```  {M()}\n\nMore text follows here.",
    f"Example:\n\n```\ncode\n{M()}```\n",
    f"- item\n\n  ```\n  code\n  ```{M()}\n",
    f"> ```\n> code\n> ```{M()}\n",
])
def test_citation_on_the_closing_fence_line_is_cv303_only(answer: str) -> None:
    assert found(answer) == [("CV303", M())]


def test_marker_cannot_open_code_by_breaking_a_fence() -> None:
    # In the raw text the marker glued to the fence leaves it unclosed, so everything after
    # would be code; judged without markers, the later citation stands in a paragraph.
    answer = f"```\ncode\n```{M('turn0file0')}\n\nLater claim is here.{M('turn0file1')}\n"
    assert found(answer) == [("CV303", M("turn0file0"))]


def test_inline_code_next_to_citation_is_fine() -> None:
    assert codes(f"Run `make`.{M()} Then wait.") == []


# --------------------------------------------------------------------------- CV304


@pytest.mark.parametrize("punct", [".", ",", ";", ":", "!", "?", "…", "。"])
def test_citation_directly_before_punctuation_is_cv304(punct: str) -> None:
    assert found(f"Remote work is allowed{M()}{punct} More.") == [("CV304", M())]


def test_glued_markers_before_punctuation_are_one_finding() -> None:
    run = M("turn0file0") + M("turn0file1")
    assert found(f"Remote work is allowed{run}. More.") == [("CV304", run)]


@pytest.mark.parametrize("answer", [
    f"Remote work is allowed.{M()} More.",
    f"Remote work is allowed {M()} (mostly).",
    f"Remote work is allowed{M()} and more.",
])
def test_citation_after_punctuation_or_before_words_is_not_cv304(answer: str) -> None:
    assert "CV304" not in codes(answer)


# --------------------------------------------------------------------------- CV305


@pytest.mark.parametrize("answer", [
    f"Remote work is allowed.\n\n{M()}\n",
    f"Remote work is allowed.\n{M()}\n",
    f"Remote work is allowed.\n  {M('turn0file0')} {M('turn0file1')}  \nMore text here.",
    f"- Remote work is allowed.\n- {M()}\n",
    f"> Remote work is allowed.\n> {M()}\n",
])
def test_line_of_nothing_but_citations_is_cv305(answer: str) -> None:
    assert [c for c in codes(answer) if c != "CV308"] == ["CV305"]


def test_citation_only_line_keeps_its_paragraph_together() -> None:
    # Removing the marker must not leave a blank line that splits the paragraph: the claim
    # above stays cited, so no CV308.
    answer = f"First claim is right here.\n{M('turn0file0')}\n\nSecond claim too.{M('turn0file1')}"
    assert codes(answer) == ["CV305"]


# --------------------------------------------------------------------------- CV306 / CV308


def test_all_citations_in_the_last_paragraph_is_cv306() -> None:
    run = f"{M('turn0file0')} {M('turn0file1')}"
    answer = f"Remote work is allowed three days.\n\nManagers approve more days.{run}\n"
    assert found(answer) == [("CV308", "Remote work is allowed three days."), ("CV306", run)]


def test_single_paragraph_or_single_citation_is_not_cv306() -> None:
    assert codes(f"One paragraph.{M('turn0file0')} Another claim.{M('turn0file1')}") == []
    assert "CV306" not in codes(f"Short.\n\nRemote days are limited to three.{M()}")


def test_headings_code_short_lines_and_list_intros_are_not_uncited_paragraphs() -> None:
    answer = (f"## Remote work policy for all staff\n\nRemote work is allowed.{M()}\n\n"
              "```\nsome code without citation here\n```\n\nIn short:\n\n- Yes.\n\nThanks!\n")
    assert codes(answer) == []


def test_no_citation_at_all_means_no_placement_findings() -> None:
    assert codes("A long paragraph with many words in it.\n\nAnother one, just as long.") == []


# --------------------------------------------------------------------------- CV307


def test_multi_source_style() -> None:
    combined = f"Both agree.{M('turn0file0' + DELIMITER + 'turn0file1')}"
    separate = f"Both agree.{M('turn0file0')} {M('turn0file1')}"
    assert [c for c, _ in found(combined, multi_source="per-marker")] == ["CV307"]
    assert [c for c, _ in found(separate, multi_source="one-marker")] == ["CV307"]
    assert found(combined, multi_source="one-marker") == []
    assert found(separate, multi_source="per-marker") == []
    assert found(separate) == [] and found(combined) == []


def test_one_marker_style_leaves_markers_with_different_locators_alone() -> None:
    # A locator applies to every id of a marker: L2 of one source and L5 of another (or the
    # whole of another) cannot be written as one marker.
    for answer in (f"Both agree.{M('turn0file0', 'L2')}{M('turn0file1', 'L5')}",
                   f"Both agree.{M('turn0file0', 'L2')} {M('turn0file1')}"):
        assert found(answer, multi_source="one-marker") == []


def test_one_marker_style_flags_adjacent_markers_with_the_same_locator_or_none() -> None:
    same = f"Both agree.{M('turn0file0', 'L2')} {M('turn0file1', 'L2')}"
    assert found(same, multi_source="one-marker") == [
        ("CV307", f"{M('turn0file0', 'L2')} {M('turn0file1', 'L2')}")]
    # L3 and L3-L3 are the same lines.
    assert [c for c, _ in found(f"Both.{M('turn0file0', 'L3')}{M('turn0file1', 'L3-L3')}",
                                multi_source="one-marker")] == ["CV307"]
    # In a mixed run only the mergeable markers are flagged, together.
    a, b, c = M("turn0file0", "L2"), M("turn0file1"), M("turn0file2")
    assert found(f"All agree.{a}{b}{c}", multi_source="one-marker") == [("CV307", b + c)]
    # Markers in different sentences are not adjacent.
    assert found(f"One.{M('turn0file0')} Two.{M('turn0file1')}", multi_source="one-marker") == []


# --------------------------------------------------------------------------- structure, offsets


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_line_endings_behave_alike(eol: str) -> None:
    answer = eol.join([
        "Intro paragraph with several words.", "", f"**bold {M('a1x')}**", "",
        "```", f"code {M('a2x')}", "```" + M("a3x"), "", f"Tail claim here{M('a4x')}.",
    ]) + eol
    got = found(answer)
    assert [c for c, _ in got] == ["CV308", "CV301", "CV302", "CV303", "CV304"]
    assert [t for c, t in got[1:]] == [M("a1x"), M("a2x"), M("a3x"), M("a4x")]


def test_spans_are_code_points_after_astral_characters() -> None:
    answer = f"😀😀 Emoji first, **then bold {M()}** text."
    (d,) = check_placement(answer, scan(answer).citations)
    assert answer[d.start:d.end] == M() and d.code == "CV301"


def test_table_cells_are_judged_by_their_inline_content() -> None:
    answer = (f"| Rule | Limit |\n|---|---|\n| Remote{M('turn0file0')} | *3 {M('turn0file1')}* |\n"
              f"| Travel | `x {M('turn0file2')}` |\n")
    assert found(answer) == [("CV301", M("turn0file1")), ("CV302", M("turn0file2"))]


def test_recovered_citations_are_judged_too() -> None:
    # A degraded marker (private-use characters lost) still stands inside bold text.
    answer = "**Remote work citeturn0file0** is allowed."
    assert ("CV301", "citeturn0file0") in found(answer)


_PIECES = st.sampled_from([
    "word", " ", "\n", "\n\n", "*", "**", "_", "`", "```", "~~~", "> ", "- ", "1. ", "#", ".",
    ",", "|", "\\", "[", "](u)", "\r\n", "\t", "    ", "😀", "<b>", "---",
])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.just("CITE")), min_size=1, max_size=40))
def test_any_text_is_judged_without_error_and_spans_are_citations(parts: list[str]) -> None:
    answer = ""
    n = 0
    for p in parts:
        if p == "CITE":
            answer += M(f"turn0file{n}")
            n += 1
        else:
            answer += p
    cits = scan(answer).citations
    diags = check_placement(answer, cits)
    starts = {c.start for c in cits}
    ends = {c.end for c in cits}
    for d in diags:
        assert d.code.startswith("CV3")
        if d.code == "CV308":
            assert START not in answer[d.start:d.end]
        else:
            assert d.start in starts and d.end in ends
    # One code finding per citation at most (CV302 or CV303).
    code_spans = [(d.start, d.end) for d in diags if d.code in ("CV302", "CV303")]
    assert len(code_spans) == len(set(code_spans))


def test_a_paragraph_whose_citation_is_in_inline_code_gets_cv302_not_also_cv308() -> None:
    answer = f"`{M('turn0file0')}word<b>1. word`\n\nNext paragraph says more.{M('turn0file1')}"
    diags = check_placement(answer, scan(answer).citations)
    codes = [d.code for d in diags]
    assert "CV302" in codes and "CV308" not in codes, codes


# --------------------------------------------------------------------------- parts

# The answer is parsed in parts cut at blank lines (memory follows the part, not the answer):
# the findings must not depend on where it was cut.

_CUT_PIECES = st.sampled_from([
    "word", " ", "\n", "\n\n", "*", "**", "_", "`", "```", "~~~", "> ", "- ", "1. ", "#", ".",
    ",", "|", "[", "](u)", "\r\n", "\r", "\t", "    ", "😀", "---", "===",
    # Places where a part may end, and blocks that run on over blank lines.
    "\n\nAlpha ", "\r\n\r\nBeta ", "\n \t\nZed ", "\r\rGamma ", "\n\n    code\n", "\n\n```\n",
    "\n\n~~~\n", "<pre>", "</pre>", "<!--", "-->", "<div>", "| a | b |\n|---|---|\n",
    # Stray marker characters, a marker running over a blank line, recovered forms.
    START, STOP, f"{START}cite{DELIMITER}x\n\nY{STOP}", "citeturn0file3", "[3†source]",
])


def _whole_and_cut(answer: str, **kw: object) -> None:
    result = scan(answer)
    stray = [(d.start, d.end) for d in result.diagnostics if d.code in ("CV101", "CV105")]
    whole = check_placement(answer, result.citations, stray, part_chars=len(answer) + 1,
                            **kw)  # type: ignore[arg-type]
    for size in (1, 5, 40):
        assert check_placement(answer, result.citations, stray, part_chars=size,
                               **kw) == whole  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_CUT_PIECES, st.just("CITE")), min_size=1, max_size=60),
       st.sampled_from([None, "one-marker", "per-marker"]))
def test_findings_do_not_depend_on_where_the_answer_is_cut(parts: list[str],
                                                           style: str | None) -> None:
    answer = "".join(M(f"turn0file{i}") if p == "CITE" else p for i, p in enumerate(parts))
    _whole_and_cut(answer, multi_source=style)


@pytest.mark.parametrize("answer", [
    # A fence (an HTML block) open over the places where a part could end: parsed again.
    f"Intro claim{M()}.\n\n```\ncode{M('a1')}\n\nAlpha{M('a2')}\n\nBeta\n```\n\nTail{M('a3')}.\n",
    f"Intro claim{M()}.\n\n<pre>\nx{M('a1')}\n\nAlpha *b{M('a2')}*\n</pre>\n\nTail{M('a3')} x\n",
    # A marker over a blank line; a citation alone on a line at a cut.
    f"One{M()}\n\n{START}cite{DELIMITER}a1\n\nAlpha{STOP} two\n\n{M('a2')}\n\nThree words here.\n",
    # Lists and quotes end at a line of prose after a blank line.
    f"- item{M()}\n- more\n\nAlpha words here too\n\n> quote **b{M('a1')}**\n\nBeta end{M()},\n",
])
def test_cut_answers_are_judged_as_whole_ones(answer: str) -> None:
    _whole_and_cut(answer)
    _whole_and_cut(answer.replace("\n", "\r\n"))


def test_a_long_answer_is_judged_as_a_whole() -> None:
    # The lint cases' answers, again and again: longer than one part of the default size.
    answers = [json.loads(p.read_text(encoding="utf-8"))["answer"]
               for p in sorted((Path(__file__).parents[1] / "data" / "lint").glob("*.json"))]
    answer = "\n\n".join(answers)
    answer = "\n\nNext answer.\n\n".join([answer] * (2 * PART_CHARS // len(answer) + 2))
    assert len(answer) > 2 * PART_CHARS
    result = scan(answer)
    whole = check_placement(answer, result.citations, part_chars=len(answer) + 1)
    assert {d.code for d in whole} >= {"CV301", "CV302", "CV303", "CV304", "CV305", "CV308"}
    assert check_placement(answer, result.citations) == whole


# --------------------------------------------------------------------------- plain prose

_PLAIN_PIECES = st.sampled_from([
    "Remote", "work", "is", "allowed.", " ", "  ", "\t", "\n", "\n\n", "\u00e9t\u00e9", "\u03a9",
    "x:", "|", "*", "1.", "#", "-", "=", "`", ">", "<b>", "[a]: /u", "\u00a0", "\u2028", "\ue200",
    "\r", "A", "    code",
])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PLAIN_PIECES, max_size=30).map("".join))
def test_plain_prose_is_laid_out_as_markdown_it_parses_it(text: str) -> None:
    """An answer of plain prose is laid out without markdown-it's block parse (most answers):
    its paragraphs, their inline content and where each line of it stands are the parse's."""
    from citeview.core import placement

    def seen(layout: placement._Layout) -> object:
        return (layout.paragraphs, layout.code, layout.open_at_end,
                [(i.first_line, i.content, i.end_line, i.content_starts, i.text_starts,
                  i.lengths) for i in layout.inlines])

    assert seen(placement._layout(text)) == seen(placement._parsed_layout(text))


def test_plain_prose_takes_the_short_way_and_markdown_does_not() -> None:
    from citeview.core import placement

    assert placement._plain_paragraphs("Remote work.\nStaff may.\n\n \t\nAnother one\n") == [
        (0, 2, "Remote work.\nStaff may."), (4, 5, "Another one")]
    for text in ("# Title\n", "Remote:\n- work\n", "A\n    b\n", "A\r\nB", "\ue200\n"):
        assert placement._plain_paragraphs(text) is None


# An answer of plain prose around its markers (most answers) is judged without a parse; what
# that finds must be what the general way finds, on every answer.

_AROUND_PROSE = st.sampled_from([
    "Remote", " work is allowed", "x:", " ", "\t", ".", ",", "!", " \u00e9t\u00e9", "\u03a9",
    "\u00a0", "\u2028", "\u3000", " Staff may work from home", "\nStaff", "\n\nRemote",
    "\n \t\nWork", "\n", "\n\n", "\n\nStaff may work from home:", "\n\nThe staff may work\u00a0",
])
# What makes an answer more than plain prose (the general way judges it).
_AROUND_MARKUP = st.sampled_from([
    "1.", "- ", "> ", "#", "|", "*", "`", "_", "\r\n", "\0", "\ue200", "\ue201", "    code",
    "citeturn0file3", "[3\u2020source]", "\n1. ", "\n- ", "\n> ", "\n# ", "\n\n\u00b2 x",
    "\n===", "\n| a |\n|---|\n", f"{START}cite{DELIMITER}x\n\nY{STOP}", "\n\n",
])


@st.composite
def _around_markers(draw: st.DrawFn) -> list[str]:
    """A word, pieces of prose and markers ("CITE..."), now and then one of Markdown or worse."""
    parts = [draw(st.sampled_from(["Remote", "\u00c9t\u00e9", "\u03a9"])),
             *draw(st.lists(st.one_of(_AROUND_PROSE, st.sampled_from(["CITE", "CITE2", "CITEL"])),
                            max_size=40))]
    for _ in range(draw(st.sampled_from([0, 0, 1, 2, 3]))):
        parts.insert(draw(st.integers(0, len(parts))), draw(_AROUND_MARKUP))
    return parts


@settings(max_examples=500, deadline=None)
@given(_around_markers(), st.sampled_from([None, "one-marker", "per-marker"]))
def test_plain_prose_is_judged_as_the_parse_judges_it(parts: list[str],
                                                      style: str | None) -> None:
    from citeview.core import placement

    marker = {"CITE": lambda i: M(f"turn0file{i}"), "CITE2": lambda i: M(f"turn0file{i}") + M(),
              "CITEL": lambda i: START + "cite" + DELIMITER + "turn0file0" + DELIMITER
              + f"turn{i}search1" + DELIMITER + "L2-L3" + STOP}
    answer = "".join(marker[p](i) if p in marker else p for i, p in enumerate(parts))
    result = scan(answer)
    stray = sorted((d.start, d.end) for d in result.diagnostics if d.code in ("CV101", "CV105"))
    cits = sorted(result.citations, key=lambda c: c.start)
    general = placement._placement(answer, cits, stray, style, PART_CHARS) if cits else []
    assert check_placement(answer, result.citations, stray,
                           style) == general  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(_around_markers(), st.data())
def test_any_spans_are_judged_as_the_parse_judges_them(parts: list[str],
                                                      data: st.DataObject) -> None:
    # Citations the caller made: over line breaks or overlapping, nested (not both: the scan
    # makes neither).
    from citeview.core import placement
    from citeview.core.markers import Citation

    answer = "".join(p.replace("CITE", "x") for p in parts)
    n = len(answer)
    spans = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, 12)), min_size=1,
                               max_size=6))
    made = sorted({(s, min(n, s + k)) for s, k in spans})
    made = [(s, e) for s, e in made if "\n" not in answer[s:e]
            or not any(s < e2 and s2 < e for s2, e2 in made if (s2, e2) != (s, e))]
    assume(made)
    cits = sorted((Citation(answer[s:e], "cite", ("a1",), None, s, e) for s, e in made),
                  key=lambda c: c.start)
    general = placement._placement(answer, cits, [], "one-marker", PART_CHARS)
    assert check_placement(answer, cits, (), "one-marker") == general


def test_plain_prose_around_markers_takes_the_short_way() -> None:
    from citeview.core import placement

    plain = (f"Remote work is allowed.{M()} Staff may.\nStill the same paragraph{M('a1')}\n\n"
             f"\u00c9t\u00e9 words here{M('a2')}:\n\nUncited but substantive words.\n")
    cits = scan(plain).citations
    found = placement._plain_placement(plain, cits, None)
    assert found == placement._placement(plain, cits, [], None, PART_CHARS)
    assert [(d.code, plain[d.start:d.end]) for d in found or ()] == [
        ("CV304", M("a2")), ("CV308", "Uncited but substantive words.")]
    for text in (f"*Remote {M()}* work.", f"Remote work.\n{M()}\n", f"Remote\n- work{M()}\n",
                 f"Remote work{M()}\r\nmore", f"`code`{M()}"):
        assert placement._plain_placement(text, scan(text).citations, None) is None


# Answers of one-line paragraphs each ending in a marker (most answers) are judged without
# walking their lines (_all_cited); near that shape, by the line walk or the parse.

_PARAGRAPH_WORDS = st.sampled_from([
    "Remote work is allowed", "Staff may", " work", ".", ",", "!", ":", " ", "\u00e9t\u00e9",
    "\u00c9t\u00e9", "\u03a9", "\u00b2", "1.", "#", "- ", "  ", "\t", "\u00a0", "x", "\n",
    "\nStaff", "CITE", "CITE", "CITE2", "CITEL",
])
_PARAGRAPH_BREAKS = st.sampled_from(["\n\n", "\n\n", "\n\n", "\n", "\n\n\n", "\n \n", "\n\t\n"])


@st.composite
def _paragraph_answers(draw: st.DrawFn) -> str:
    marker = {"CITE": lambda i: M(f"turn0file{i % 3}", "L2-L3" if i % 2 else None),
              "CITE2": lambda i: M(f"turn0file{i}") + M(f"turn0file{i}"),
              "CITEL": lambda i: M("turn0file0", "L2") + " " + M("turn0file1", "L2-L2")}
    paras = []
    for _ in range(draw(st.integers(1, 5))):
        words = [draw(st.sampled_from(["Remote", "Staff", "\u00c9t\u00e9", "\u03a9", "x"])),
                 *draw(st.lists(_PARAGRAPH_WORDS, max_size=6))]
        if draw(st.integers(0, 4)):
            words.append(draw(st.sampled_from(["CITE", "CITE", ".CITE", "CITE.", "CITE2",
                                               "CITEL", "CITE:"])))
        paras.append(words)
    head = draw(st.sampled_from(["", "", "", "\n", "\n\n", " "]))
    tail = draw(st.sampled_from(["", "\n", "\n", "\n\n", "\n\n\n", " "]))
    text = head
    for k, words in enumerate(paras):
        if k:
            text += draw(_PARAGRAPH_BREAKS)
        for w in words:
            for piece in re.split(r"(CITE2|CITEL|CITE)", w):
                text += marker[piece](len(text)) if piece in marker else piece
    return text + tail


@settings(max_examples=600, deadline=None)
@given(_paragraph_answers(), st.sampled_from([None, "one-marker", "per-marker"]), st.data())
def test_answers_of_cited_paragraphs_are_judged_as_the_parse_judges_them(
        answer: str, style: str | None, data: st.DataObject) -> None:
    from citeview.core import placement
    from citeview.core.markers import Citation

    cits = scan(answer).citations
    if data.draw(st.booleans()):  # spans the caller made: anywhere, some over line breaks
        n = len(answer)
        spans = data.draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, 3)), min_size=1,
                                   max_size=5))
        cits = [Citation(answer[s:s + k], "cite", ("a1",), None, s, min(n, s + k))
                for s, k in sorted(set(spans))]
        cits = [c for i, c in enumerate(cits) if not i or cits[i - 1].end <= c.start]
    assume(cits)
    general = placement._placement(answer, cits, [], style, PART_CHARS)  # type: ignore[arg-type]
    short = placement._all_cited(answer, cits, style)  # type: ignore[arg-type]
    assert short is None or short == general
    assert check_placement(answer, cits, (), style) == general  # type: ignore[arg-type]


def test_answers_of_cited_paragraphs_take_the_shortest_way() -> None:
    from citeview.core import placement

    answer = (f"Remote work is allowed.{M('turn0file0', 'L7-L8')}\n\nStaff may work from "
              f"home{M()}.\n\n\u00c9t\u00e9 words{M()} and more{M('a1')}\n")
    cits = scan(answer).citations
    assert [(d.code, answer[d.start:d.end]) for d in placement._all_cited(answer, cits, None)
            or ["none"]] == [("CV304", M())]
    for other in (answer + "\nUncited words here and there.", answer.replace("\n\n", "\n\n\n"),
                  answer.replace(" words", "\nwords"), answer + "\n", "\n" + answer,
                  answer.replace("\n\nStaff", "\n\n1. Staff")):
        assert placement._all_cited(other, scan(other).citations, None) is None


def test_a_citation_over_a_line_break_is_judged_not_a_crash() -> None:
    # Citations a caller made (the scan makes none such): over a line break, empty, at the
    # end of the answer. A line they leave blank is judged as the removal leaves it.
    from citeview.core.markers import Citation

    def cite(answer: str, s: int, e: int) -> Citation:
        return Citation(answer[s:e], "cite", ("a1",), None, s, e)

    answer = "\r\n\u03a9"
    assert [(d.code, d.start, d.end) for d in check_placement(answer, [cite(answer, 0, 3)])] \
        == [("CV305", 0, 3)]
    for answer, spans in [("Staff\n", [(6, 6)]), ("A\r\nB", [(1, 3)]), ("A\n\nB", [(2, 2)]),
                          ("Remote work.\r\n\r\nStaff", [(12, 16), (14, 15)]),
                          ("Remote\n\nwork", [(6, 9), (7, 8)])]:
        cits = [cite(answer, s, e) for s, e in spans]
        for d in check_placement(answer, cits):
            assert 0 <= d.start <= d.end <= len(answer)


_LINE_BREAK_PIECES = st.sampled_from(["Remote work", " is", ".", "\n", "\r\n", "\r", "\n\n",
                                      "\r\n\r\n", "\u03a9", "- ", "> ", "```", "*x*", " "])


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE_BREAK_PIECES, min_size=1, max_size=12).map("".join), st.data())
def test_any_caller_spans_over_line_breaks_are_judged_in_any_parts(answer: str,
                                                                  data: st.DataObject) -> None:
    from citeview.core.markers import Citation

    n = len(answer)
    spans = data.draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, 4)), min_size=1,
                               max_size=5))
    cits = [Citation(answer[s:s + k], "cite", ("a1",), None, s, min(n, s + k))
            for s, k in spans]
    whole = check_placement(answer, cits, (), "one-marker")
    for d in whole:
        assert 0 <= d.start <= d.end <= n
    assert check_placement(answer, cits, (), "one-marker", part_chars=4) == whole

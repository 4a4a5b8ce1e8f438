"""The answer rendered with its chips found as it goes (issue #24) places every chip where the
anchored HTML of the same answer puts it, with the same label and look: the answer drawn first
and the answer drawn from anchors cannot differ, whatever Markdown and no-break spaces the model
wrote."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtGui import QFont

from citeview.core.markers import DELIMITER, START, STOP, extract_citations
from citeview.core.numbering import number_at
from citeview.gui.answer_document import prepare_document
from citeview.gui.answer_render import Chip, ChipState, render_answer, render_parts

MARKER = f"{START}cite{DELIMITER}turn0file0{DELIMITER}L3{STOP}"
PIECES = st.sampled_from([
    "word ", "*em* ", "**strong** ", "`code` ", "\n\n", "\n- item ", "\n# Head\n", "> quote ",
    "\u00a0", "a\u00a0b ", "&amp; ", "<b>raw</b> ", "[link](http://x) ", "```\nfenced\n```\n",
    "| a | b |\n| --- | --- |\n| c | d |\n", MARKER, MARKER, MARKER + MARKER, "\U0001f600 ",
    "*" * 20, "\ue200 stray ",
])


def chips_of(n: int, looks: list[int]) -> list[Chip]:
    kinds = [Chip(0), Chip(0, ChipState.PROBLEM, problem=True),
             Chip(0, n_sources=2, recovered=True),
             Chip(0, ChipState.ANNOTATED, problem=True, marks="\u2717", tone="bad")]
    out = []
    for i in range(n):
        k = kinds[looks[i % len(looks)] % len(kinds)] if looks else kinds[0]
        out.append(Chip(number_at(i), k.state, k.n_sources, k.recovered, k.problem, k.marks,
                        k.tone))
    return out


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(PIECES, max_size=25), looks=st.lists(st.integers(0, 3), max_size=5),
       neutral=st.booleans())
def test_chips_found_while_rendering_are_where_the_anchors_put_them(
        qapp, parts: list[str], looks: list[int], neutral: bool) -> None:
    answer = "".join(parts)
    spans = [(c.start, c.end) for c in extract_citations(answer)]
    chips = chips_of(len(spans), looks)
    if neutral:  # the answer drawn first: numbers in the resolved look
        rendered = render_parts(answer, spans)
        anchored = render_answer(answer, spans, chips_of(len(spans), []))
    else:
        rendered = render_parts(answer, spans, chips)
        anchored = render_answer(answer, spans, chips)
    assert rendered.anchored() == anchored
    font = QFont()
    fast, slow = prepare_document(rendered, False, font), prepare_document(anchored, False, font)
    assert fast.chips == slow.chips
    assert fast.document.toRawText() == slow.document.toRawText()
    assert fast.painter.styles == slow.painter.styles
    assert sum(1 for s, _ in fast.chips if s >= 0) == len(spans)

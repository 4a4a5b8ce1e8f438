"""The answer pane: chips clicked with the mouse, claim highlight, untrusted text stays text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCharFormat

from citeview.core.cases import Case
from citeview.core.markers import DELIMITER, START, STOP, extract_citations
from citeview.gui.answer_render import (
    MIXED,
    Chip,
    ChipState,
    chip_colours,
    render_answer,
)
from citeview.gui.answer_view import AnswerView, plain_tooltip
from citeview.gui.raw_answer_view import RawAnswerView
from citeview.gui.state import build_case_view
from tests.gui.helpers import cite


@pytest.fixture
def view(qtbot) -> AnswerView:
    v = AnswerView()
    v.resize(700, 500)
    qtbot.addWidget(v)
    v.show()
    qtbot.waitExposed(v)
    return v


def load(view: AnswerView, answer: str) -> list:
    cv = build_case_view(Case("t", answer))
    view.set_content(cv.html, [(answer[s:e], (s, e)) for s, e in (c.claim for c in cv.citations)])
    return cv.citations


def click_chip(qtbot, view: AnswerView, index: int) -> None:
    pos = view.chip_center(index)
    assert pos is not None, f"chip {index + 1} is not in the rendered answer"
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)


def test_clicking_each_chip_with_the_mouse_activates_that_citation(qtbot, view) -> None:
    answer = (f"# Title\n\nFirst claim.{cite('a')} Second claim.{cite('b', 'L1')}\n\n"
              f"- a list item{cite('c')}\n- another one{cite('d', 'e')}\n\n"
              f"| col |\n|---|\n| in a table{cite('f')} |\n")
    load(view, answer)
    assert view.chip_count() == 5
    for i in range(5):
        with qtbot.waitSignal(view.citationActivated) as sig:
            click_chip(qtbot, view, i)
        assert sig.args == [i]
    # Clicking plain text next to the chips activates nothing.
    with qtbot.assertNotEmitted(view.citationActivated):
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(20, 5))


def test_chips_are_numbered_in_reading_order_and_tell_state_by_text(view) -> None:
    answer = f"One.{cite('a')} Two.{cite('x', 'y')} Three.{START}cite{DELIMITER}a"
    load(view, answer)
    # No material: every source is unknown, so every chip carries the problem glyph.
    assert [view.chip_text(i) for i in range(3)] == ["1!", "2+1!", "~3!"]
    html = render_answer("a" + cite("s"), [(1, 1 + len(cite("s")))],
                         [Chip(1, ChipState.ANNOTATED)])
    assert "1\u2713" in html  # annotated: a check mark, not only a colour


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_claim_highlight_with_astral_characters_and_crlf(qtbot, view, newline) -> None:
    answer = (f"Emoji \U0001F600\U0001F389 and \U0001D518\U0001D52B\U0001D526 lead in.{cite('a')}"
              f"{newline}{newline}The rocket \U0001F680 flew **high**.{cite('b')} "
              f"Then \U0001F30D turned.{cite('c')}{newline}")
    load(view, answer)
    expected = [
        "Emoji \U0001F600\U0001F389 and \U0001D518\U0001D52B\U0001D526 lead in.",
        "The rocket \U0001F680 flew high.",
        "Then \U0001F30D turned.",
    ]
    for i, text in enumerate(expected):
        click_chip(qtbot, view, i)
        view.set_active(i)
        assert view.highlighted_claim() == text


def test_adjacent_markers_share_one_claim(view) -> None:
    load(view, f"Fares rose in March.{cite('a')}{cite('b')} Later text.{cite('c')}")
    view.set_active(1)
    assert view.highlighted_claim() == "Fares rose in March."
    view.set_active(2)
    assert view.highlighted_claim() == "Later text."


def test_model_html_is_shown_as_text_and_nothing_is_fetched(qtbot, view, monkeypatch) -> None:
    requested: list[str] = []
    monkeypatch.setattr(view, "loadResource",
                        lambda kind, url: requested.append(url.toString()))
    answer = ("Look <img src=http://evil.example/x.png> and <script>alert(1)</script> "
              "<a href=\"file:///etc/passwd\">here</a> ![pic](http://evil.example/y.png) "
              f"[link](https://evil.example/z){cite('a')}\n")
    load(view, answer)
    text = view.toPlainText()
    assert "<img src=http://evil.example/x.png>" in text
    assert "<script>alert(1)</script>" in text
    assert '<a href="file:///etc/passwd">here</a>' in text
    assert "[image: pic]" in text
    # The document holds no image and no anchor other than the chip.
    block = view.document().begin()
    hrefs = []
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fmt = it.fragment().charFormat()
            assert not fmt.isImageFormat()
            if fmt.isAnchor():
                hrefs.append(fmt.anchorHref())
            it += 1
        block = block.next()
    assert hrefs == []
    assert view.chip_count() == 1 and view.chip_text(0) == "1!"
    qtbot.wait(10)
    assert requested == []


def test_tooltip_text_is_never_rich_text() -> None:
    tip = plain_tooltip(["Title <b>bold</b> & <img src=x>"])
    assert "<b>" not in tip and "&lt;b&gt;bold&lt;/b&gt;" in tip
    assert "&lt;img src=x&gt;" in tip


def test_raw_view_shows_markers_and_underlines_diagnostics(qtbot) -> None:
    raw = RawAnswerView()
    raw.resize(600, 300)
    qtbot.addWidget(raw)
    raw.show()
    answer = f"Fine.{cite('turn0file0', 'L8-L13')} Broken{STOP} end."
    cv = build_case_view(Case("t", answer))
    raw.set_answer(answer, cv.diagnostics)
    assert "\u27e6cite|turn0file0|L8-L13\u27e7" in raw.shown_text()
    underlined = [s for s in raw.extraSelections()
                  if s.format.underlineStyle() != QTextCharFormat.UnderlineStyle.NoUnderline]
    stray = answer.index(STOP, answer.index("Broken"))
    spans = {(raw.offset_of(s.cursor.selectionStart()), raw.offset_of(s.cursor.selectionEnd()))
             for s in underlined}
    assert (stray, stray + 1) in spans  # the stray STOP (CV105)
    assert spans == {(d.start, d.end) for d in cv.diagnostics}
    # The joiners that keep a marker on one line are never part of what is coloured.
    coloured = {s.cursor.selectedText().replace("\u2060", "") for s in raw.extraSelections()}
    assert {"turn0file0", "L8-L13", "cite"} <= coloured


def test_tab_to_a_chip_and_enter_activates_it(qtbot, view) -> None:
    load(view, f"First.{cite('a')} Second.{cite('b')}")
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    qtbot.keyClick(view, Qt.Key.Key_Tab)
    with qtbot.waitSignal(view.citationActivated) as sig:
        qtbot.keyClick(view, Qt.Key.Key_Return)
    assert sig.args == [1]


@pytest.mark.qt_log_ignore(r"This plugin does not support raise\(\)")
def test_hovering_a_chip_shows_title_and_cited_lines_as_plain_text(qtbot, view) -> None:
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    material = (f"Citation Marker: {cite('turn0file0')}\nTitle: Fares <b>2026</b>\n\n"
                "[L1] Fares rise to $2.90.\n[L2] Passes stay at $127.")
    answer = f"Fares rise.{cite('turn0file0', 'L1-L2')}"
    cv = build_case_view(Case("t", answer, tool_outputs=[material]))
    view.set_content(cv.html, [(answer[s:e], (s, e)) for s, e in (c.claim for c in cv.citations)])
    view.tooltip_for = lambda i: cv.citations[i].tooltip_lines()
    pos = view.chip_center(0)
    QApplication.sendEvent(view.viewport(), QHelpEvent(QEvent.Type.ToolTip, pos,
                                            view.viewport().mapToGlobal(pos)))
    tip = QToolTip.text()
    assert "Fares &lt;b&gt;2026&lt;/b&gt;" in tip  # the title, escaped
    assert "L1&nbsp;&nbsp;Fares rise to $2.90." in tip and "Passes stay at $127." in tip
    QToolTip.hideText()


_WORD_CHARS = ("abcXYZ019\u00e9\u00df\u4e2d\u6587\U0001F600\U0001F680\U0001D518\U0001D52B"
               "\U00020000\u0915\u093f")


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.text(_WORD_CHARS, min_size=1, max_size=6), min_size=1, max_size=5),
                min_size=1, max_size=4),
       st.sampled_from(["\n", "\r\n", " "]))
def test_highlighted_claim_is_the_sentence_before_the_chip(view, sentences, sep) -> None:
    parts = []
    for k, words in enumerate(sentences):
        parts.append(" ".join(words) + "." + cite(f"s{k}"))
    answer = sep.join(parts)
    load(view, answer)
    for k, words in enumerate(sentences):
        view.set_active(k)
        assert view.highlighted_claim() == " ".join(words) + "."


def test_claims_stay_highlighted_right_after_verdicts_change_chip_widths(view) -> None:
    """A verdict restyles its chip in place (longer text: "3" -> "3✓"); every claim after it,
    in paragraphs, list items, table cells and beside emoji, is still the one highlighted."""
    answer = (f"Intro \U0001F600 claim.{cite('a')} Second one.{cite('b')}\n\n"
              f"- listed **claim**{cite('c')}\n- another item\n  spanning on{cite('d')}\n\n"
              f"| col | other |\n|---|---|\n| in a cell{cite('e')} | x |\n\n"
              f"Closing \U0001F680 words.{cite('f')}{cite('g')}\n")
    citations = load(view, answer)
    expected = ["Intro \U0001F600 claim.", "Second one.", "listed claim",
                "another item spanning on", "in a cell", "Closing \U0001F680 words.",
                "Closing \U0001F680 words."]
    before = []
    for i in range(len(citations)):
        view.set_active(i)
        before.append(view.highlighted_claim().replace("\n", " "))
    assert before == expected
    for order in ([0, 2, 4, 6], [6, 5, 1, 3]):
        view.update_chips([Chip(i + 1, ChipState.ANNOTATED, marks="\u2713\u2717",
                                tone="supported") for i in order])
        for i, text in enumerate(expected):
            view.set_active(i)
            assert view.highlighted_claim().replace("\n", " ") == text, (order, i)
            assert view.chip_text(i).startswith(str(i + 1))


@pytest.mark.parametrize("dark", [False, True])
def test_each_chip_shows_its_state_colours_bold_and_not_underlined(view, dark) -> None:
    # The chips' look is painted over the document's text (read back as it is drawn).
    chips = [Chip(1), Chip(2, ChipState.PROBLEM), Chip(3, ChipState.ANNOTATED),
             Chip(4, ChipState.ANNOTATED, marks="\u2717", tone="bad"),
             Chip(5, ChipState.ANNOTATED, marks="\u2713/\u2717", tone=MIXED),
             Chip(6, ChipState.ANNOTATED, problem=True, marks="\u2713", tone="good")]
    answer = " ".join(f"Claim {i}.{cite('a')}" for i in range(len(chips)))
    spans = [(c.start, c.end) for c in extract_citations(answer)]
    view.set_dark(dark)

    def check(chips: list[Chip]) -> None:
        for chip in chips:
            start, end = view.chip_range(chip.index)
            bg = chip_colours(chip.tone or chip.state, dark)[0]
            offset = 1  # after the leading no-break space
            for text, _, run_fg in chip.parts(dark):
                for k in range(len(text)):
                    fmt = view.chip_format(chip.index, offset + k)
                    assert fmt is not None, (chip, text)
                    assert fmt.background().color().name() == bg
                    assert fmt.foreground().color().name() == run_fg  # a judged "!" is red
                    assert fmt.fontWeight() == 600
                    assert not fmt.fontUnderline()
                offset += len(text)
            assert offset + 1 == end - start
            assert view.chip_text(chip.index) == chip.text
            assert not view.document().find(chip.text, start).charFormat().isAnchor()

    view.set_content(render_answer(answer, spans, chips, dark), [])
    check(chips)
    # Restyled in place (a verdict, lint): every chip keeps the look of its new state.
    again = [Chip(1, ChipState.ANNOTATED, problem=True, marks="\u2717", tone="bad"),
             Chip(2), Chip(3, ChipState.PROBLEM), Chip(4, ChipState.ANNOTATED, marks="?",
                                                        tone="unsure"),
             Chip(5), Chip(6, ChipState.ANNOTATED, marks="\u2713", tone="good")]
    view.update_chips(again)
    check(again)


@pytest.mark.parametrize("answer", [
    # the model's own no-break spaces, as characters and as an entity, beside chips
    f"Price:\u00a0$5\u00a0each.{cite('a')} Two&nbsp;words.{cite('b')}\n\n"
    f"```py\u00a0x\nx\u00a0=\u00a01\n```\n\nAfter code.{cite('c')}\n",
    # chips opening a paragraph, a list item and a table cell
    f"{cite('a')} starts the paragraph.\n\n- {cite('b')} starts an item\n\n"
    f"| a | b |\n|---|---|\n| {cite('c')} | cell |\n",
], ids=["model-nbsp", "chips-first"])
@pytest.mark.parametrize("by_anchors", [False, True], ids=["by-spaces", "by-anchors"])
def test_every_chip_is_found_painted_and_clickable_whatever_the_text_around(
        qtbot, view, answer, by_anchors, monkeypatch) -> None:
    if by_anchors:  # where the no-break spaces cannot tell, the chips' anchors stay and do
        import citeview.gui.answer_document as answer_document  # where chips are found

        monkeypatch.setattr(answer_document, "_chips_by_spaces", lambda doc, found: None)
    citations = load(view, answer)
    assert view.chip_count() == len(citations) == 3
    for i in range(3):
        assert view.chip_text(i).startswith(str(i + 1)), view.chip_text(i)
        fmt = view.chip_format(i, 1)
        assert fmt is not None and fmt.fontWeight() == 600
        with qtbot.waitSignal(view.citationActivated) as sig:
            click_chip(qtbot, view, i)
        assert sig.args == [i]
    # A click on plain text right after a chip activates nothing.
    for word in ("each", "starts"):
        found = view.document().find(word)
        if not found.isNull():
            found.setPosition(found.selectionStart() + 1)
            rect = view.cursorRect(found)
            with qtbot.assertNotEmitted(view.citationActivated):
                qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                                 pos=QPoint(rect.left(), rect.center().y()))


def units(text: str, a: int, b: int | None) -> str:
    """``text`` from UTF-16 unit ``a`` to ``b`` (Qt positions)."""
    raw = text.encode("utf-16-le")
    return raw[2 * a:None if b is None else 2 * b].decode("utf-16-le")


def test_an_added_chip_is_plain_text_of_its_own_look_and_the_chips_after_it_keep_theirs(
        view) -> None:
    from citeview.gui.answer_view import added_format

    chips = [Chip(1), Chip(2, ChipState.PROBLEM), Chip(3)]
    answer = " ".join(f"Claim {i}.{cite('a')}" for i in range(3)) + " Uncited claim."
    spans = [(c.start, c.end) for c in extract_citations(answer)]
    view.set_content(render_answer(answer, spans, chips, False), [])
    before = view.document().toRawText()
    ranges = [view.chip_range(i) for i in range(3)]
    first_end = ranges[0][1]
    looks = [view.chip_format(i, 1).background().color().name() for i in range(3)]
    labels = [view.chip_text(i) for i in range(3)]
    assert labels == ["1", "2!", "3"]
    untrusted = "<b>x</b>&amp;\U0001f600"
    view.set_added([(first_end, untrusted, "c1", "tip"), (len(before), "s L2", "c2", "tip")])
    text = view.document().toRawText()
    [(s1, e1, id1), (s2, e2, id2)] = view.added_ranges()
    assert (id1, id2) == ("c1", "c2") and s1 == first_end
    assert units(text, s1, e1).replace("\u00a0", " ").strip() == f"+ {untrusted}"  # as text
    assert units(text, s2, e2).replace("\u00a0", " ").strip() == "+ s L2"
    fmt = view.document().find("+", s1).charFormat()
    assert fmt.underlineStyle() == QTextCharFormat.UnderlineStyle.DashUnderline
    assert fmt.background().color().name() == added_format(False).background().color().name()
    # The chips after it moved along and are still painted as they were.
    shift = e1 - s1
    assert [view.chip_range(i) for i in range(3)] == [
        ranges[0], *[(a + shift, b + shift) for a, b in ranges[1:]]]
    assert [view.chip_text(i) for i in range(3)] == labels
    assert [view.chip_format(i, 1).background().color().name() for i in range(3)] == looks
    # A verdict relabels a chip before it: the added chips stay, the chips stay right.
    view.update_chips([Chip(1, ChipState.ANNOTATED, marks="\u2713", tone="good")])
    assert [x[2] for x in view.added_ranges()] == ["c1", "c2"]
    assert [view.chip_text(i) for i in range(3)] == ["1\u2713", "2!", "3"]
    view.set_dark(True)
    dark_bg = added_format(True).background().color().name()
    assert view.document().find("+", view.added_ranges()[0][0]).charFormat().background(
        ).color().name() == dark_bg
    view.set_dark(False)
    expected = view.document().toRawText()
    for start, end, _cid in reversed(view.added_ranges()):  # (Qt positions: UTF-16 units)
        expected = units(expected, 0, start) + units(expected, end, None)
    view.clear_added()
    assert view.added_ranges() == [] and view.document().toRawText() == expected
    assert "+" not in expected and len(expected) == len(before) + 1  # (the verdict's mark)
    assert [view.chip_text(i) for i in range(3)] == ["1\u2713", "2!", "3"]

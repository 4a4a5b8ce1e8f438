"""The source pane as a reviewer sees it: which text is highlighted, the gutter labels, where it
scrolls, the problem banner and missing state, tints, colouring, and untrusted text shown
literally."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel

from citeview.core.markers import Citation
from citeview.core.material import (
    Source,
    SourceKind,
    SourceLine,
    file_source,
    parse_tool_output,
)
from citeview.core.resolution import Status, Target, resolve
from citeview.core.text import iter_lines
from citeview.gui.highlighting import visible_block_range
from citeview.gui.source_view import QtSourceView
from tests.gui.conftest import resolved_sample

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")


def target(source: Source, locator: str | None) -> Target:
    """Resolve a one-source citation with ``locator`` against ``source`` (the real core)."""
    (res,) = resolve([Citation("raw", "cite", (source.id,), locator, 0, 3)], [source])
    return res.targets[0]


def gutter_labels(view: QtSourceView) -> list[str | None]:
    """The label the gutter draws on each block on screen."""
    text = view.text_view()
    loaded = text.loaded
    assert loaded is not None
    first, last = visible_block_range(text)
    doc = text.document()
    out = []
    for n in range(first, last + 1):
        b = doc.findBlockByNumber(n)
        out.append(loaded.block_label(b.position(), b.position() + b.length() - 1))
    return out


def row_colour(view: QtSourceView, block_number: int) -> QColor:
    """The background colour right of the text on a block's row, as painted on screen."""
    text = view.text_view()
    block = text.document().findBlockByNumber(block_number)
    geo = text.blockBoundingGeometry(block).translated(text.contentOffset())
    image = text.viewport().grab().toImage()
    dpr = image.devicePixelRatio()
    return image.pixelColor(int((text.viewport().width() - 4) * dpr),
                            int((geo.top() + geo.height() / 2) * dpr))


def centre_block(view: QtSourceView) -> int:
    text = view.text_view()
    return text.cursorForPosition(QPoint(5, text.viewport().height() // 2)).blockNumber()


# --------------------------------------------------------------------------- each material shape


def test_line_citation_highlights_exactly_the_cited_lines(source_view: QtSourceView) -> None:
    _, _, res = resolved_sample("transit-multi-turn.case.json")
    t = res[0].targets[0]  # turn0search0 L1-L2
    source_view.highlight(t)
    assert source_view.shown_source_id() == "turn0search0"
    assert source_view.highlighted_labels() == ("L1", "L2")
    assert source_view.highlighted_text() == (
        "Single-ride fares rise from $2.75 to $2.90 on March 1, 2026.\n"
        "Monthly passes stay at $127.")
    assert gutter_labels(source_view)[:3] == ["L1", "L2", "L3"]
    assert source_view.header_texts()["title"] == "City transit authority — 2026 fare changes"
    assert source_view.header_texts()["updated"] == "Updated 2026-01-05"
    assert "line" in source_view.header_texts()["kind"]
    assert source_view.banner_text() == ""
    # The highlighted rows are painted in the highlight colour, the uncited row is not.
    roles = source_view.text_view().roles
    assert row_colour(source_view, 0) == roles.highlight
    assert row_colour(source_view, 1) == roles.highlight
    assert row_colour(source_view, 2) != roles.highlight


def test_block_source_shows_its_label_and_is_highlighted_whole(source_view: QtSourceView
                                                               ) -> None:
    _, _, res = resolved_sample("contract-block-level.case.json")
    t = res[1].targets[0]
    source_view.highlight(t)
    assert source_view.shown_source_id() == "turn0file1"
    assert source_view.highlighted_labels() == ("Block2", "Block2")
    assert source_view.highlighted_text() == t.source.text.replace("\r\n", "\n")
    labels = gutter_labels(source_view)
    assert labels[0] == "Block2"
    assert all(label is None for label in labels[1:])
    assert source_view.text_view().verticalScrollBar().value() == 0


def test_context_unit_shows_its_id_as_label(source_view: QtSourceView) -> None:
    _, _, res = resolved_sample("opinion-injected-context.case.json")
    t = res[0].targets[0]
    source_view.highlight(t)
    assert source_view.shown_source_id() == "block5"
    assert source_view.highlighted_labels() == ("block5", "block5")
    assert "personal jurisdiction" in source_view.highlighted_text()
    assert gutter_labels(source_view)[0] == "block5"


def test_file_source_has_physical_line_labels_and_span_is_centred(source_view: QtSourceView
                                                                  ) -> None:
    text = "\n".join(f"line number {n} of the notes" for n in range(1, 3001))
    src = file_source("notes", text)
    source_view.highlight(target(src, "L2000-L2002"))
    assert source_view.highlighted_labels() == ("L2000", "L2002")
    assert source_view.highlighted_text() == (
        "line number 2000 of the notes\nline number 2001 of the notes\n"
        "line number 2002 of the notes")
    # Block 2000 (0-based 1999..2001) sits in the middle of the view.
    assert 1999 - 1 <= centre_block(source_view) <= 2001 + 1
    first, last = visible_block_range(source_view.text_view())
    assert first > 1900 and last < 2100
    assert gutter_labels(source_view)[0] == f"L{first + 1}"


def test_document_source_whole_citation_shows_the_top(source_view: QtSourceView) -> None:
    tool = ("Citation Marker: \ue200cite\ue202turn0file0\ue201\nTitle: Report\n\n"
            + "\n".join(f"Paragraph {n} of an unlabelled report." for n in range(200)))
    (src,) = parse_tool_output(tool).sources
    assert src.kind is SourceKind.DOCUMENT
    view = source_view
    view.text_view().verticalScrollBar().setValue(150)
    view.highlight(target(src, None))
    assert view.text_view().verticalScrollBar().value() == 0
    assert view.highlighted_text().startswith("Paragraph 0 of")
    assert view.highlighted_text().endswith("Paragraph 199 of an unlabelled report.")
    assert view.highlighted_labels() is None  # a document has no labels


def test_multi_source_citation_shows_each_source(source_view: QtSourceView) -> None:
    _, _, res = resolved_sample("transit-multi-turn.case.json")
    first, second = res[1].targets  # turn0search1 and turn1news0, whole
    source_view.highlight(first)
    assert source_view.shown_source_id() == "turn0search1"
    assert source_view.highlighted_text().startswith("The increase is the first since 2019.")
    source_view.highlight(second)
    assert source_view.shown_source_id() == "turn1news0"
    assert source_view.highlighted_labels() == ("L1", "L2")
    # Back to the first: the kept document shows the right text again.
    source_view.highlight(res[2].targets[0])
    assert source_view.shown_source_id() == "turn0search1"
    assert source_view.highlighted_text() == (
        "Rider groups criticized the timing but welcomed the frozen monthly pass price.")
    assert source_view.highlighted_labels() == ("L2", "L2")


# --------------------------------------------------------------------------- problems


def test_unknown_source_shows_a_clear_missing_state(source_view: QtSourceView) -> None:
    _, _, res = resolved_sample("handbook-rule-breaking.case.json")
    t = next(t for r in res for t in r.targets if t.status is Status.UNKNOWN_SOURCE)
    source_view.highlight(t)
    assert source_view.is_missing_state()
    assert source_view.shown_source_id() is None
    message = source_view.message_text()
    assert "Source not in the material" in message
    assert t.source_id in message
    assert t.suggestion is not None and t.suggestion in message
    assert source_view.highlighted_text() == ""
    assert source_view.highlighted_labels() is None
    # Showing a real source leaves the state.
    source_view.highlight(res[0].targets[0])
    assert not source_view.is_missing_state()
    assert source_view.message_text() == ""


def test_missing_state_by_show_source(source_view: QtSourceView) -> None:
    source_view.show_source(None, "turn9file9")
    assert source_view.is_missing_state()
    assert "turn9file9" in source_view.message_text()
    source_view.show_source(None)
    assert not source_view.is_missing_state()
    assert "No source" in source_view.message_text()


def test_out_of_range_past_the_end_says_so_and_highlights_nothing(source_view: QtSourceView
                                                                  ) -> None:
    _, _, res = resolved_sample("handbook-rule-breaking.case.json")
    t = next(t for r in res for t in r.targets if t.status is Status.OUT_OF_RANGE)
    source_view.highlight(t)
    banner = source_view.banner_text()
    assert "out of range" in banner.lower()
    assert "L12" in banner and "L5" in banner
    assert source_view.highlighted_text() == ""
    assert source_view.shown_source_id() == t.source_id


def test_out_of_range_end_highlights_the_lines_that_exist(source_view: QtSourceView) -> None:
    src = file_source("f", "one\ntwo\nthree\nfour\nfive")
    source_view.highlight(target(src, "L4-L9"))
    assert "out of range" in source_view.banner_text().lower()
    assert "L9" in source_view.banner_text()
    assert source_view.highlighted_labels() == ("L4", "L5")
    assert source_view.highlighted_text() == "four\nfive"
    # A good citation afterwards clears the banner.
    source_view.highlight(target(src, "L2"))
    assert source_view.banner_text() == ""
    assert source_view.highlighted_text() == "two"


def test_reversed_range_is_explained(source_view: QtSourceView) -> None:
    _, _, res = resolved_sample("handbook-rule-breaking.case.json")
    t = next(t for r in res for t in r.targets if t.status is Status.REVERSED)
    source_view.highlight(t)
    assert "reversed" in source_view.banner_text().lower()
    assert source_view.highlighted_labels() == ("L5", "L6")


# --------------------------------------------------------------------------- offsets


def test_astral_characters_before_the_span_do_not_shift_the_highlight(
        source_view: QtSourceView) -> None:
    tool = ("Citation Marker: \ue200cite\ue202turn0file0\ue201\r\nTitle: 😀 emoji 𝒳\r\n\r\n"
            "[L1] 😀😀 faces 🎉 and 𝒳𝒴𝒵 letters\r\n[L2] 👩‍👩‍👧 family\r\n"
            "[L3] The cited line.\r\n[L4] After 🙂.")
    (src,) = parse_tool_output(tool).sources
    source_view.highlight(target(src, "L3"))
    assert source_view.highlighted_text() == "The cited line."
    assert source_view.highlighted_labels() == ("L3", "L3")
    source_view.highlight(target(src, "L2-L4"))
    assert source_view.highlighted_text() == "👩‍👩‍👧 family\nThe cited line.\nAfter 🙂."


def test_crlf_source_text_highlights_the_right_characters(source_view: QtSourceView) -> None:
    # A source whose text keeps CRLF and lone CR breaks, with astral characters before.
    text = "𝒜 first\r\nsecond 😀\r\nthird\rfourth\r\nfifth"
    parts = ["𝒜 first", "second 😀", "third", "fourth", "fifth"]
    lines = [SourceLine(n, s, e) for n, (s, e, _) in enumerate(iter_lines(text), start=1)]
    assert [text[ln.start:ln.end] for ln in lines] == parts
    src = Source("crlf", SourceKind.LINE, text, lines)
    source_view.highlight(target(src, "L3-L4"))
    assert source_view.highlighted_text() == "third\nfourth"
    assert source_view.highlighted_labels() == ("L3", "L4")
    assert gutter_labels(source_view) == ["L1", "L2", "L3", "L4", "L5"]


def test_gutter_keeps_labels_as_written(source_view: QtSourceView) -> None:
    tool = ("Citation Marker: \ue200cite\ue202turn0file0\ue201\n\n"
            "[L7] seven\n[L9] nine\n[L9] nine again\nnot citable\n[L12] twelve")
    (src,) = parse_tool_output(tool).sources
    source_view.show_source(src)
    assert gutter_labels(source_view) == ["L7", "L9", "L9", None, "L12"]
    source_view.highlight(target(src, "L9"))
    assert source_view.highlighted_text() == "nine\nnine again"
    assert source_view.highlighted_labels() == ("L9", "L9")


# --------------------------------------------------------------------------- tints


def test_tints_mark_other_cited_lines_only(source_view: QtSourceView) -> None:
    src = file_source("f", "\n".join(f"row {n}" for n in range(1, 21)))
    source_view.highlight(target(src, "L2"))
    l5, l6, l9 = src.lines[4], src.lines[5], src.lines[8]
    source_view.set_tints([(l5.start, l6.end), (l9.start, l9.end)])
    roles = source_view.text_view().roles
    colours = {n: row_colour(source_view, n) for n in range(12)}
    assert colours[1] == roles.highlight
    assert {n for n, c in colours.items() if c == roles.tint} == {4, 5, 8}
    assert colours[0] == colours[2] == colours[10]
    assert colours[0] not in (roles.tint, roles.highlight)


def test_thousands_of_tints_are_ranges_not_selections(source_view: QtSourceView) -> None:
    src = file_source("big", "\n".join(f"row {n}" for n in range(20_000)))
    source_view.show_source(src)
    spans = [(ln.start, ln.end) for ln in src.lines[::2]]
    source_view.set_tints(spans)
    source_view.highlight(target(src, "L101"))
    text = source_view.text_view()
    assert len(text.extraSelections()) == 1
    assert text.is_tinted(0) and not text.is_tinted(1) and text.is_tinted(19_998)


# --------------------------------------------------------------------------- untrusted text


def test_html_in_source_and_header_is_shown_literally(source_view: QtSourceView) -> None:
    tool = ("Citation Marker: \ue200cite\ue202turn0file0\ue201\n"
            "Title: <img src=http://127.0.0.1:9/x.png><b>bold</b>\n"
            "URL: https://example.com/<script>alert(1)</script>\n"
            "Author: <a href=\"file:///etc/passwd\">me</a>\n\n"
            "[L1] <script>alert('x')</script> and <img src=http://127.0.0.1:9/y>\n")
    (src,) = parse_tool_output(tool).sources
    source_view.highlight(target(src, "L1"))
    header = source_view.header_texts()
    assert header["title"] == "<img src=http://127.0.0.1:9/x.png><b>bold</b>"
    assert header["metadata"] == 'Author: <a href="file:///etc/passwd">me</a>'
    assert source_view.highlighted_text() == (
        "<script>alert('x')</script> and <img src=http://127.0.0.1:9/y>")
    for label in source_view.findChildren(QLabel):
        assert label.textFormat() == Qt.TextFormat.PlainText
    # The title label draws the characters; its tooltip is escaped, not interpreted.
    assert "<img" in source_view._title.text()
    assert "&lt;img" in source_view._title.toolTip()


def test_url_opens_only_on_click_and_only_for_http(source_view: QtSourceView, qtbot,
                                                   monkeypatch) -> None:  # type: ignore[no-untyped-def]
    opened: list[str] = []
    monkeypatch.setattr(QtSourceView, "open_external",
                        lambda self, url: opened.append(url.toString()) or True)
    (web,) = parse_tool_output("Citation Marker: \ue200cite\ue202a\ue201\n"
                               "URL: https://transit.example/fares\n\n[L1] x").sources
    (local,) = parse_tool_output("Citation Marker: \ue200cite\ue202b\ue201\n"
                                 "URL: file:///etc/passwd\n\n[L1] y").sources
    source_view.show_source(web)
    assert opened == []  # showing never opens anything
    link = source_view._url
    qtbot.mouseClick(link, Qt.MouseButton.LeftButton, pos=QPoint(5, link.height() // 2))
    assert opened == ["https://transit.example/fares"]
    source_view.show_source(local)
    assert source_view.header_texts()["url"] == "file:///etc/passwd"
    qtbot.mouseClick(link, Qt.MouseButton.LeftButton, pos=QPoint(5, link.height() // 2))
    assert opened == ["https://transit.example/fares"]


# --------------------------------------------------------------------------- colouring and scale


def test_code_source_is_coloured_and_prose_is_not(source_view: QtSourceView) -> None:
    js = file_source("cfg", '{\n  "name": "citeview",\n  "size": 3\n}')
    js.title = "config.json"
    source_view.show_source(js)
    source_view.colour_now()
    assert source_view.lexer_name() == "JSON"
    block = source_view.text_view().document().findBlockByNumber(1)
    colours = {r.format.foreground().color().name() for r in block.layout().formats()}
    assert len(colours) >= 2  # key and value differ
    _, _, res = resolved_sample("handbook-line-level.case.json")
    source_view.highlight(res[0].targets[0])
    source_view.colour_now()
    assert source_view.lexer_name() is None
    first = source_view.text_view().document().firstBlock()
    assert list(first.layout().formats()) == []


def test_python_file_guessed_from_content(source_view: QtSourceView) -> None:
    src = file_source("code", "#!/usr/bin/env python3\nimport os\n\n\ndef f(x):\n    return x\n")
    source_view.show_source(src)
    source_view.colour_now()
    assert source_view.lexer_name() == "Python"


def test_huge_source_colours_only_what_is_on_screen(source_view: QtSourceView) -> None:
    text = "\n".join(f'{{"row": {n}, "name": "item {n}"}}' for n in range(200_000))
    src = file_source("rows", text)
    src.title = "rows.jsonl"
    source_view.highlight(target(src, "L150000-L150001"))
    source_view.colour_now()
    assert source_view.highlighted_labels() == ("L150000", "L150001")
    assert source_view.highlighted_text() == (
        '{"row": 149999, "name": "item 149999"}\n{"row": 150000, "name": "item 150000"}')
    doc = source_view.text_view().document()
    first, last = visible_block_range(source_view.text_view())
    assert first <= 149_999 <= last
    assert len(doc.findBlockByNumber(149_999).layout().formats()) > 0
    assert len(doc.findBlockByNumber(10).layout().formats()) == 0
    assert len(doc.findBlockByNumber(199_000).layout().formats()) == 0


def test_empty_last_line_of_a_range_is_highlighted_too(source_view: QtSourceView) -> None:
    src = file_source("f", "one\ntwo\n\nfour")
    source_view.highlight(target(src, "L2-L3"))
    assert source_view.highlighted_labels() == ("L2", "L3")
    roles = source_view.text_view().roles
    assert row_colour(source_view, 2) == roles.highlight
    assert row_colour(source_view, 3) != roles.highlight


@pytest.mark.parametrize("dark", [False, True])
def test_palette_roles_stay_readable(qapp, dark: bool) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QPalette

    from citeview.gui.palette import color_roles, contrast
    from tests.gui.helpers import reading_palette

    pal = reading_palette(dark)
    pal.setColor(QPalette.ColorRole.Link, QColor("#0000ff"))
    roles = color_roles(pal)
    assert roles.dark is dark
    # Text stays readable on the highlight and the tint; problems and links stand out.
    assert contrast(roles.text, roles.highlight) >= 4.5
    assert contrast(roles.text, roles.tint) >= 4.5
    assert contrast(roles.problem, roles.problem_bg) >= 4.5
    assert contrast(roles.link, roles.base) >= 4.5
    assert contrast(roles.muted, roles.panel) >= 3
    # The tint is visibly different from the background, and fainter than the highlight.
    assert roles.tint != roles.base
    assert contrast(roles.tint, roles.base) < contrast(roles.highlight, roles.base)


def test_switching_to_a_dark_palette_recolours_everything(source_view: QtSourceView, qtbot
                                                           ) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QPalette

    src = file_source("cfg", '{\n  "name": "citeview",\n  "size": 3\n}')
    src.title = "config.json"
    source_view.highlight(target(src, "L2"))
    source_view.colour_now()
    doc = source_view.text_view().document()

    def key_colour() -> str:
        return next(r.format.foreground().color().name()
                    for r in doc.findBlockByNumber(1).layout().formats())

    light_key, light_row = key_colour(), row_colour(source_view, 1)
    dark = QPalette(source_view.palette())
    for role, colour in ((QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.Text, "#dddddd"),
                         (QPalette.ColorRole.Window, "#2b2b2b"),
                         (QPalette.ColorRole.WindowText, "#dddddd")):
        dark.setColor(role, QColor(colour))
    source_view.setPalette(dark)
    qtbot.waitUntil(lambda: source_view.text_view().roles.dark)
    source_view.colour_now()
    assert key_colour() != light_key
    assert row_colour(source_view, 1) == source_view.text_view().roles.highlight != light_row
    assert source_view.highlighted_text() == '  "name": "citeview",'


def test_bidi_controls_cannot_disguise_a_title_or_url(source_view: QtSourceView) -> None:
    (src,) = parse_tool_output("Citation Marker: \ue200cite\ue202a\ue201\n"
                               "Title: invoice\u202egpj.exe\n"
                               "URL: https://example.com/\u2066x\u2069\n\n[L1] x").sources
    source_view.show_source(src)
    header = source_view.header_texts()
    assert header["title"] == "invoice\ufffdgpj.exe"
    assert "\u2066" not in header["url"] and "\ufffd" in header["url"]


def test_find_and_zoom(source_view: QtSourceView) -> None:
    src = file_source("f", "\n".join(f"row {n} alpha" for n in range(1, 400)) + "\nneedle here")
    source_view.show_source(src)
    assert source_view.find_text("needle")
    text = source_view.text_view()
    assert text.textCursor().selectedText() == "needle"
    assert text.textCursor().blockNumber() == 399
    first, last = visible_block_range(text)
    assert first <= 399 <= last  # scrolled into view
    assert not source_view.find_text("absent")
    before = text.fontMetrics().height()
    gutter_before = text.gutter_width()
    source_view.zoom(3)
    assert text.fontMetrics().height() > before
    assert text.gutter_width() > gutter_before  # labels stay readable in the wider gutter
    source_view.zoom(-3)
    assert text.fontMetrics().height() == before


def test_a_huge_unbroken_line_wraps_anywhere(source_view: QtSourceView) -> None:
    # Word-boundary wrapping of a 300,000-character run takes Qt many seconds; such a source
    # wraps anywhere, and a normal one keeps word wrapping.
    from PySide6.QtGui import QTextOption

    src = file_source("min", "x" * 300_000 + "\nsecond line")
    source_view.highlight(target(src, "L2"))
    assert source_view.highlighted_text() == "second line"
    doc = source_view.text_view().document()
    assert doc.defaultTextOption().wrapMode() == QTextOption.WrapMode.WrapAnywhere
    source_view.highlight(target(file_source("prose", "short words\nmore"), "L1"))
    assert (source_view.text_view().document().defaultTextOption().wrapMode()
            == QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)


def test_tabs_are_four_spaces_wide_not_qts_80_pixels(source_view) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtGui import QFontMetrics

    text = source_view.text_view()
    space = QFontMetrics(text.font()).horizontalAdvance(" ")
    assert text.tabStopDistance() == pytest.approx(4 * space)
    font = text.font()
    font.setPointSizeF(font.pointSizeF() * 2)  # zoomed: still four spaces
    text.setFont(font)
    assert text.tabStopDistance() == pytest.approx(
        4 * QFontMetrics(text.font()).horizontalAdvance(" "))


def test_a_wrapped_span_near_the_end_is_shown_whole_with_context(source_view) -> None:  # type: ignore[no-untyped-def]
    long = " ".join(["the cited line goes on and on"] * 12)  # wraps over several rows
    lines = [f"line {n} of the document" for n in range(1, 60)] + [long, "last line"]
    src = file_source("doc", "\n".join(lines))
    source_view.show_source(src)
    source_view.highlight(target(src, "L60"))
    text = source_view.text_view()
    block = text.document().findBlockByNumber(59)
    geo = text.blockBoundingGeometry(block).translated(text.contentOffset())
    assert geo.height() > 3 * text.fontMetrics().height()  # it does wrap
    assert geo.top() >= 0 and geo.bottom() <= text.viewport().height()  # all of it shows
    assert geo.top() > 2 * text.fontMetrics().height()  # with lines above it for context

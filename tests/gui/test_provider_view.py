"""A provider's citations in the window's parts: zero-width chips, claims found by their
rendered text, exact character highlights and the banner saying what is cited."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeview.core.analysis import analyse
from citeview.core.inputs import load_input
from citeview.gui.answer_render import Chip, render_answer, visible_text
from citeview.gui.answer_view import AnswerView
from citeview.gui.source_view import QtSourceView
from citeview.gui.state import build_case_view

pytestmark = pytest.mark.qt_log_ignore("propagateSizeHints")
DATA = Path(__file__).parent.parent / "data" / "providers"


def test_zero_width_spans_render_chips_in_order() -> None:
    html = render_answer("One. Two.", [(0, 0), (4, 4), (4, 4), (9, 9)],
                         [Chip(i) for i in range(1, 5)])
    assert [html.index(f'href="cite:{i}"') for i in range(4)] == sorted(
        html.index(f'href="cite:{i}"') for i in range(4))
    assert html.count('href="cite:') == 4


def test_visible_text_of_a_link_claim() -> None:
    assert visible_text("([site.example](https://site.example/page))") == "(site.example)"
    assert visible_text("**bold** & <b>") == "bold & <b>"


def test_answer_view_highlights_a_link_claim_not_the_text_before(qtbot) -> None:
    case = load_input(str(DATA / "responses-url.json")).get(0)
    cv = build_case_view(case)
    view = AnswerView()
    qtbot.addWidget(view)
    view.set_content(cv.html, [(c.shown_claim or "", c.claim) for c in cv.citations])
    view.set_active(0)
    assert view.highlighted_claim() == "(summitpost.example)"
    assert [c.chip.text for c in cv.citations] == ["1", "2"]
    assert [r.title for r in cv.sources] == [
        "Mont Blanc | SummitPost \u2014 https://summitpost.example/mb",
        "https://other.example/alps", "Météo du Mont Blanc \u2014 https://meteo.example/mb"]


def test_source_view_character_span_and_banner(qtbot) -> None:
    a = analyse(load_input(str(DATA / "anthropic-char.json")).get(0))
    target = a.citations[1].targets[0]
    view = QtSourceView()
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.show()
    view.highlight(target)
    assert view.highlighted_text() == "Flights need written approval from a manager."
    assert view.text_view().strong_exact  # the line is tinted, the characters highlighted
    assert view.banner_text().startswith("Cites characters")
    web = analyse(load_input(str(DATA / "anthropic-web.json")).get(0)).citations[0].targets[0]
    view.highlight(web)
    assert view.highlighted_text() == "Lyon: 21 °C, sunny."
    assert not view.text_view().strong_exact
    assert "cited text: \u201cLyon: 21 °C, sunny.\u201d" in view.banner_text()


def test_a_problem_target_says_so_in_the_banner(qtbot) -> None:
    a = analyse(load_input(str(DATA / "lint" / "cv604.json")).get(0))
    view = QtSourceView()
    qtbot.addWidget(view)
    view.highlight(a.citations[0].targets[0])
    assert view.banner_text().startswith("\u26a0 Cited text differs")
    assert "Staff receive 30 days." in view.banner_text()

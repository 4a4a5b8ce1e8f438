"""One citation identity (issue 21): a verdict given with a key in the window is on its
citation's row in every export, in ``report``, after a JSON round trip and when the window
opens the input again, for every kind of input, provider citations included."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from citeview.gui.advance import ADVANCE_KEY
from citeview.gui.answer_render import VERDICT_GLYPHS
from citeview.gui.main_window import MainWindow
from citeview.gui.readback import is_settled
from citeview.gui.review_session import ANNOTATOR_KEY
from citeview.session.model import DEFAULT_LABELS
from tests.session._identity import Expected, check_rows, check_session_outputs

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support")

DATA = Path(__file__).parent.parent / "data"
K = Qt.Key
KEYS = [K.Key_1, K.Key_2, K.Key_3, K.Key_4]
# Every kind of input: marker cases, a dataset, multi-source citations, recovered and degraded
# markers, every material shape, transcripts (Chat Completions, Responses, messages), and every
# provider sample (Anthropic, OpenAI, Gemini; their lint samples too).
INPUTS = sorted(
    [f"samples/{p.name}" for p in (DATA / "samples").glob("*.json*")]
    + [f"formats/{p.name}" for p in (DATA / "formats").glob("*.json*")]
    + [f"lint/{name}.case.json" for name in ("CV101-unterminated", "CV106-literal-escape",
                                              "CV107-degraded", "CV114-mojibake")]
    + ["material/all-shapes.case.json"]
    + [p.relative_to(DATA).as_posix() for p in (DATA / "providers").rglob("*.json*")
       if p.name != "cv609.json"]  # (cv609: a problem of the whole response, no citation)
    # Recorded streams (#27): each reads as the case its final response makes.
    + [f"streams/{p.name}" for p in (DATA / "streams").iterdir()
       if p.suffix in (".sse", ".jsonl", ".json")])


def settings_in(folder: Path) -> QSettings:
    s = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    s.setValue(ANNOTATOR_KEY, "ana")
    s.setValue(ADVANCE_KEY, False)  # each key pressed by hand: J moves, Ctrl+Enter next case
    return s


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    """One window for every input of this module (each opens its own session in it)."""
    win = MainWindow(settings=settings_in(tmp_path_factory.mktemp("identity")))
    win.resize(1300, 800)
    win.show()
    win.activateWindow()
    yield win
    win.close()
    win.deleteLater()


def ready(qtbot, win: MainWindow) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: is_settled(win) and win.review.session is not None, timeout=10000)


def open_input(qtbot, win: MainWindow, path: Path) -> None:  # type: ignore[no-untyped-def]
    assert win.open_path(str(path))
    ready(qtbot, win)


def show_case(qtbot, win: MainWindow, index: int) -> None:  # type: ignore[no-untyped-def]
    if win.case_index != index:
        win.loader.show_case(index)
    qtbot.waitUntil(lambda: is_settled(win) and win.case_index == index
                    and win.view is not None, timeout=10000)


def judge_every_citation(qtbot, win: MainWindow) -> Expected:  # type: ignore[no-untyped-def]
    """In every case of the input shown: key ((k - 1) % 4) + 1 on each source of citation k
    (J between them), a real key event to the window. Returns what was given."""
    given: Expected = {}
    assert win.dataset is not None
    for index in range(len(win.dataset)):
        show_case(qtbot, win, index)
        view = win.view
        assert view is not None
        first = True
        for cv in view.citations:
            for j, sid in enumerate(cv.citation.source_ids):
                if not first:
                    qtbot.keyClick(win, K.Key_J)
                first = False
                assert win.view.citations[win.active].number == cv.number
                assert win.active_source == j
                qtbot.keyClick(win, KEYS[(cv.number - 1) % 4])
                given[(view.case.id, cv.number, sid)] = DEFAULT_LABELS[(cv.number - 1) % 4]
    return given


def assert_chips(qtbot, win: MainWindow, expected: Expected) -> None:  # type: ignore[no-untyped-def]
    """Each case of the input shown: chip k shows citation k's verdict, and no other chip
    shows one."""
    assert win.dataset is not None
    for index in range(len(win.dataset)):
        show_case(qtbot, win, index)
        view = win.view
        assert view is not None
        for position, cv in enumerate(view.citations):
            want = [expected.get((view.case.id, cv.number, sid))
                    for sid in cv.citation.source_ids]
            assert list(cv.verdicts) == want, (view.case.id, cv.number)
            chip = win.answer.chip_text(position)
            assert re.match(rf"~?{cv.number}(\+\d+)?(!)?", chip), chip
            for verdict in filter(None, want):
                assert VERDICT_GLYPHS[verdict] in chip, (chip, verdict)


@pytest.mark.parametrize("name", INPUTS)
def test_each_verdict_is_on_its_citation_everywhere(qtbot, window, tmp_path, name) -> None:
    win = window
    open_input(qtbot, win, DATA / name)
    expected = judge_every_citation(qtbot, win)
    assert expected  # every input here has citations
    session = win.review.session
    assert session is not None and not session.orphans()
    path = session.path
    win.review_session.close()  # as closing the window: the session file is free
    check_session_outputs(path, expected, tmp_path / "out")
    open_input(qtbot, win, DATA / name)  # reopened: the same session, every chip judged
    assert win.review.session is not None and win.review.session.path == path
    assert_chips(qtbot, win, expected)
    win.review_session.close()


def test_the_reported_case_a_verdict_on_an_anthropic_citation(qtbot, window,
                                                               tmp_path) -> None:
    """The issue's repro: ``1`` on citation 1 of anthropic-char.json is citation 1's verdict
    in the exports, the report and a round trip, and stays on it when a sentence is added
    before its claim."""
    win = window
    src = tmp_path / "anthropic-char.json"
    shutil.copyfile(DATA / "providers" / "anthropic-char.json", src)
    open_input(qtbot, win, src)
    assert win.active == 0
    qtbot.keyClick(win, K.Key_1)
    expected = {("anthropic-char", 1, "doc0"): "supported"}
    assert win.answer.chip_text(0).startswith("1\u2713")
    session = win.review.session
    assert session is not None
    path = session.path
    anchor = session.analysed("anthropic-char").citation(1).anchor
    assert anchor == "char_location@60-60"
    win.review_session.close()
    check_session_outputs(path, expected, tmp_path / "out")

    # The input is edited: a sentence before the claim moves the citation (and its anchor).
    open_input(qtbot, win, src)
    data = json.loads(src.read_text(encoding="utf-8"))
    data["response"]["content"][0]["text"] = "Added first. " + data["response"]["content"][0][
        "text"]
    src.write_text(json.dumps(data), encoding="utf-8")
    win.watcher.reload()
    qtbot.waitUntil(lambda: is_settled(win) and win.view is not None
                    and "Added first." in win.view.case.answer, timeout=10000)
    assert [c.verdicts for c in win.view.citations] == [("supported",), (None,)]
    session = win.review.session
    assert session is not None and session.orphans() == []
    moved = session.analysed("anthropic-char").citation(1).anchor
    assert moved != anchor and moved.startswith("char_location@")
    win.review_session.close()
    check_rows(path, expected, tmp_path / "edited")


@pytest.mark.parametrize("name", INPUTS)
def test_the_window_and_core_agree_on_each_citation(name) -> None:
    """What the view-model shows of citation k is core's: its number (the chip's label), its
    anchor, whether it is a problem, and which findings are about the material."""
    from citeview.core.inputs import load_input
    from citeview.gui.state import build_case_view

    dataset = load_input(str(DATA / name))
    for case in dataset.iter_cases():
        view = build_case_view(case, render=False)
        analysed = view.analysed
        assert analysed is not None
        assert [cv.analysed for cv in view.citations] == list(analysed.citations)
        for cv in view.citations:
            assert analysed.citation(cv.number) is cv.analysed
            assert cv.chip.label.lstrip("~").split("+")[0] == str(cv.number)
            assert cv.problem == analysed.problem(cv.number)
        assert view.material_diagnostics == list(analysed.lint.material_diagnostics)


# One input of each kind for the issue-30 marks (a picker per input costs its settle time):
# a tool output, a transcript dataset, messages, a degraded marker, every material shape,
# blocks, injected context, a dataset, and provider citations of each family and a stream.
MARK_INPUTS = [
    "formats/handbook.output.json", "formats/policies.chat.jsonl",
    "formats/transit.messages.json", "lint/CV107-degraded.case.json",
    "material/all-shapes.case.json", "samples/contract-block-level.case.json",
    "samples/opinion-injected-context.case.json", "samples/policies.dataset.jsonl",
    "providers/anthropic-char.json", "providers/anthropic-pages.json",
    "providers/anthropic-web.json", "providers/chat-completion.json",
    "providers/responses-url.json", "providers/gemini.grounding.json",
    "providers/bedrock-converse-citations.json", "streams/anthropic-messages.sse",
]


@pytest.fixture(scope="module")
def marks_window(qapp, tmp_path_factory) -> Iterator[MainWindow]:  # type: ignore[no-untyped-def]
    """A window of its own for the marks (the one above ends its tests on an input edited and
    reloaded)."""
    win = MainWindow(settings=settings_in(tmp_path_factory.mktemp("marks")))
    win.resize(1300, 800)
    win.show()
    win.activateWindow()
    yield win
    win.close()
    win.deleteLater()


@pytest.mark.parametrize("name", MARK_INPUTS)
def test_reasons_evidence_and_a_relocation_stay_on_their_citation(qtbot, marks_window,
                                                                   tmp_path, name) -> None:
    """Issue 30's marks where they meet issue 21's identity: on citation 1 of the first case
    of each kind of input, key 3, a reason from the picker (R, 1, Enter), evidence (select,
    E) and a relocation to the same selection (L). Every export puts them on citation 1's
    row by its anchor, none orphaned; the window opened again shows them on citation 1."""
    from citeview.cli import main
    from citeview.session import Session
    from citeview.session.model import DEFAULT_REASONS
    from tests.gui.test_review_marks import picker_keys

    win = marks_window
    # A copy of its own: a fresh session, whatever the tests above judged in the same input.
    data = tmp_path / "in" / Path(name).name
    data.parent.mkdir()
    shutil.copyfile(DATA / name, data)
    open_input(qtbot, win, data)
    show_case(qtbot, win, 0)
    assert win.view is not None and win.active == 0
    case_id = win.view.case.id
    first = win.view.citations[0]
    source_id = first.citation.source_ids[0]
    qtbot.keyClick(win, K.Key_3)
    picker_keys(qtbot, early=[], late=[K.Key_1])
    qtbot.keyClick(win, K.Key_R)
    from PySide6.QtWidgets import QApplication

    qtbot.waitUntil(lambda: QApplication.activeWindow() is win)  # the picker has closed
    shown = win.source.shown_source()
    assert shown is not None and win.source.shown_source_id() == source_id
    text = shown.text
    # The source's last 24 characters: another place than citation 1 cites (a relocation that
    # changes the answer, so the pair is written).
    start, end = len(text) - len(text.lstrip()), len(text.rstrip())
    span = (max(start, end - 24), end)
    if span[0] == start:  # a short text (a provider's cited text alone): its first half
        span = (start, start + (end - start) // 2)
    marked = span[1] > span[0]  # (a source with no text of its own: no evidence to mark)
    if marked:
        win.source.select_span(span)
        assert win.source.selected_span() == span
        qtbot.keyClick(win, K.Key_E)
        win.source.select_span(span)
        qtbot.keyClick(win, K.Key_L)
    session = win.review.session
    assert session is not None
    path = session.path
    anchor = session.analysed(case_id).citation(1).anchor
    assert anchor == first.analysed.anchor
    assert not session.orphans()
    win.review_session.close()

    out = tmp_path / "out"
    out.mkdir()
    assert main(["export", path, "--format", "json", "-o", str(out / "s.json")]) == 0
    doc = json.loads((out / "s.json").read_text(encoding="utf-8"))
    [ann] = [a for a in doc["annotations"] if a["verdict"]]
    assert (ann["case_id"], ann["number"], ann["raw"], ann["source_id"], ann["verdict"],
            ann["reasons"], ann["orphaned"]) == (case_id, 1, anchor, source_id,
                                                 "unsupported", [DEFAULT_REASONS[0]], False)
    evidence, corrections = doc.get("evidence", []), doc.get("corrections", [])
    if marked:
        [ev] = evidence
        assert (ev["case_id"], ev["number"], ev["source_id"], ev["start"], ev["end"]) == (
            case_id, 1, source_id, *span)
        assert ev["text"] == text[span[0]:span[1]]
        [corr] = corrections
        assert (corr["case_id"], corr["number"], corr["kind"]) == (case_id, 1, "relocate")
        assert corr.get("anchor", anchor) == anchor
    assert main(["export", path, "--format", "jsonl", "-o", str(out / "rows.jsonl")]) == 0
    rows = [json.loads(line) for line in (out / "rows.jsonl").read_text(
        encoding="utf-8").splitlines() if line.strip()]
    assert [r for r in rows if r["status"] == "orphaned"] == []
    [row] = [r for r in rows if r["verdict"]]
    assert (row["case_id"], row["citation"], row["raw"], row["reasons"]) == (
        case_id, 1, anchor, [DEFAULT_REASONS[0]])
    assert [(e["start"], e["end"]) for e in row["evidence"]] == ([span] if marked else [])
    if marked:  # the corrected answer is written, for this case
        assert main(["export", path, "--format", "corrections", "--shape", "pairs",
                     "-o", str(out / "pairs.jsonl")]) == 0
        pairs = [json.loads(line) for line in (out / "pairs.jsonl").read_text(
            encoding="utf-8").splitlines()]
        # (a pair only where the answer changed: a provider citation relocated inside the one
        # line its converted marker names keeps that marker)
        from citeview.session.corrected import corrected_answers

        with Session.open(path, readonly=True) as s:
            [(_who, result)] = list(corrected_answers(s))
        assert [p["case_id"] for p in pairs] == ([case_id] if result.changed else [])
        assert result.changed or first.analysed.anchor.startswith(("char_location", "stream"))
    with Session.open(path, readonly=True) as s:
        assert [e.key.number for e in s.evidence(case_id)] == ([1] if marked else [])

    open_input(qtbot, win, data)  # reopened: the marks are on citation 1 again
    show_case(qtbot, win, 0)
    if win.active != 0:  # (it resumes at the first citation not judged): click chip 1
        from tests.gui.test_main_window import click_chip

        win.answer.verticalScrollBar().setValue(0)
        click_chip(qtbot, win, 1)
    assert list(win.view.citations[0].verdicts)[0] == "unsupported"
    if marked:
        assert win.source.evidence_spans() == [span]
        assert win.answer.chip_text(0).endswith("\u00b1")
    win.review_session.close()

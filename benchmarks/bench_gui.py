"""Benchmark: the window at Qt's own speed (issues #12, #24), each figure beside a bare-Qt
baseline.

Figures end where the user looks: from a real event (a mouse click sent to the chip, a key
press sent to the window, the open request) until the first paint at which the result is on
screen, checked in the widgets at paint time (the cited span's rows inside the source viewport;
the new case's answer and source painted). The click and next-case figures (ours and the
baseline alike) end with the frame that painted it (its widgets painted and the backing store
flushed); what the window queued behind that frame is kept as a breakdown (until control is back
from the event loop). Every figure is measured in fresh child processes,
ours and its baseline interleaved in the same run (median of ``--runs``; the maximum too where
the target names one):

- open a case whose one source has 200,000 ``[L#]`` lines (10 and 10,000 citations) until the
  source is painted, and until the first citation's span is painted in view, against
  ``QPlainTextEdit.setPlainText`` of the shown text and its paint;
- the longest gap between 10 ms timer ticks while opening it (until the window has settled);
- a mouse click on a chip of the 10,000-citation case until its span is painted in view,
  against one ExtraSelection, ``centerCursor`` and the paint in a ``QPlainTextEdit`` holding
  the same text (breakdown: the click event handled, without the paint);
- a verdict key in that case (recorded, chip and row repainted);
- the answer with 10,000 chips, from the open request (reading the file included) until it is
  painted with all its chips (before the case's material, analysis and tables: they follow),
  against ``QTextBrowser.setMarkdown`` with ``[n]`` links and its paint (breakdown: the answer
  drawn first alone: marker parse, render, document, paint);
- opening a 10,000-case JSONL until the first case shows, against reading it, ``json.loads`` of
  the first case and showing it; the next case (Ctrl+PgDown, Ctrl+Enter key presses) until its
  answer and source are painted, against ``json.loads``, ``setMarkdown`` and ``setPlainText``
  of the next one and their paint (breakdown: until the view is ready);
- peak memory (maximum RSS) of the 200,000-line case open, against the baseline's process;
- an answer ``"*" * n + "x" + "*" * n`` until it shows, against ``setMarkdown`` of it;
- ``citeview parse`` of a 200 MB answer (one marker per 80 bytes), against
  ``extract_citations`` + ``json.dumps`` of its result;
- ``citeview lint`` peak memory on a 20 MB answer, against ``json.loads`` + ``extract_citations``.

    python benchmarks/bench_gui.py [--quick] [--runs N] [--only open,click,...]

``--quick`` uses smaller inputs and 3 runs (a fast check, not the figures to quote). Times are
wall-clock (the window waits for paints and its worker thread), offscreen (``QT_QPA_PLATFORM``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# citeview and Qt are imported in the children only: a child's peak RSS counts the memory of
# the parent it was forked from (Linux keeps it across exec), so the parent stays small.

S, D, E = "\ue200", "\ue202", "\ue201"
_TEXT = ("employees may work remotely three days week manager approval portal requests "
         "respond business travel receipts hotel economy class flights reimbursed finance "
         "department notice contract renewal pricing addendum written policy appendix")
WORDS = _TEXT.split()
SID = "turn0file0"
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _timing import ms, spin, wait_until  # noqa: E402


def marker(sid: str, loc: str | None = None) -> str:
    return f"{S}cite{D}{sid}{D + loc if loc else ''}{E}"


# --------------------------------------------------------------------------- inputs


def line_text(k: int) -> str:
    return f"line {k}: " + " ".join(WORDS[(k * 7 + j) % len(WORDS)] for j in range(8))


def big_case(n_lines: int, n_cites: int) -> dict[str, Any]:
    """One source of ``n_lines`` labelled lines; ``n_cites`` citations spread over it, the
    last one into line ``n_lines - 1``."""
    header = (f"Citation Marker: {marker(SID)}\nTitle: Big log\n"
              f"URL: https://example.com/big.log\n\n")
    body = "\n".join(f"[L{k}] {line_text(k)}" for k in range(1, n_lines + 1))
    parts = []
    for i in range(n_cites):
        line = 1 + (i * (n_lines - 2)) // max(n_cites - 1, 1) if i < n_cites - 1 else n_lines - 1
        loc = f"L{line}" if i % 3 else f"L{line}-L{min(line + 2, n_lines)}"
        parts.append(f"Claim {i + 1} is about {WORDS[i % len(WORDS)]} {WORDS[(i * 5) % len(WORDS)]}"
                     f"{marker(SID, loc)}.")
        if i % 10 == 9:
            parts.append("\n\n")
        else:
            parts.append(" ")
    return {"id": f"big-{n_lines}-{n_cites}", "question": "What does the log say?",
            "tool_outputs": [header + body], "answer": "".join(parts).strip() + "\n"}


def shown_text(n_lines: int) -> str:
    return "\n".join(line_text(k) for k in range(1, n_lines + 1))


def small_case(i: int, n: int = 10) -> dict[str, Any]:
    rnd = random.Random(i)

    def sentence(k: int) -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(k)).capitalize() + "."
    lines = [sentence(12) for _ in range(n + 2)]
    material = (f"Citation Marker: {marker(SID)}\nTitle: Document {i}\n"
                f"URL: https://example.com/{i}\n\n"
                + "\n".join(f"[L{k + 1}] {line}" for k, line in enumerate(lines)))
    cited = [f"{sentence(9)}{marker(SID, f'L{k + 1}')}" for k in range(n)]
    answer = " ".join(cited[: n // 2]) + "\n\n" + " ".join(cited[n // 2:]) + "\n"
    return {"id": f"case-{i:05d}", "question": f"Question {i}?", "tool_outputs": [material],
            "answer": answer}


def marked_answer(size: int) -> str:
    """About ``size`` bytes of prose with one citation marker per 80 bytes (UTF-8), in
    paragraphs of ten sentences."""
    chunks = []
    total = 0
    i = 0
    while total < size:
        loc = f"L{i % 97 + 1}"
        text = f"Statement {i % 1000:03d} of the answer, cited."
        c = f"{text}{marker(f'turn0file{i % 50}', loc)}" + ("\n\n" if i % 10 == 9 else " ")
        pad = 80 - len(c.encode("utf-8"))
        c = c[:len(text)] + "x" * max(pad, 0) + c[len(text):]
        chunks.append(c)
        total += len(c.encode("utf-8"))
        i += 1
    return "".join(chunks)


def make_inputs(data: Path, quick: bool) -> None:
    data.mkdir(parents=True, exist_ok=True)
    n_lines = 50_000 if quick else 200_000
    n_many = 2_500 if quick else 10_000
    for name, cites in (("big10", 10), ("bigmany", n_many)):
        (data / f"{name}.case.json").write_text(
            json.dumps(big_case(n_lines, cites), ensure_ascii=False), encoding="utf-8")
    (data / "shown.txt").write_text(shown_text(n_lines), encoding="utf-8")
    with open(data / "dataset.jsonl", "w", encoding="utf-8") as fh:
        for i in range(2_000 if quick else 10_000):
            fh.write(json.dumps(small_case(i), ensure_ascii=False) + "\n")
    for n in nested_sizes(quick):
        (data / f"nested{n}.case.json").write_text(json.dumps(
            {"id": f"nested-{n}", "answer": "*" * n + "x" + "*" * n}), encoding="utf-8")
    mb = 1 << 20
    (data / "parse.txt").write_text(marked_answer((20 if quick else 200) * mb),
                                    encoding="utf-8")
    # Every source the answer cites is in the material (100 labelled lines each).
    material = "\n\n".join(
        f"Citation Marker: {marker(f'turn0file{k}')}\nTitle: Document {k}\n\n"
        + "\n".join(f"[L{n}] {line_text(n)}" for n in range(1, 101)) for k in range(50))
    (data / "lint.case.json").write_text(json.dumps(
        {"id": "lint", "answer": marked_answer((5 if quick else 20) * mb),
         "tool_outputs": [material]}, ensure_ascii=False), encoding="utf-8")


def nested_sizes(quick: bool) -> tuple[int, ...]:
    return (10_000, 40_000) if quick else (10_000, 20_000, 40_000)


# --------------------------------------------------------------------------- child helpers


def _app() -> Any:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication(["bench"])


class Ticks:
    """Timestamps of a 10 ms timer: the longest gap is the longest the GUI thread stalled."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.times: list[float] = []
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(10)
        self.timer.timeout.connect(lambda: self.times.append(time.perf_counter()))

    def start(self) -> None:
        self.times = [time.perf_counter()]
        self.timer.start()

    def stop(self) -> float:
        self.timer.stop()
        self.times.append(time.perf_counter())
        return max(b - a for a, b in zip(self.times, self.times[1:], strict=False))


class PaintWatch:
    """Records the first paint of a widget's viewport once ``ready()`` holds at paint time.

    The time is taken once control is back from the event loop; with ``frame_end``, at the end
    of the frame that painted it: the first event the loop delivers after
    that paint that is not a paint of the same frame (the frame's widgets are painted, then the
    backing store flushed, all within one update request: offscreen, the flush is synchronous).
    Work the window queued behind the paint (zero timers, posted events) runs after the user
    sees the frame; ``returned`` is the time control came back to the benchmark, that work
    included (kept as a breakdown)."""

    # Events the loop delivers only between frames (never inside a widget's paint).
    _BETWEEN = frozenset({1, 43, 76, 77})  # Timer, MetaCall, LayoutRequest, UpdateRequest

    def __init__(self, widget: Any, ready: Any, frame_end: bool = False) -> None:
        from PySide6.QtCore import QCoreApplication, QEvent, QObject

        watch = self
        paint = QEvent.Type.Paint
        between = self._BETWEEN

        class Filter(QObject):
            def eventFilter(self, obj: Any, ev: Any) -> bool:  # noqa: N802
                t = ev.type()
                if t == paint:
                    if (obj is widget and watch.at is None and not watch.seen
                            and watch.ready()):
                        watch.seen = True
                elif (watch.seen and watch.frame is None
                      and (t.value in between or t.value >= 1000)):
                    watch.frame = time.perf_counter()
                return False

        self.ready = ready
        self.at: float | None = None
        self.frame: float | None = None
        self.returned: float | None = None
        self.seen = False
        self.filter = Filter()
        if frame_end:
            QCoreApplication.instance().installEventFilter(self.filter)
        else:
            widget.installEventFilter(self.filter)

    def arm(self, ready: Any) -> None:
        """Watch for the next paint at which ``ready()`` holds."""
        self.ready = ready
        self.at = self.frame = self.returned = None
        self.seen = False

    def done(self) -> bool:
        # The paint was seen and delivered: the time is the end of its frame (or, when the loop
        # delivered nothing after it, now that control is back).
        if self.seen and self.at is None:
            self.returned = time.perf_counter()
            self.at = self.frame if self.frame is not None else self.returned
        return self.at is not None


def all_done(*watches: PaintWatch) -> bool:
    return all([w.done() for w in watches])  # (a list: every watch takes its time)


def chip_on_screen(app: Any, answer: Any, index: int) -> Any:
    """Scroll the answer pane to chip ``index`` as a reader would (not timed); where to click."""
    from PySide6.QtGui import QTextCursor

    chip = answer.chip_range(index)
    cursor = QTextCursor(answer.document())
    cursor.setPosition(chip[0])
    bar = answer.verticalScrollBar()
    bar.setValue(bar.value() + answer.cursorRect(cursor).center().y()
                 - answer.viewport().height() // 2)
    app.processEvents()
    return answer.chip_center(index)


def rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def fresh_copy(path: Path) -> Path:
    """``path`` alone in a new folder (the session the window makes beside it is new)."""
    folder = Path(tempfile.mkdtemp(prefix="bench-gui-"))
    dest = folder / path.name
    try:
        os.link(path, dest)
    except OSError:
        shutil.copy(path, dest)
    return dest


def make_window(folder: Path) -> Any:
    from PySide6.QtCore import QSettings

    from citeview.gui.main_window import MainWindow
    from citeview.gui.review_session import ANNOTATOR_KEY

    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "bench")
    win = MainWindow(settings=settings)
    win.resize(1300, 800)
    win.show()
    return win


def settle(app: Any, win: Any, extra: float = 1.0) -> None:
    from citeview.gui.readback import is_settled

    wait_until(lambda: is_settled(win))
    spin(extra)


# --------------------------------------------------------------------------- children


def child_open(side: str, data: Path, name: str, interact: bool) -> dict[str, Any]:
    app = _app()
    out: dict[str, Any] = {}
    if side == "base":
        from PySide6.QtGui import QTextCursor
        from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

        text = (data / "shown.txt").read_text(encoding="utf-8")
        edit = QPlainTextEdit()
        edit.setReadOnly(True)
        edit.resize(640, 700)
        edit.show()
        spin(0.2)
        watch = PaintWatch(edit.viewport(), lambda: edit.document().characterCount() > 1)
        ticks = Ticks()
        ticks.start()
        t0 = time.perf_counter()
        edit.setPlainText(text)
        wait_until(watch.done)
        out["paint"] = watch.at - t0  # type: ignore[operator]
        spin(0.3)
        out["gap"] = ticks.stop()
        out["rss"] = rss_mb()
        if interact:
            rnd = random.Random(1)
            n = edit.document().blockCount()
            clicks, returned = [], []
            painted = PaintWatch(edit.viewport(), lambda: True, frame_end=True)
            for k in range(40):
                line = n - 2 if k == 0 else rnd.randrange(n)
                spin(0.02)
                painted.arm(lambda: True)
                t0 = time.perf_counter()
                block = edit.document().findBlockByNumber(line)
                sel = QTextEdit.ExtraSelection()
                cur = QTextCursor(block)
                cur.movePosition(QTextCursor.MoveOperation.EndOfBlock,
                                 QTextCursor.MoveMode.KeepAnchor)
                sel.cursor = cur
                sel.format.setBackground(edit.palette().highlight())
                edit.setExtraSelections([sel])
                edit.setTextCursor(QTextCursor(block))
                edit.centerCursor()
                wait_until(painted.done, 10)
                assert painted.at is not None and painted.returned is not None
                clicks.append(painted.at - t0)
                returned.append(painted.returned - t0)
            out["clicks"] = clicks
            out["clicks_returned"] = returned
        return out

    folder = Path(tempfile.mkdtemp(prefix="bench-gui-"))
    path = fresh_copy(data / f"{name}.case.json")
    win = make_window(folder)
    spin(1.0)  # a running window: its start-up work done
    text_view = win.source.text_view()
    watch = PaintWatch(text_view.viewport(), lambda: win.source.shown_source_id() == SID)
    # The first citation's span painted inside the source viewport (checked in the widget).
    lit = PaintWatch(text_view.viewport(), lambda: win.source.shown_source_id() == SID
                     and win.source.span_in_view() is True)
    # The answer painted with all its chips in the document (whether the case's analysis,
    # tables and source are done or not: what the user sees).
    cites = len(json.loads(path.read_text(encoding="utf-8"))["answer"].split(S)) - 1
    answered = PaintWatch(win.answer.viewport(), lambda: win.answer.placed_chips() == cites)
    ticks = Ticks()
    ticks.start()
    t0 = time.perf_counter()
    win.open_path(str(path))
    wait_until(lambda: all_done(watch, lit, answered))
    out["paint"] = watch.at - t0  # type: ignore[operator]
    out["highlight"] = lit.at - t0  # type: ignore[operator]
    out["answer"] = answered.at - t0  # type: ignore[operator]
    settle(app, win)
    out["gap"] = ticks.stop()
    out["rss"] = rss_mb()
    if interact:
        assert win.view is not None
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        n = len(win.view.citations)
        rnd = random.Random(1)
        clicks, handled, returned = [], [], []
        shown = PaintWatch(text_view.viewport(), lambda: False, frame_end=True)
        for k in range(40):
            i = n - 1 if k == 0 else rnd.randrange(n)
            pos = chip_on_screen(app, win.answer, i)
            spin(0.02)
            shown.arm(lambda i=i: win.active == i and win.source.span_in_view() is True)
            # A real mouse click on the chip, until the span is painted inside the viewport.
            t0 = time.perf_counter()
            QTest.mouseClick(win.answer.viewport(), Qt.MouseButton.LeftButton,
                             Qt.KeyboardModifier.NoModifier, pos)
            handled.append(time.perf_counter() - t0)
            wait_until(shown.done, 10)
            assert shown.at is not None
            clicks.append(shown.at - t0)
            assert shown.returned is not None
            returned.append(shown.returned - t0)
        out["clicks"] = clicks
        out["clicks_returned"] = returned
        out["handled"] = handled
        keys = []
        actions = win.review.verdict_actions
        for k in range(20):
            win.navigator.activate_citation(rnd.randrange(n))
            app.processEvents()
            t0 = time.perf_counter()
            actions[k % 2].trigger()
            app.processEvents()
            keys.append(time.perf_counter() - t0)
        out["keys"] = keys
    win.close()
    return out


def child_chips(side: str, data: Path) -> dict[str, Any]:
    _app()
    case = json.loads((data / "bigmany.case.json").read_text(encoding="utf-8"))
    answer = case["answer"]
    if side == "base":
        import re

        from PySide6.QtWidgets import QTextBrowser

        counter = iter(range(1, 10 ** 9))
        md = re.sub(f"{S}[^{E}]*{E}", lambda m: f"[{next(counter)}](cite:{0})", answer)
        view = QTextBrowser()
        view.resize(640, 700)
        view.show()
        view.setMarkdown("*warm* [1](cite:0)")  # (first use: as the window's start-up does)
        spin(0.2)
        t0 = time.perf_counter()
        view.setMarkdown(md)
        view.viewport().repaint()
        return {"render": time.perf_counter() - t0}
    from citeview.core.cases import Case
    from citeview.gui.answer_view import AnswerView
    from citeview.gui.case_loader import answer_first

    view = AnswerView()
    view.resize(640, 700)
    view.show()
    # First use (the parser made, patterns compiled): the window does it at start-up.
    answer_first(Case("warm", f"*warm*{marker(SID, 'L1')}"), False, view.font().toString())
    spin(0.2)
    t0 = time.perf_counter()
    # What the window draws first: the marker parse, the rendered answer, its document.
    first = answer_first(Case("bench", answer), False, view.font().toString())
    view.set_prepared(first.prepared, [])
    view.viewport().repaint()
    return {"render": time.perf_counter() - t0}


def child_dataset(side: str, data: Path, steps: int) -> dict[str, Any]:
    app = _app()
    out: dict[str, Any] = {}
    if side == "base":
        from PySide6.QtWidgets import QPlainTextEdit, QTextBrowser

        answer = QTextBrowser()
        answer.resize(640, 700)
        source = QPlainTextEdit()
        source.resize(640, 700)
        answer.show()
        source.show()
        spin(0.2)
        shown = (PaintWatch(answer.viewport(), lambda: True, frame_end=True),
                 PaintWatch(source.viewport(), lambda: True, frame_end=True))

        def show(line: bytes) -> None:
            case = json.loads(line)
            for w in shown:
                w.arm(lambda: True)
            answer.setMarkdown(case["answer"])
            source.setPlainText(case["tool_outputs"][0])
            wait_until(lambda: all_done(*shown), 10)

        t0 = time.perf_counter()
        with open(data / "dataset.jsonl", "rb") as fh:
            whole = fh.read()  # the input read, then its first case parsed and shown
        show(whole[:whole.index(b"\n")])
        out["first"] = time.perf_counter() - t0
        with open(data / "dataset.jsonl", "rb") as fh:
            lines = [fh.readline() for _ in range(2 * steps + 2)]
        nexts, returned = [], []
        for k in range(2 * steps):
            spin(0.02)
            t0 = time.perf_counter()
            show(lines[k + 1])
            nexts.append(max(w.at or t0 for w in shown) - t0)
            returned.append(max(w.returned or t0 for w in shown) - t0)
        out["next"], out["next_returned"] = nexts[:steps], returned[:steps]
        out["done"], out["done_returned"] = nexts[steps:], returned[steps:]
        return out

    folder = Path(tempfile.mkdtemp(prefix="bench-gui-"))
    path = fresh_copy(data / "dataset.jsonl")
    win = make_window(folder)
    spin(1.0)  # a running window: its start-up work done
    ready = {"n": 0}
    win.loader.viewReady.connect(lambda: ready.__setitem__("n", ready["n"] + 1))
    t0 = time.perf_counter()
    win.open_path(str(path))
    wait_until(lambda: ready["n"] >= 1)
    app.processEvents()
    out["first"] = time.perf_counter() - t0
    settle(app, win, 0.5)

    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    win.activateWindow()  # the keys are window shortcuts
    wait_until(win.isActiveWindow, 10)
    answer_painted = PaintWatch(win.answer.viewport(), lambda: False, frame_end=True)
    source_painted = PaintWatch(win.source.text_view().viewport(), lambda: False,
                                frame_end=True)
    ctrl = Qt.KeyboardModifier.ControlModifier

    def step(key: Any) -> tuple[float, float, float]:
        """A real key press until the next case's answer and source are painted (its first
        citation's span inside the source viewport); and until the view was ready."""
        assert win.view is not None
        before = win.view.case.id

        def new_case() -> bool:
            return win.view is not None and win.view.case.id != before
        answer_painted.arm(lambda: new_case() and win.answer.chip_count() > 0)
        source_painted.arm(lambda: new_case() and win.source.span_in_view() is True)
        n = ready["n"]
        t0 = time.perf_counter()
        QTest.keyClick(win, key, ctrl)
        wait_until(lambda: ready["n"] > n)
        t1 = time.perf_counter()
        wait_until(lambda: all_done(answer_painted, source_painted))
        assert answer_painted.at is not None and source_painted.at is not None
        assert answer_painted.returned is not None and source_painted.returned is not None
        return (max(answer_painted.at, source_painted.at) - t0, t1 - t0,
                max(answer_painted.returned, source_painted.returned) - t0)

    out["next"], out["next_ready"], out["next_returned"] = [], [], []
    for _ in range(steps):
        spin(0.05)
        on_screen, ready_at, back = step(Qt.Key.Key_PageDown)
        out["next"].append(on_screen)
        out["next_ready"].append(ready_at)
        out["next_returned"].append(back)
    # Ctrl+Enter on a case with unjudged citations: the first press moves to them (it stays in
    # the case), the second marks the case done anyway and opens the next one. Each press is a
    # key the reviewer waits on: both are timed, each on its own.
    out["done"], out["done_ready"], out["done_returned"], out["confirm"] = [], [], [], []
    for _ in range(steps):
        spin(0.05)
        stays = win.view.case.id if win.view is not None else None
        t0 = time.perf_counter()
        QTest.keyClick(win, Qt.Key.Key_Return, ctrl)
        app.processEvents()
        out["confirm"].append(time.perf_counter() - t0)
        assert win.view is not None and win.view.case.id == stays
        spin(0.05)
        on_screen, ready_at, back = step(Qt.Key.Key_Return)
        out["done"].append(on_screen)
        out["done_ready"].append(ready_at)
        out["done_returned"].append(back)
    win.close()
    return out


def child_nested(side: str, data: Path, n: int) -> dict[str, Any]:
    _app()
    path = data / f"nested{n}.case.json"
    if side == "base":
        from PySide6.QtWidgets import QTextBrowser

        answer = json.loads(path.read_text(encoding="utf-8"))["answer"]
        view = QTextBrowser()
        view.resize(640, 700)
        view.show()
        spin(0.2)
        t0 = time.perf_counter()
        view.setMarkdown(answer)
        view.viewport().repaint()
        return {"show": time.perf_counter() - t0}
    folder = Path(tempfile.mkdtemp(prefix="bench-gui-"))
    path = fresh_copy(path)
    win = make_window(folder)
    spin(1.0)  # a running window: its start-up work done
    watch = PaintWatch(win.answer.viewport(), lambda: win.view is not None)
    t0 = time.perf_counter()
    win.open_path(str(path))
    wait_until(watch.done)
    out = {"show": watch.at - t0}  # type: ignore[operator]
    win.close()
    return out


def child_parse_base(data: Path) -> dict[str, Any]:
    from citeview.core.markers import extract_citations

    t0 = time.perf_counter()
    text = (data / "parse.txt").read_text(encoding="utf-8")
    out = json.dumps([c.to_dict() for c in extract_citations(text)], ensure_ascii=False)
    sys.stdout.flush()
    return {"time": time.perf_counter() - t0, "chars": len(out)}


def child_lint_base(data: Path) -> dict[str, Any]:
    from citeview.core.markers import extract_citations

    case = json.loads((data / "lint.case.json").read_text(encoding="utf-8"))
    found = extract_citations(case["answer"])
    return {"rss": rss_mb(), "citations": len(found)}


def child_main(args: argparse.Namespace) -> int:
    data = Path(args.data)
    kind, side = args.child, args.side
    if kind in ("open", "interact"):
        out = child_open(side, data, args.name, kind == "interact")
    elif kind == "chips":
        out = child_chips(side, data)
    elif kind == "dataset":
        out = child_dataset(side, data, args.steps)
    elif kind == "nested":
        out = child_nested(side, data, args.n)
    elif kind == "parse":
        out = child_parse_base(data)
    elif kind == "lint":
        out = child_lint_base(data)
    else:
        raise SystemExit(f"unknown child {kind}")
    print(json.dumps(out))
    sys.stdout.flush()
    os._exit(0)  # no teardown of Qt objects: nothing measured there


# --------------------------------------------------------------------------- parent


def run_child(argv: list[str]) -> tuple[dict[str, Any], float, float]:
    """(JSON the child printed, wall seconds, peak RSS MB) of a child process."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(HERE.parent))
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env,
                                cwd=str(HERE.parent))
        assert proc.stdout is not None
        stdout = proc.stdout.read()
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"failed: {' '.join(argv)}\n{err.read().decode(errors='replace')}")
    lines = stdout.decode(errors="replace").strip().splitlines()
    try:
        result = json.loads(lines[-1]) if lines else {}
    except json.JSONDecodeError:
        result = {}
    return result, wall, usage.ru_maxrss / 1024


def run_measured(argv: list[str], stdout_path: str = os.devnull) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of a command whose output goes to ``stdout_path``."""
    env = dict(os.environ, PYTHONPATH=str(HERE.parent))
    with open(stdout_path, "wb") as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE, env=env,
                                cwd=str(HERE.parent))
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if code not in (0, 1):
        raise SystemExit(f"failed ({code}): {' '.join(argv)}\n{err}")
    return wall, usage.ru_maxrss / 1024


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str]] = []

    def add(self, work: str, ours: str, base: str, ratio: str, target: str) -> None:
        self.rows.append((work, ours, base, ratio, target))
        print(f"  {work}: ours {ours}, baseline {base}, ratio {ratio} (target {target})",
              flush=True)

    def print(self) -> None:
        head = ("work", "ours", "bare-Qt baseline", "ratio", "target")
        widths = [max(len(r[i]) for r in [*self.rows, head]) for i in range(5)]
        line = "  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))
        print("\n" + line + "\n" + "-" * len(line))
        for r in self.rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller inputs, 3 runs")
    ap.add_argument("--runs", type=int, default=None, help="runs per figure (default 5)")
    ap.add_argument("--only", default="",
                    help="comma-separated: open,interact,chips,dataset,nested,parse,lint")
    ap.add_argument("--data", help="reuse (or make) the inputs in this folder")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--side", default="ours", help=argparse.SUPPRESS)
    ap.add_argument("--name", default="big10", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--steps", type=int, default=20, help=argparse.SUPPRESS)
    ap.add_argument("--make", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.make:
        make_inputs(Path(args.data), args.quick)
        return 0
    if args.child:
        return child_main(args)

    runs = args.runs or (3 if args.quick else 5)
    only = set(filter(None, args.only.split(","))) or {
        "open", "interact", "chips", "dataset", "nested", "parse", "lint"}
    tmp = None
    if args.data:
        data = Path(args.data)
    else:
        tmp = tempfile.mkdtemp(prefix="bench-gui-data-")
        data = Path(tmp)
    try:
        if not (data / "dataset.jsonl").exists():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, __file__, "--make", "--data", str(data)]
                           + (["--quick"] if args.quick else []), check=True)
            print(f"inputs made in {time.perf_counter() - t0:.1f} s ({data})", flush=True)
        return measure(data, runs, only, args.quick)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def measure(data: Path, runs: int, only: set[str], quick: bool) -> int:
    me = [sys.executable, __file__, "--data", str(data)]
    n_lines = "50,000" if quick else "200,000"
    n_many = "2,500" if quick else "10,000"
    n_cases = "2,000" if quick else "10,000"
    table = Table()
    print(f"bench_gui: {runs} runs per figure{' (quick)' if quick else ''}; "
          f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs", flush=True)

    def pair(argv: list[str], r: int) -> tuple[dict[str, Any], dict[str, Any]]:
        sides = ("base", "ours") if r % 2 == 0 else ("ours", "base")
        got = {s: run_child([*argv, "--side", s])[0] for s in sides}
        return got["ours"], got["base"]

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}x" if b > 0 else "-"

    opened: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {}

    def open_runs(name: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        if name not in opened:
            opened[name] = [pair([*me, "--child", "open", "--name", name], r)
                            for r in range(runs)]
        return opened[name]

    def med(got: list[tuple[dict[str, Any], dict[str, Any]]], side: int, key: str) -> float:
        return float(statistics.median(x[side][key] for x in got))

    if "open" in only:
        for name, label in (("big10", "10 citations"), ("bigmany", f"{n_many} citations")):
            res = open_runs(name)
            o, b = med(res, 0, "paint"), med(res, 1, "paint")
            table.add(f"open {n_lines}-line case, {label}, until the source is painted",
                      ms(o), ms(b), ratio(o, b), "<= 1.5x")
            if name == "big10":
                o = med(res, 0, "highlight")
                table.add(f"{n_lines}-line source: first highlight painted in view (from the "
                          "open request)", ms(o), f"setPlainText until painted: {ms(b)}",
                          ratio(o, b), "<= 1.2x")
            og, bg = med(res, 0, "gap"), med(res, 1, "gap")
            table.add(f"longest gap between 10 ms ticks opening it ({label})", ms(og), ms(bg),
                      f"{1000 * (og - bg):+.0f} ms", "<= baseline + 100 ms")
            if name == "big10":
                om, bm = med(res, 0, "rss"), med(res, 1, "rss")
                table.add(f"peak memory, {n_lines}-line case", f"{om:.0f} MB", f"{bm:.0f} MB",
                          ratio(om, bm), "<= 2x")
    if "interact" in only:
        res = [pair([*me, "--child", "interact", "--name", "bigmany"], r) for r in range(runs)]
        oc = [t for x in res for t in x[0]["clicks"]]
        bc = [t for x in res for t in x[1]["clicks"]]
        table.add(f"click a citation ({n_many}-citation case), mouse click until the span is "
                  "painted in view, median / max",
                  f"{ms(statistics.median(oc))} / {ms(max(oc))}",
                  f"ExtraSelection + centerCursor + paint: {ms(statistics.median(bc))} / "
                  f"{ms(max(bc))}",
                  ratio(statistics.median(oc), statistics.median(bc)),
                  "median < 8 ms, max < 33 ms")
        orr = [t for x in res for t in x[0]["clicks_returned"]]
        br = [t for x in res for t in x[1]["clicks_returned"]]
        table.add("  breakdown: until control is back from the event loop (the work queued "
                  "behind the paint too)", f"{ms(statistics.median(orr))} / {ms(max(orr))}",
                  f"{ms(statistics.median(br))} / {ms(max(br))}",
                  ratio(statistics.median(orr), statistics.median(br)), "-")
        oh = [t for x in res for t in x[0]["handled"]]
        table.add("  breakdown: the click event handled (highlight, scroll, tables; no paint)",
                  f"{ms(statistics.median(oh))} / {ms(max(oh))}", "-", "-", "-")
        keys = [t for x in res for t in x[0]["keys"]]
        table.add("verdict key in that case, median / max",
                  f"{ms(statistics.median(keys))} / {ms(max(keys))}", "-", "-",
                  "median < 16 ms, max < 50 ms")
    if "chips" in only:
        # The window's open request, its drawing alone and the baseline, one after the other
        # in each run (their order turning), so each figure is taken beside its baseline.
        kinds = {"open": [*me, "--child", "open", "--name", "bigmany", "--side", "ours"],
                 "draw": [*me, "--child", "chips", "--side", "ours"],
                 "base": [*me, "--child", "chips", "--side", "base"]}
        got: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
        for r in range(runs):
            order = list(kinds)
            for k in order[r % 3:] + order[:r % 3]:
                got[k].append(run_child(kinds[k])[0])
        o = statistics.median(x["answer"] for x in got["open"])
        b = statistics.median(x["render"] for x in got["base"])
        table.add(f"answer with {n_many} chips ({n_lines}-line source), open request until "
                  "painted", ms(o), f"setMarkdown until painted: {ms(b)}", ratio(o, b),
                  "<= 1.5x")
        oi = statistics.median(x["render"] for x in got["draw"])
        table.add(f"  breakdown: the answer drawn first (marker parse, render, document, paint; "
                  f"{n_many} chips)", ms(oi),
                  ms(b), ratio(oi, b), "-")
    if "dataset" in only:
        res = [pair([*me, "--child", "dataset", "--steps", "10" if quick else "20"], r)
               for r in range(runs)]
        o = statistics.median(x[0]["first"] for x in res)
        b = statistics.median(x[1]["first"] for x in res)
        table.add(f"open a {n_cases}-case JSONL until the first case shows", ms(o), ms(b),
                  ratio(o, b), "<= 2x")
        for key, label in (("next", "Ctrl+PgDown"), ("done", "Ctrl+Enter")):
            ov = [t for x in res for t in x[0][key]]
            bv = [t for x in res for t in x[1][key]]
            table.add(f"next case ({label}), key press until the new case is painted, "
                      "median / max",
                      f"{ms(statistics.median(ov))} / {ms(max(ov))}",
                      f"setMarkdown + setPlainText + paint: {ms(statistics.median(bv))} / "
                      f"{ms(max(bv))}",
                      ratio(statistics.median(ov), statistics.median(bv)),
                      "median < 12 ms, max < 33 ms")
            orr = [t for x in res for t in x[0][f"{key}_returned"]]
            br = [t for x in res for t in x[1][f"{key}_returned"]]
            table.add(f"  breakdown: {label} until control is back from the event loop (the "
                      "work queued behind the paint too)",
                      f"{ms(statistics.median(orr))} / {ms(max(orr))}",
                      f"{ms(statistics.median(br))} / {ms(max(br))}",
                      ratio(statistics.median(orr), statistics.median(br)), "-")
            rv = [t for x in res for t in x[0][f"{key}_ready"]]
            table.add(f"  breakdown: {label} until the view is ready (not painted)",
                      f"{ms(statistics.median(rv))} / {ms(max(rv))}", "-", "-", "-")
        cv = [t for x in res for t in x[0]["confirm"]]
        table.add("Ctrl+Enter's first press on a case with unjudged citations (moves to them), "
                  "median / max", f"{ms(statistics.median(cv))} / {ms(max(cv))}", "-", "",
                  "median < 16 ms, max < 50 ms")
    if "nested" in only:
        for n in nested_sizes(quick):
            res = [pair([*me, "--child", "nested", "--n", str(n)], r) for r in range(runs)]
            o = statistics.median(x[0]["show"] for x in res)
            b = statistics.median(x[1]["show"] for x in res)
            table.add(f"answer '*' * n + 'x' + '*' * n until it shows, n={n}", ms(o), ms(b),
                      ratio(o, b), "linear, < 1 s at n=40k")
    if "parse" in only:
        size = (data / "parse.txt").stat().st_size / (1 << 20)
        ours, base = [], []
        for r in range(runs):
            for side in (("base", "ours") if r % 2 == 0 else ("ours", "base")):
                if side == "ours":
                    ours.append(run_measured([sys.executable, "-m", "citeview", "parse",
                                              str(data / "parse.txt")])[0])
                else:
                    base.append(run_child([*me, "--child", "parse"])[1])
        o, b = statistics.median(ours), statistics.median(base)
        table.add(f"citeview parse, {size:.0f} MB answer, one marker per 80 bytes",
                  f"{ms(o)} ({size / o:.0f} MB/s)", ms(b), ratio(o, b), ">= 20 MB/s, <= 2x")
    if "lint" in only:
        size = (data / "lint.case.json").stat().st_size / (1 << 20)
        ours, base = [], []
        for r in range(runs):
            for side in (("base", "ours") if r % 2 == 0 else ("ours", "base")):
                if side == "ours":
                    ours.append(run_measured([sys.executable, "-m", "citeview", "lint",
                                              "--format", "json",
                                              str(data / "lint.case.json")])[1])
                else:
                    base.append(run_child([*me, "--child", "lint"])[2])
        o, b = statistics.median(ours), statistics.median(base)
        table.add(f"citeview lint peak memory, {size:.0f} MB answer", f"{o:.0f} MB",
                  f"{b:.0f} MB", ratio(o, b), "<= 2x")
    table.print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

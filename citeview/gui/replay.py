"""Stream Replay (View menu): the shown case's answer replayed as a stream, chunk by chunk.

Left, citeview's rendering: after each chunk, the released prefix (:mod:`citeview.core.replay`:
an open marker is held back) rendered by the answer pane's own path (:func:`render_prefix`:
``analyse`` with the stream's scan, ``build_case_view``, ``render_answer``,
``prepare_document``), so a chip appears when its marker completes and part of a marker never
shows. Right, a naive renderer: everything received, as Markdown, markers as plain text (their
private-use characters made visible, ``⟦cite|turn0file0|L8⟧``): the leak a chat UI without
marker handling shows. Below, the incremental scan's diagnostics (final, provisional), then at
the end the lint findings too. The final frame is the answer pane's view (chips with lint).

The answer is untrusted model text: both sides go through ``render_answer`` (escaped, never
live HTML) into documents that load nothing
(:func:`~citeview.gui.answer_document.prepare_document`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QBrush, QColor, QFont, QHideEvent, QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QSplitter,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from citeview.core.analysis import DEFAULT_POLICY, analyse
from citeview.core.cases import Case
from citeview.core.diagnostics import Diagnostic, Severity
from citeview.core.markers import ScanResult
from citeview.core.material import Material, case_material
from citeview.core.policy import Policy
from citeview.core.providers import PAYLOAD_KEYS
from citeview.core.replay import (
    Chunker,
    RecordedFrame,
    RecordedReplay,
    ReplayFrame,
    StreamReplay,
    recorded_events,
)
from citeview.core.streaming import DEFAULT_HOLD_LIMIT
from citeview.gui import message
from citeview.gui.answer_document import PreparedDocument, prepare_document
from citeview.gui.answer_render import render_answer
from citeview.gui.answer_view import AnswerView
from citeview.gui.dialogs import fit_to_screen
from citeview.gui.palette import color_roles
from citeview.gui.state import CaseView, build_case_view
from citeview.gui.untrusted import safe_title
from citeview.lexers import VISIBLE_START, VISIBLE_STOP

if TYPE_CHECKING:
    from citeview.gui.window_state import WindowState

LEAK_OPEN, LEAK_CLOSE = VISIBLE_START, VISIBLE_STOP  # how render_answer shows stray markers


def replay_case(case: Case) -> Case:
    """``case`` as the replay streams it: without a provider's payload (its citations have no
    marker to stream; their positions would fall past a prefix)."""
    if not any(k in case.extra for k in PAYLOAD_KEYS):
        return case
    return replace(case, extra={k: v for k, v in case.extra.items() if k not in PAYLOAD_KEYS})


def render_prefix(case: Case, length: int, policy: Policy | None = None, *,
                  scanned: ScanResult | None = None, final: bool = False,
                  material: Material | None = None, dark: bool = False,
                  font: QFont | str | None = None) -> tuple[CaseView, PreparedDocument]:
    """The answer pane's rendering of ``case.answer[:length]`` as an answer of its own: analysed
    (``scanned``: the prefix's scan from the stream; None: scanned now, the static way), chips
    as the window makes them (with lint when ``final``: the window adds lint to a shown case),
    HTML by ``render_answer``, a document by ``prepare_document``."""
    prefix = replace(case, answer=case.answer[:length])
    analysed = analyse(prefix, policy, material=material, scanned=scanned)
    view = build_case_view(prefix, with_lint=final, render=False, analysed=analysed)
    # Rendered after lint (build_case_view renders before it; the window restyles the chips).
    body = render_answer(prefix.answer, [(c.citation.start, c.citation.end)
                                         for c in view.citations], view.chips(), dark)
    return view, prepare_document(body, dark, font if font is not None else QFont())


def static_text(case: Case, length: int, policy: Policy | None = None, *,
                final: bool = False) -> str:
    """What the streaming side must show once ``length`` characters are released: the plain
    text of the static rendering of that prefix (``final``: of the whole answer, with lint)."""
    view_doc = render_prefix(replay_case(case), length, policy, final=final)[1]
    return view_doc.document.toPlainText()


class QtStreamReplay(QDialog):
    """A non-modal dialog replaying one case's answer as a stream. Keys: P play/pause, S one
    step (one chunk), R restart; Alt+D speed, Alt+C chunk size, Alt+N random sizes."""

    def __init__(self, case: Case, policy: Policy | None = None, dark: bool = False,
                 parent: QWidget | None = None, *, hold_limit: int = DEFAULT_HOLD_LIMIT) -> None:
        super().__init__(parent)
        self.setModal(False)
        self._dark = dark
        self._hold_limit = hold_limit
        self._timer = QTimer(self)
        self._timer.timeout.connect(self._tick)
        self._shown: tuple[int, bool] | None = None  # (released, finished) rendered
        self._naive_shown = -1
        self.recorded: RecordedReplay | None = None  # set by set_case for a recorded stream
        self._build()
        fit_to_screen(self, 1120, 720)
        self.set_case(case, policy)

    # -- layout ------------------------------------------------------------------------------

    def _build(self) -> None:
        lay = QVBoxLayout(self)
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.status)

        split = QSplitter(Qt.Orientation.Horizontal)
        self._side_labels: list[QLabel] = []
        self.rendered = AnswerView()
        self.naive = AnswerView()
        for view, title in (
                (self.rendered, "citeview: a chip once its marker is complete"),
                (self.naive, "Naive renderer: markers leak as they stream")):
            view.set_dark(self._dark)
            view.setAccessibleName(title)
            box = QWidget()
            box_lay = QVBoxLayout(box)
            box_lay.setContentsMargins(0, 0, 0, 0)
            label = QLabel(title)
            label.setTextFormat(Qt.TextFormat.PlainText)
            self._side_labels.append(label)
            box_lay.addWidget(label)
            box_lay.addWidget(view, 1)
            split.addWidget(box)
        lay.addWidget(split, 1)

        label = QLabel("Diagnostics of the incremental scan (provisional ones may still change):")
        label.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(label)
        self.diagnostics = QListWidget()
        self.diagnostics.setAccessibleName("Diagnostics")
        self.diagnostics.setMaximumHeight(150)
        self.diagnostics.setWordWrap(True)  # a message is one sentence or two: read it whole
        self.diagnostics.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.diagnostics.setResizeMode(QListWidget.ResizeMode.Adjust)
        lay.addWidget(self.diagnostics)

        row = QHBoxLayout()
        self.play_button = QPushButton("&Play")
        self.play_button.setToolTip("Play or pause (P)")
        self.play_button.clicked.connect(self.toggle_play)
        self.step_button = QPushButton("&Step")
        self.step_button.setToolTip("Feed one chunk (S)")
        self.step_button.clicked.connect(lambda: self.step())
        self.restart_button = QPushButton("&Restart")
        self.restart_button.setToolTip("Start the stream over (R)")
        self.restart_button.clicked.connect(self.restart)
        for b in (self.play_button, self.step_button, self.restart_button):
            b.setAutoDefault(False)
            row.addWidget(b)
        row.addSpacing(16)
        self.speed = QSpinBox()
        self.speed.setRange(1, 60)
        self.speed.setValue(8)
        self.speed.setSuffix(" chunks/s")
        self.speed.valueChanged.connect(self.set_speed)
        self.chunk = QSpinBox()
        self.chunk.setRange(1, 4096)
        self.chunk.setValue(6)
        self.chunk.setSuffix(" chars")
        self.chunk.valueChanged.connect(self._chunking_changed)
        self.random = QCheckBox("Ra&ndom sizes")
        self.random.setToolTip("Chunks of 1 to 2 \u00d7 size \u2212 1 characters")
        self.random.setChecked(True)
        self.random.toggled.connect(self._chunking_changed)
        # A recorded stream plays at its own timing, faster or slower by this factor.
        self.factor = QDoubleSpinBox()
        self.factor.setRange(0.1, 20.0)
        self.factor.setSingleStep(0.5)
        self.factor.setValue(1.0)
        self.factor.setSuffix(" \u00d7 recorded time")
        self.factor.valueChanged.connect(lambda _v: self._time_next())
        self._factor_label = QLabel("&Factor:")
        self._factor_label.setBuddy(self.factor)
        for text, spin in (("Spee&d:", self.speed), ("&Chunk:", self.chunk)):
            label = QLabel(text)
            label.setBuddy(spin)
            row.addWidget(label)
            row.addWidget(spin)
        row.addWidget(self._factor_label)
        row.addWidget(self.factor)
        row.addWidget(self.random)
        row.addStretch(1)
        close = QPushButton("Close")
        close.setAutoDefault(False)
        close.clicked.connect(self.close)
        row.addWidget(close)
        lay.addLayout(row)
        for key, slot in (("P", self.toggle_play), ("S", self.step), ("R", self.restart)):
            QShortcut(QKeySequence(key), self, activated=slot)  # type: ignore[call-overload]
        self.play_button.setFocus()

    # -- the stream ----------------------------------------------------------------------------

    def set_case(self, case: Case, policy: Policy | None = None) -> None:
        """Replay ``case`` (analysed under ``policy``, the window's) from the beginning."""
        self.pause()
        # A case read from a stream log replays its own events (replay_case drops them).
        self.recorded = RecordedReplay(case) if recorded_events(case) else None
        for w in (self.chunk, self.random):
            w.setEnabled(self.recorded is None)
        for w2 in (self.factor, self._factor_label):
            w2.setVisible(self.recorded is not None)
        titles = (("citeview: the response so far, a chip once its citation event has arrived",
                   "The events received, in arrival order") if self.recorded is not None else
                  ("citeview: a chip once its marker is complete",
                   "Naive renderer: markers leak as they stream"))
        for label, title in zip(self._side_labels, titles, strict=True):
            label.setText(title)
        self._case = replay_case(case)
        self._policy = policy if policy is not None else DEFAULT_POLICY
        self._material = case_material(self._case)
        self.stream = StreamReplay(self._case.answer, self._policy.families, self._material.ids(),
                                   hold_limit=self._hold_limit,
                                   chunker=Chunker(self.chunk.value(), self.random.isChecked(),
                                                   seed=None))
        kind = " (recorded stream)" if self.recorded is not None else ""
        self.setWindowTitle(f"Stream replay \u2014 {safe_title(case.id)}{kind}")
        self.restart()

    @property
    def case(self) -> Case:
        return self._case

    @property
    def frame(self) -> ReplayFrame | RecordedFrame:
        return self.recorded.frame if self.recorded is not None else self.stream.frame

    def restart(self) -> None:
        self.stream.restart()
        self._shown = None
        self._naive_shown = -1
        if self.recorded is not None:
            self.recorded.restart()
            self._show_recorded(self.recorded.frame)
        else:
            self._show(self.stream.frame)

    def step(self, size: int | None = None) -> ReplayFrame | RecordedFrame:
        """Feed one chunk (``size`` characters, default the chosen chunking) and show it; a
        recorded stream takes its next event instead."""
        if self.recorded is not None:
            rframe = self.recorded.step()
            self._show_recorded(rframe)
            if rframe.finished:
                self.pause()
            elif self.playing():
                self._time_next()
            return rframe
        frame = self.stream.step(size)
        self._show(frame)
        if frame.finished:
            self.pause()
        return frame

    def _tick(self) -> None:
        if self.recorded is not None:
            if self.recorded.done:
                self.pause()
            else:
                self.step()
        elif self.stream.done:
            self.pause()
        else:
            self.step()

    def playing(self) -> bool:
        return self._timer.isActive()

    def play(self) -> None:
        if self.recorded.done if self.recorded is not None else self.stream.done:
            self.restart()
        self.set_speed(self.speed.value())
        self._timer.start()
        self._time_next()
        self.play_button.setText("&Pause")

    def pause(self) -> None:
        self._timer.stop()
        self.play_button.setText("&Play")

    def toggle_play(self) -> None:
        if self.playing():
            self.pause()
        else:
            self.play()

    def set_speed(self, chunks_per_second: int) -> None:
        self._timer.setInterval(max(1, round(1000 / max(1, chunks_per_second))))
        if self.speed.value() != chunks_per_second:
            self.speed.setValue(chunks_per_second)
        self._time_next()

    def _time_next(self) -> None:
        """A recorded stream with times waits as the log did (divided by the factor) before its
        next event; without times, it plays at the chosen events per second."""
        if self.recorded is None:
            return
        delay = self.recorded.delay(self.factor.value())
        if delay is not None:
            self._timer.setInterval(max(1, round(delay * 1000)))

    def _chunking_changed(self) -> None:
        self.stream.chunker.size = self.chunk.value()
        self.stream.chunker.randomised = self.random.isChecked()

    def hideEvent(self, ev: QHideEvent) -> None:  # noqa: N802
        self.pause()  # nothing streams out of sight
        super().hideEvent(ev)

    # -- showing a frame -----------------------------------------------------------------------

    def _show(self, frame: ReplayFrame) -> None:
        # Only a new released prefix (or the end: lint) changes the rendering: one render per
        # change, however small the chunks.
        view: CaseView | None = None
        if self._shown != (frame.released, frame.finished):
            view, prepared = render_prefix(self._case, frame.released, self._policy,
                                           scanned=frame.scan, final=frame.finished,
                                           material=self._material, dark=self._dark,
                                           font=self.rendered.font())
            self.rendered.set_prepared(prepared, [])
            _scroll_to_end(self.rendered)
            self._shown = (frame.released, frame.finished)
        if self._naive_shown != frame.received:
            body = render_answer(self._case.answer[:frame.received], [], [], self._dark)
            self.naive.set_prepared(prepare_document(body, self._dark, self.naive.font()), [])
            self._mark_leaks()
            _scroll_to_end(self.naive)
            self._naive_shown = frame.received
        self._show_diagnostics(frame, view)
        self._show_status(frame)

    def _show_recorded(self, frame: RecordedFrame) -> None:
        """A recorded stream's step: the case of the response so far as the answer pane shows
        it (its provider citations as chips), and on the other side the events received."""
        view, prepared = render_prefix(frame.case, len(frame.case.answer), self._policy,
                                       final=frame.finished, dark=self._dark,
                                       font=self.rendered.font())
        self.rendered.set_prepared(prepared, [])
        _scroll_to_end(self.rendered)
        assert self.recorded is not None
        # The last 200 events received (not all of them formatted at every step of a long log).
        lines = [f"{e.number} {e.type} {_delta_type(e.data)}".rstrip()
                 + (f"  t={e.time:g}s" if e.time is not None else "")
                 for e in self.recorded.events[max(0, frame.step - 200):frame.step]]
        body = render_answer("\n\n".join(lines), [], [], self._dark)
        self.naive.set_prepared(prepare_document(body, self._dark, self.naive.font()), [])
        _scroll_to_end(self.naive)
        self.diagnostics.clear()
        for d in view.diagnostics if frame.finished else []:
            self.diagnostics.addItem(QListWidgetItem(
                f"{d.code} {d.severity.value} at {d.start}: {d.name} \u2014 {d.message}"))
        if not self.diagnostics.count():
            self.diagnostics.addItem(QListWidgetItem("(none so far)" if not frame.finished
                                                     else "(none)"))
        event = frame.event.type if frame.event is not None else "nothing received yet"
        parts = [f"Event {frame.step} of {frame.total}: {event}",
                 f"{frame.citations} provider citation{'s' if frame.citations != 1 else ''}",
                 f"{len(frame.case.answer)} characters"]
        if frame.finished:
            parts.append("finished: the final response, lint added")
        self.status.setText(" \u00b7 ".join(parts))

    def _mark_leaks(self) -> None:
        """Tint each marker the naive side shows as text (to its STOP, or the end if open)."""
        doc = self.naive.document()
        roles = color_roles(self.naive.palette())
        selections: list[QTextEdit.ExtraSelection] = []
        cursor = doc.find(LEAK_OPEN)
        while not cursor.isNull():
            end = doc.find(LEAK_CLOSE, cursor.selectionEnd())
            sel = QTextEdit.ExtraSelection()
            c = QTextCursor(doc)
            c.setPosition(cursor.selectionStart())
            if end.isNull():
                c.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
            else:
                c.setPosition(end.selectionEnd(), QTextCursor.MoveMode.KeepAnchor)
            sel.cursor = c
            sel.format.setBackground(QBrush(roles.problem_bg))
            sel.format.setForeground(QBrush(roles.problem))
            selections.append(sel)
            cursor = doc.find(LEAK_OPEN, c.selectionEnd())
        self.naive.setExtraSelections(selections)

    def _show_diagnostics(self, frame: ReplayFrame, view: CaseView | None) -> None:
        rows: list[tuple[Diagnostic, str]] = [(d, "") for d in frame.final_diagnostics]
        rows += [(d, "provisional") for d in frame.provisional_diagnostics]
        if frame.finished and view is not None:
            seen = {(d.code, d.start, d.end) for d in frame.final_diagnostics}
            rows += [(d, "lint") for d in view.diagnostics  # (the answer's: no material's)
                     if (d.code, d.start, d.end) not in seen]
        elif frame.finished:
            return  # the end already shown: lint stays listed
        self.diagnostics.clear()
        roles = color_roles(self.diagnostics.palette())
        colour = {Severity.ERROR: roles.problem, Severity.WARNING: roles.warning}
        for d, kind in rows:
            text = f"{d.code} {d.severity.value} at {d.start}: {d.name} \u2014 {d.message}"
            item = QListWidgetItem(f"{text}  ({kind})" if kind else text)
            item.setForeground(QBrush(colour.get(d.severity, roles.muted)))
            if kind == "provisional":
                font = item.font()
                font.setItalic(True)
                item.setFont(font)
            self.diagnostics.addItem(item)
        if not rows:
            item = QListWidgetItem("(none so far)" if not frame.finished else "(none)")
            item.setForeground(QBrush(QColor(roles.muted)))
            self.diagnostics.addItem(item)

    def _show_status(self, frame: ReplayFrame) -> None:
        total = len(self._case.answer)
        parts = [f"Chunk {frame.chunks}", f"received {frame.received} of {total} characters",
                 f"shown {frame.released}"]
        if frame.held:
            parts.append(f"holding an open marker ({frame.received - frame.released} "
                         f"characters, up to {self._hold_limit})")
        if frame.finished:
            parts.append("finished: the whole-text scan, lint added")
        self.status.setText(" \u00b7 ".join(parts))

    # -- read back (tests, snapshots) ---------------------------------------------------------

    def interval(self) -> int:
        """Milliseconds between two chunks while playing."""
        return self._timer.interval()

    def rendered_text(self) -> str:
        return self.rendered.document().toPlainText()

    def naive_text(self) -> str:
        return self.naive.document().toPlainText()

    def diagnostic_lines(self) -> list[str]:
        return [self.diagnostics.item(i).text() for i in range(self.diagnostics.count())]


def _delta_type(data: object) -> str:
    """The kind of a delta event (Anthropic's text_delta, citations_delta), else ""."""
    delta = data.get("delta") if isinstance(data, dict) else None
    kind = delta.get("type") if isinstance(delta, dict) else None
    return kind if isinstance(kind, str) else ""


def _scroll_to_end(view: AnswerView) -> None:
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())


def open_replay(state: WindowState, parent: QWidget, dark: bool,
                play: bool = True) -> QtStreamReplay | None:
    """View > Stream Replay: replay the shown case (in ``parent``'s replay dialog if open;
    ``dark``: the answer pane's look)."""
    view = state.view
    if view is None:
        message.info("Open a case to replay its answer")
        return None
    policy = view.analysed.policy if view.analysed is not None else None
    dlg = parent.findChild(QtStreamReplay)
    if dlg is None:
        dlg = QtStreamReplay(view.case, policy, dark, parent)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    else:
        dlg.set_case(view.case, policy)
    dlg.show()
    dlg.raise_()
    dlg.activateWindow()
    if play:
        dlg.play()
    return dlg


__all__ = ["QtStreamReplay", "open_replay", "render_prefix", "replay_case", "static_text"]

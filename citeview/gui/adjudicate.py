"""The adjudication view of a merged session: disagreements one by one, a final verdict each.

The disagreements come from :func:`citeview.session.merge.iter_disagreements`; a final verdict
is :func:`citeview.session.merge.adjudication_edit` pushed on the window's undo stack, so Ctrl+Z
in the window takes it back. The main window follows along (case and citation shown), so the
adjudicator reads the claim and the cited source while deciding. Keys: 1..9 final verdict (then
the next disagreement), 0 clears it, J/K next/previous.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from citeview.core.errors import InputError
from citeview.core.numbering import index_of
from citeview.gui.dialogs import fit_to_screen
from citeview.gui.tables import one_line
from citeview.gui.undo import push_edit
from citeview.session.merge import ADJUDICATED, Disagreement, adjudication_edit, iter_disagreements

if TYPE_CHECKING:
    from citeview.gui.review import ReviewController


class AdjudicationDialog(QDialog):
    def __init__(self, review: ReviewController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.review = review
        self.setWindowTitle("Adjudicate Disagreements")
        self.items: list[Disagreement] = []
        self.at = 0
        lay = QVBoxLayout(self)
        self.where = QLabel()
        self.where.setTextFormat(Qt.TextFormat.PlainText)
        lay.addWidget(self.where)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        lay.addWidget(self.text, 1)
        row = QHBoxLayout()
        self.buttons: list[QPushButton] = []
        labels = review.session.labels if review.session is not None else ()
        for k, label in enumerate(labels[:9], 1):
            b = QPushButton(f"{k} \u00b7 {label}")
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            b.clicked.connect(lambda _=False, v=label: self.decide(v))
            row.addWidget(b)
            self.buttons.append(b)
        clear = QPushButton("0 \u00b7 clear")
        clear.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        clear.clicked.connect(lambda: self.decide(None))
        row.addWidget(clear)
        lay.addLayout(row)
        nav = QHBoxLayout()
        for text, step in (("K \u00b7 previous", -1), ("J \u00b7 next", 1)):
            b = QPushButton(text)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            b.clicked.connect(lambda _=False, d=step: self.step_by(d))
            nav.addWidget(b)
        nav.addStretch(1)
        lay.addLayout(nav)
        fit_to_screen(self, 720, 360)
        self.reload()

    def reload(self) -> None:
        s = self.review.session
        self.items = list(iter_disagreements(s)) if s is not None else []
        self.at = min(self.at, max(len(self.items) - 1, 0))
        self.show_current()

    def current(self) -> Disagreement | None:
        return self.items[self.at] if 0 <= self.at < len(self.items) else None

    def show_current(self) -> None:
        d = self.current()
        pending = sum(1 for x in self.items if x.final is None or x.final.verdict is None)
        if d is None:
            self.where.setText("No disagreements: the annotators agree wherever both judged.")
            self.text.setPlainText("")
            return
        k = d.key
        self.where.setText(f"Disagreement {self.at + 1} of {len(self.items)} "
                           f"({pending} without a final verdict) \u00b7 case "
                           f"{one_line(k.case_id, 80)} \u00b7 citation {k.number} \u00b7 "
                           f"{k.source_id}")
        lines = [f"Claim: {one_line(d.claim, 300)}", ""]
        for name, ann in d.annotations.items():
            lines.append(f"{name}: {ann.verdict}")
            if ann.note:
                lines.append(f"    note: {one_line(ann.note, 300)}")
        lines.append("")
        final = d.final.verdict if d.final is not None else None
        lines.append(f"Final verdict: {final or '(none yet)'}")
        self.text.setPlainText("\n".join(lines))
        review = self.review
        dataset = review.state.dataset
        try:
            index = dataset.index_of(k.case_id) if dataset is not None else -1
        except KeyError:
            index = -1
        if index >= 0:
            if index != review.state.case_index:
                review.loader.show_case(index, citation=index_of(k.number))
            else:
                review.navigator.activate_citation(index_of(k.number))

    def step_by(self, step: int) -> None:
        if self.items:
            self.at = max(0, min(len(self.items) - 1, self.at + step))
            self.show_current()

    def decide(self, verdict: str | None) -> None:
        d, s = self.current(), self.review.session
        if d is None or s is None:
            return
        try:
            edit = adjudication_edit(s, d.key, verdict, adjudicator=self.review.annotator or None)
            push_edit(self.review.undo_stack, edit)
        except InputError as err:
            self.where.setText(one_line(str(err), 300))
            return
        self.items[self.at] = Disagreement(d.key, d.claim, d.annotations,
                                            s.annotation(d.key, ADJUDICATED))
        if verdict is not None and self.at + 1 < len(self.items):
            self.at += 1
        self.show_current()

    def keyPressEvent(self, ev: QKeyEvent) -> None:  # noqa: N802
        key = int(ev.key())
        one = int(Qt.Key.Key_1.value)
        labels = self.review.session.labels if self.review.session is not None else ()
        if ev.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            super().keyPressEvent(ev)
        elif one <= key < one + len(labels[:9]):
            self.decide(labels[key - one])
        elif key == int(Qt.Key.Key_0.value):
            self.decide(None)
        elif key in (int(Qt.Key.Key_J.value), int(Qt.Key.Key_Down.value)):
            self.step_by(1)
        elif key in (int(Qt.Key.Key_K.value), int(Qt.Key.Key_Up.value)):
            self.step_by(-1)
        else:
            super().keyPressEvent(ev)


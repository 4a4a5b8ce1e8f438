"""Find: the bar under the answer, looking in the answer, the source or every case.

Enter or F3 finds the next match (Shift+F3 the previous one), wrapping around, and the bar says
which match it is ("3 of 12") or "Not found"; "All cases" opens the next case whose answer or
question holds the text ("case 4: 2 of 7 cases"). Escape closes the bar, clears the match and
gives the keyboard back to the answer, so the next verdict key is a verdict again.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QKeySequence, QShortcut, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QToolButton,
    QWidget,
)

from citeview.core.datasets import Dataset
from citeview.core.errors import InputError

if TYPE_CHECKING:
    from citeview.gui.answer_view import AnswerView
    from citeview.gui.raw_answer_view import RawAnswerView
    from citeview.gui.source_view import QtSourceView
    from citeview.gui.window_state import WindowState


class FindScope(IntEnum):
    """Where the bar looks (the order of its scope box)."""

    ANSWER = 0  # the answer pane shown (rendered or raw)
    SOURCE = 1
    ALL_CASES = 2


_SCOPE_NAMES = {FindScope.ANSWER: "Answer", FindScope.SOURCE: "Source",
                 FindScope.ALL_CASES: "All cases"}


def find_case(dataset: Dataset, current: int, text: str, backward: bool = False) -> int | None:
    """The next case after ``current`` (before it, ``backward``; wrapping around) whose answer or
    question holds ``text`` (case-insensitive); unreadable cases are skipped."""
    n = len(dataset)
    needle = text.casefold()
    for step in range(1, n + 1):
        i = (current + (-step if backward else step)) % n
        try:
            case = dataset.get(i)
        except InputError:
            continue
        if needle in case.answer.casefold() or needle in (case.question or "").casefold():
            return i
    return None


class FindBar(QWidget):
    caseWanted = Signal(int)  # a case the text was found in (the case loader shows it)

    def __init__(self, state: WindowState, answer: AnswerView, raw: RawAnswerView,
                 source: QtSourceView, raw_shown: Callable[[], bool],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.answer, self.raw, self.source = answer, raw, source
        self.raw_shown = raw_shown  # the raw answer is the answer pane in front
        lay = QHBoxLayout(self)
        lay.setContentsMargins(6, 3, 6, 3)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("Find")
        self.edit.setClearButtonEnabled(True)
        self.edit.returnPressed.connect(lambda: self.find_next())
        self.scope = QComboBox()
        self.scope.addItems([_SCOPE_NAMES[s] for s in FindScope])
        prev_btn = QToolButton()
        prev_btn.setText("\u2191")
        prev_btn.setToolTip("Previous match (Shift+F3)")
        prev_btn.clicked.connect(lambda: self.find_next(backward=True))
        next_btn = QToolButton()
        next_btn.setText("\u2193")
        next_btn.setToolTip("Next match (F3)")
        next_btn.clicked.connect(lambda: self.find_next())
        close_btn = QToolButton()
        close_btn.setText("\u2715")
        close_btn.setToolTip("Close (Escape)")
        close_btn.clicked.connect(self.close_bar)
        escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        escape.activated.connect(self.close_bar)
        self.edit.textChanged.connect(lambda _t: self._forget_match())
        self.status = QLabel()
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        for w in (self.edit, self.scope, prev_btn, next_btn, self.status):
            lay.addWidget(w)
        lay.addStretch(1)
        lay.addWidget(close_btn)
        self.hide()

    def open(self, scope: FindScope | None = None) -> None:
        """Show the bar (looking in ``scope``) with its text selected for typing over."""
        if scope is not None:
            self.scope.setCurrentIndex(scope)
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()

    def keyPressEvent(self, ev: QKeyEvent) -> None:  # noqa: N802
        if ev.key() == Qt.Key.Key_Escape:
            self.close_bar()
            return
        super().keyPressEvent(ev)

    def close_bar(self) -> None:
        """Hide the bar, clear its match and give the keyboard back to the answer."""
        self._forget_match()
        self.hide()
        self.answer.setFocus()

    def _edits(self) -> list[QTextEdit | QPlainTextEdit]:
        return [self.answer, self.raw, self.source.text_view()]

    def _forget_match(self) -> None:
        """The match selected by the last find is no longer highlighted."""
        self.status.setText("")
        for edit in self._edits():
            c = edit.textCursor()
            if c.hasSelection():
                c.clearSelection()
                edit.setTextCursor(c)

    def find_next(self, backward: bool = False) -> bool:
        text = self.edit.text()
        if not text:
            return False
        scope = FindScope(self.scope.currentIndex())
        if scope is FindScope.ALL_CASES:
            return self._find_in_cases(text, backward)
        shown = self.raw if self.raw_shown() else self.answer
        edit = shown if scope is FindScope.ANSWER else self.source.text_view()
        found = shown.find_text(text, backward) \
            if scope is FindScope.ANSWER else self.source.find_text(text, backward)
        self.status.setText(match_count(edit, text) if found else "Not found")
        return found

    def _find_in_cases(self, text: str, backward: bool) -> bool:
        state = self.state
        if state.dataset is None:
            return False
        i = find_case(state.dataset, state.case_index, text, backward)
        if i is None:
            self.status.setText("Not found in any case")
            return False
        self.status.setText(f"case {i + 1} of {len(state.dataset)}")
        self.caseWanted.emit(i)
        return True


MAX_COUNTED = 999  # matches counted at most ("999+"): counting never stalls the window


def match_count(edit: QTextEdit | QPlainTextEdit, text: str) -> str:
    """"k of n": which match of ``text`` the selection of ``edit`` is (case-insensitive)."""
    doc: QTextDocument = edit.document()
    here = edit.textCursor().selectionStart()
    cursor = QTextCursor(doc)
    n = k = 0
    while n <= MAX_COUNTED:
        cursor = doc.find(text, cursor)
        if cursor.isNull():
            break
        n += 1
        if cursor.selectionStart() <= here:
            k = n
    total = f"{MAX_COUNTED}+" if n > MAX_COUNTED else str(n)
    return f"{k} of {total}" if n else "Not found"


__all__ = ["MAX_COUNTED", "FindBar", "FindScope", "find_case", "match_count"]

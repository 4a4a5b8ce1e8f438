"""Small dialogs: an error, a note editor, the annotator's name, a session in use, the summary.

All text is plain (notes and case ids are typed or model text: never rich text)."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import TypeVar

from PySide6.QtCore import QElapsedTimer, QEvent, QMimeData, QObject, QStringListModel, Qt
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from citeview.core.datasets import Dataset

T = TypeVar("T")


def back_to(window: QWidget, value: T) -> T:
    """After a dialog: make ``window`` active again (its keys work at once); returns ``value``."""
    window.activateWindow()
    return value


def can_ask() -> bool:
    """Whether a modal dialog can be answered: not on the offscreen platform (snapshots and
    tests), where nobody could close it and it would block for ever."""
    return QGuiApplication.platformName() != "offscreen"


def show_error(parent: QWidget, text: str) -> None:
    """A one-line error the user acknowledges (plain text: it may quote model text)."""
    box = QMessageBox(QMessageBox.Icon.Critical, "citeview", text,
                      QMessageBox.StandardButton.Ok, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.exec()



def fit_to_screen(widget: QWidget, width: int, height: int, frame: tuple[int, int] = (16, 48)
                  ) -> None:
    """Resize ``widget`` to ``width`` x ``height``, or to what its screen has room for less
    ``frame`` (on a 1024x640 display a dialog's buttons must not end up below the screen's
    edge)."""
    screen = widget.screen() or QGuiApplication.primaryScreen()
    if screen is not None:
        room = screen.availableGeometry()
        width, height = min(width, room.width() - frame[0]), min(height, room.height() - frame[1])
    widget.resize(width, height)


class NoteDialog(QDialog):
    """Edit a note: Ctrl+Enter saves, Esc cancels (a note may hold several lines)."""

    def __init__(self, title: str, prompt: str, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(" ".join(title.split())[:100])
        lay = QVBoxLayout(self)
        label = QLabel(prompt)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        lay.addWidget(label)
        self.edit = QPlainTextEdit()
        self.edit.setPlainText(text)
        self.edit.setTabChangesFocus(True)
        lay.addWidget(self.edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        hint = QLabel("Ctrl+Enter saves \u00b7 Esc cancels")
        hint.setEnabled(False)
        lay.addWidget(hint)
        lay.addWidget(buttons)
        self.edit.installEventFilter(self)  # Ctrl+Enter saves, whatever window is active
        self.resize(460, 220)
        self.edit.setFocus()

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # noqa: N802
        if (obj is self.edit and ev.type() == QEvent.Type.KeyPress
                and isinstance(ev, QKeyEvent)
                and ev.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
                and ev.modifiers() & Qt.KeyboardModifier.ControlModifier):
            self.accept()
            return True
        return super().eventFilter(obj, ev)

    def text(self) -> str:
        return self.edit.toPlainText().strip()


def edit_note(parent: QWidget, title: str, prompt: str, text: str) -> str | None:
    """The edited note, or None when cancelled."""
    dlg = NoteDialog(title, prompt, text, parent)
    return dlg.text() if dlg.exec() == QDialog.DialogCode.Accepted else None


# Keys pressed this soon after the name box shows were meant for the window behind it (typed
# before the box appeared, still on their way): they are dropped, never part of the name.
SETTLE_MS = 400


class _KeysAfterShown(QObject):
    """Drops the key presses (and shortcuts) a widget gets in its first :data:`SETTLE_MS`."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.clock = QElapsedTimer()

    def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # noqa: N802
        kind = ev.type()
        if kind == QEvent.Type.Show and not self.clock.isValid():
            self.clock.start()
        elif kind in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride):
            return not self.clock.isValid() or self.clock.elapsed() < SETTLE_MS
        return False


def annotator_dialog(parent: QWidget | None, current: str = "") -> QInputDialog:
    """The name box of :func:`ask_annotator`: keys typed before it appeared never land in it."""
    dlg = QInputDialog(parent)
    dlg.setWindowTitle("Annotator")
    dlg.setLabelText("Your name, recorded with every verdict you give:")
    dlg.setInputMode(QInputDialog.InputMode.TextInput)
    dlg.setTextValue(current)
    guard = _KeysAfterShown(dlg)
    dlg.installEventFilter(guard)
    edit = dlg.findChild(QLineEdit)
    if edit is not None:
        edit.installEventFilter(guard)
    return dlg


def ask_annotator(parent: QWidget, current: str = "") -> str | None:
    """The annotator's name (recorded with every verdict), or None when cancelled."""
    dlg = annotator_dialog(parent, current)
    ok = dlg.exec() == QDialog.DialogCode.Accepted
    name = " ".join(dlg.textValue().split())
    return name if ok and name else None


class ReasonPicker(QDialog):
    """Why a verdict fails: the session's reasons, number key k toggles the k-th (several may
    be ticked), Enter keeps them, Esc cancels. Keys typed before it appeared (meant for the
    window: a verdict, the next citation) never tick a reason (see :data:`SETTLE_MS`)."""

    def __init__(self, reasons: Sequence[str], chosen: Sequence[str], title: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(" ".join(title.split())[:100])
        lay = QVBoxLayout(self)
        label = QLabel("Why it fails (number keys tick and untick; Enter keeps them):")
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        lay.addWidget(label)
        self.reasons = list(reasons)
        self.boxes: list[QCheckBox] = []
        for k, reason in enumerate(self.reasons, 1):
            box = QCheckBox(f"{k}  {reason}" if k <= 9 else f"   {reason}")  # (10th: a click)
            box.setChecked(reason in chosen)
            box.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys are the dialog's
            self.boxes.append(box)
            lay.addWidget(box)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        for button in buttons.buttons():
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        guard = _KeysAfterShown(self)
        self.installEventFilter(guard)

    def keyPressEvent(self, ev: QKeyEvent) -> None:  # noqa: N802
        key = ev.key()
        if Qt.Key.Key_1 <= key <= Qt.Key.Key_9 and not ev.modifiers() & (
                Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.AltModifier):
            k = key - Qt.Key.Key_1
            if k < len(self.boxes):
                self.boxes[k].toggle()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.accept()
            return
        super().keyPressEvent(ev)

    def chosen(self) -> tuple[str, ...]:
        """The ticked reasons, in the session's order."""
        return tuple(r for r, box in zip(self.reasons, self.boxes, strict=False)
                     if box.isChecked())


def pick_reasons(parent: QWidget, reasons: Sequence[str], chosen: Sequence[str],
                 title: str) -> tuple[str, ...] | None:
    """The reasons ticked in a :class:`ReasonPicker`, or None when cancelled."""
    dlg = ReasonPicker(reasons, chosen, title, parent)
    return dlg.chosen() if dlg.exec() == QDialog.DialogCode.Accepted else None


def reword_dialog(parent: QWidget | None, text: str, title: str) -> QInputDialog:
    """The reword dialog: the words selected in the answer, editable (one line of plain
    text, all selected so typing replaces it); Enter keeps the new wording, Escape none."""
    dlg = QInputDialog(parent)
    dlg.setObjectName("rewordDialog")
    dlg.setWindowTitle(title)
    dlg.setInputMode(QInputDialog.InputMode.TextInput)
    dlg.setLabelText("The answer should read (Enter keeps it):")
    dlg.setTextValue(" ".join(text.split()))
    dlg.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput, False)
    fit_to_screen(dlg, 560, dlg.sizeHint().height())
    return dlg


def ask_reword(parent: QWidget, text: str, title: str) -> str | None:
    """The new wording typed in a :func:`reword_dialog`, or None when cancelled."""
    dlg = reword_dialog(parent, text, title)
    return dlg.textValue() if dlg.exec() == QDialog.DialogCode.Accepted else None


#: Up to this many cases, Go to Case completes any part of an id (Qt filters the list);
#: past it, ids that start with what is typed, looked up in the dataset's index per key.
CONTAINS_CASES = 20_000
#: Completions listed per key past :data:`CONTAINS_CASES`.
INDEXED_COMPLETIONS = 50


def ask_case(parent: QWidget, cases: Dataset | Sequence[str]) -> str | None:
    """Ask for a case: an id, completed as it is typed, or a row number."""
    dlg = case_dialog(parent, cases)
    if dlg.exec() != QDialog.DialogCode.Accepted:
        return None
    return dlg.textValue()


def case_dialog(parent: QWidget | None, cases: Dataset | Sequence[str]) -> QInputDialog:
    """The Go to Case dialog (see :func:`ask_case`). Choosing a completion (Enter or a click
    in its list) goes there: one Enter, not one to close the list and another for the box.

    A dataset of up to :data:`CONTAINS_CASES` cases completes any part of an id; a bigger one
    lists the ids that start with the text (``Dataset.ids_starting``: a session's index), each
    key answered from a query of :data:`INDEXED_COMPLETIONS` ids, never a pass over them all."""
    count = len(cases)
    dlg = QInputDialog(parent)
    dlg.setWindowTitle("Go to case")
    dlg.setLabelText(f"Case id, its beginning, or a number (1\u2013{count}):")
    dlg.setInputMode(QInputDialog.InputMode.TextInput)
    edit = dlg.findChild(QLineEdit)
    if edit is not None:
        if count <= CONTAINS_CASES:
            ids = cases.case_ids() if isinstance(cases, Dataset) else list(cases)
            completer = QCompleter(ids, dlg)
            completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
            completer.setFilterMode(Qt.MatchFlag.MatchContains)
        else:
            completer = _indexed_completer(dlg, edit, cases)
        completer.setMaxVisibleItems(12)
        edit.setCompleter(completer)

        def chosen(text: str) -> None:
            edit.setText(text)
            dlg.setTextValue(text)
            dlg.accept()

        completer.activated.connect(chosen)
    return dlg


def _indexed_completer(dlg: QWidget, edit: QLineEdit,
                       cases: Dataset | Sequence[str]) -> QCompleter:
    """A completer whose list is the ids that start with the text, asked of ``cases`` per key
    (Qt filters nothing: the list is already the answer)."""
    model = QStringListModel(dlg)
    completer = QCompleter(model, dlg)
    completer.setCompletionMode(QCompleter.CompletionMode.UnfilteredPopupCompletion)

    def starting(prefix: str) -> list[str]:
        if isinstance(cases, Dataset):
            return cases.ids_starting(prefix, INDEXED_COMPLETIONS)
        low = prefix.casefold()
        return sorted(c for c in cases if c.casefold().startswith(low))[:INDEXED_COMPLETIONS]

    def typed(text: str) -> None:
        model.setStringList(starting(text) if text.strip() else [])
        if model.rowCount():
            completer.complete()
        elif (popup := completer.popup()) is not None:
            popup.hide()

    edit.textEdited.connect(typed)
    return completer


class InUse(Enum):
    """What to do about a session another citeview has open."""

    READ_ONLY = "read-only"
    RETRY = "retry"
    CANCEL = "cancel"


def session_in_use(parent: QWidget, message: str) -> InUse:
    """Tell that another citeview has the session open: open it read-only, try again (the
    other one was just closed), or cancel (the input is then shown without review)."""
    box = QMessageBox(QMessageBox.Icon.Warning, "Session in use",
                      " ".join(message.split()), QMessageBox.StandardButton.Cancel, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setInformativeText("Two windows writing one session could mix up judgements. Close it "
                           "in the other window and try again, or look at it read-only here.")
    ro = box.addButton("Open Read-Only", QMessageBox.ButtonRole.AcceptRole)
    retry = box.addButton("Try Again", QMessageBox.ButtonRole.ActionRole)
    box.setDefaultButton(retry)
    box.exec()
    clicked = box.clickedButton()
    return InUse.READ_ONLY if clicked is ro else InUse.RETRY if clicked is retry else InUse.CANCEL


class QtExactTextView(QPlainTextEdit):
    """Plain text with citation markers shown as the raw view shows them (``⟦cite|id|L1⟧``:
    most fonts draw U+E200..U+E202 as empty boxes); a copied selection is the exact text,
    markers and all (the replacement is one BMP character for one, so positions agree)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from citeview.lexers import visible_markers

        self.setReadOnly(True)
        self.exact = text
        self.setPlainText(visible_markers(text)[0])  # plain: untrusted text, never rich

    def createMimeDataFromSelection(self) -> QMimeData:  # noqa: N802
        from citeview.lexers import visible_markers

        cursor = self.textCursor()
        exact = self.exact
        # Qt's positions count UTF-16 units; a text Qt changed ("\r\n" breaks) is copied
        # as shown.
        # Qt's own object, made in C++ (the clipboard takes it and deletes it: one made in
        # Python would be deleted a second time at exit).
        data = super().createMimeDataFromSelection()
        if not cursor.hasSelection() or self.toPlainText() != visible_markers(exact)[0]:
            return data
        units = exact.encode("utf-16-le")
        a, b = cursor.selectionStart(), cursor.selectionEnd()
        data.text()  # Qt fills in its formats from the selection on the first read: now
        for fmt in data.formats():
            data.removeFormat(fmt)  # (its HTML and ODF show the visible markers)
        data.setText(units[2 * a:2 * b].decode("utf-16-le", errors="replace"))
        return data


class ModelInputDialog(QDialog):
    """What the model saw (:mod:`citeview.core.model_input`): plain text, its markers visible;
    copied exactly."""

    def __init__(self, text: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        lay = QVBoxLayout(self)
        self.view = QtExactTextView(text)
        self.view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        lay.addWidget(self.view)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy All", QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(text))
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        fit_to_screen(self, 820, 640)


class SummaryDialog(QDialog):
    """The review report of the session (the same text as ``citeview report``)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Review Summary")
        lay = QVBoxLayout(self)
        self.view = QPlainTextEdit()
        self.view.setReadOnly(True)
        self.view.setPlainText(text)
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setStyleHint(QFont.StyleHint.Monospace)
        self.view.setFont(font)
        self.view.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        lay.addWidget(self.view)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay.addWidget(buttons)
        fit_to_screen(self, 920, 520)

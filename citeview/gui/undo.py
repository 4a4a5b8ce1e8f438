"""Session edits on a ``QUndoStack``: each :class:`citeview.session.edits.Edit` (or an
adjudication edit, same shape) becomes a ``QUndoCommand``. Every do/undo is one committed
transaction, so the stack never holds unsaved state: it only knows how to go back."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoCommand, QUndoStack


class EditCommand(QUndoCommand):
    """One session edit. ``QUndoStack.push`` calls :meth:`redo`, which applies it."""

    def __init__(self, edit: Any, after: Any = None) -> None:
        super().__init__(" ".join(str(edit.text).split())[:120])
        self.edit = edit
        self.after = after  # called with (edit, undone: bool) once applied, e.g. to navigate

    def redo(self) -> None:
        self.edit.do()
        if self.after is not None:
            self.after(self.edit, False)

    def undo(self) -> None:
        self.edit.undo()
        if self.after is not None:
            self.after(self.edit, True)


def push_edit(stack: QUndoStack, edit: Any, after: Any = None) -> None:
    """Apply ``edit`` now and make it undoable."""
    stack.push(EditCommand(edit, after))

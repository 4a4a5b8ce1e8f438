"""Session edits on a ``QUndoStack``: each :class:`citeview.session.edits.Edit` (an annotation,
a case review or an adjudication) becomes a ``QUndoCommand``. Every do/undo is one committed
transaction, so the stack never holds unsaved state: it only knows how to go back."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand, QUndoStack

from citeview.session.edits import Edit

#: Called with ``(edit, undone)`` once an edit was applied or taken back (e.g. to navigate).
AfterEdit = Callable[[Edit, bool], None]


class EditCommand(QUndoCommand):
    """One session edit. ``QUndoStack.push`` calls :meth:`redo`, which applies it."""

    def __init__(self, edit: Edit, after: AfterEdit | None = None) -> None:
        super().__init__(" ".join(str(edit.text).split())[:120])
        self.edit = edit
        self.after = after

    def redo(self) -> None:
        self.edit.do()
        if self.after is not None:
            self.after(self.edit, False)

    def undo(self) -> None:
        self.edit.undo()
        if self.after is not None:
            self.after(self.edit, True)


def push_edit(stack: QUndoStack, edit: Edit, after: AfterEdit | None = None) -> None:
    """Apply ``edit`` now and make it undoable."""
    stack.push(EditCommand(edit, after))

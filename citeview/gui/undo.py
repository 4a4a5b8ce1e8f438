"""Session edits on a ``QUndoStack``: each :class:`citeview.session.edits.Edit` (an annotation,
a case review or an adjudication) becomes a ``QUndoCommand``. Every do/undo is one committed
transaction, so the stack never holds unsaved state: it only knows how to go back.

An edit is applied *before* its command is pushed: a write that fails (disk full) raises to the
caller and leaves no phantom entry on the stack. An undo or redo that fails later is shown
through the message bridge and its command leaves the stack (the session keeps what was
written; the stack never claims otherwise)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand, QUndoStack

from citeview.gui import message
from citeview.session.edits import Edit
from citeview.session.store import SessionError

#: Called with ``(edit, undone)`` once an edit was applied or taken back (e.g. to navigate).
AfterEdit = Callable[[Edit, bool], None]


class EditCommand(QUndoCommand):
    """One session edit, already applied when pushed (``QUndoStack.push`` calls :meth:`redo`
    once more: that first call only reports)."""

    def __init__(self, edit: Edit, after: AfterEdit | None = None) -> None:
        super().__init__(" ".join(str(edit.text).split())[:120])
        self.edit = edit
        self.after = after
        self._applied = True

    def redo(self) -> None:
        if self._applied:
            self._applied = False  # the push: the edit was made by push_edit
        elif not self._run(self.edit.do):
            return
        if self.after is not None:
            self.after(self.edit, False)

    def undo(self) -> None:
        if self._run(self.edit.undo) and self.after is not None:
            self.after(self.edit, True)

    def _run(self, step: Callable[[], None]) -> bool:
        try:
            step()
        except SessionError as err:
            message.error(f"{err} (this step was taken off the undo list)")
            self.setObsolete(True)  # the stack drops it: it never claims what is not written
            return False
        return True


def push_edit(stack: QUndoStack, edit: Edit, after: AfterEdit | None = None) -> None:
    """Apply ``edit`` now (an error raises here, and nothing is pushed) and make it undoable."""
    edit.do()
    stack.push(EditCommand(edit, after))

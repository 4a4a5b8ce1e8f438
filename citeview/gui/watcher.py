"""Following the input on disk: when a file it was read from changes, read it again.

The watched files are all an input was read from (plain files: material, context, documents and
answer), never a session (it changes with every verdict). A reload keeps the case shown (by id)
and the active citation; a session takes in the changed answers first, so its verdicts are
re-attached (:meth:`citeview.session.store.Session.sync_from`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.gui import message

if TYPE_CHECKING:
    from citeview.core.inputs import InputLoaders
    from citeview.gui.case_loader import CaseLoader
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.window_state import WindowState

SETTLE_MS = 300  # a file being rewritten is read again this long after it last changed


class InputWatcher(QObject):
    synced = Signal()  # the session took in changed answers: its verdicts were re-attached
    reloaded = Signal(object)  # the Dataset read again, now the state's

    def __init__(self, state: WindowState, review_session: ReviewSession, loader: CaseLoader,
                 loaders: InputLoaders, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.review_session = review_session
        self.loader = loader
        self.loaders = loaders  # the readers of binary inputs the window was given
        self._stopped = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SETTLE_MS)
        self._timer.timeout.connect(self.reload)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(lambda _path: self._timer.start())

    def watched_files(self, dataset: Dataset | None) -> list[str]:
        """The input files to watch for ``dataset`` (the window's input dataset, if any, is
        what was read from disk)."""
        state = self.state
        source = state.input_dataset if state.input_dataset is not None else dataset
        paths = source.watch_paths() if source is not None else []
        if state.path and state.path not in paths:
            paths = [state.path]
        return [p for p in paths if os.path.isfile(p) and not p.endswith(".citeview")]

    def watch(self, dataset: Dataset | None) -> None:
        """Watch the files of ``dataset`` (and stop watching others)."""
        wanted = self.watched_files(dataset)
        stale = [p for p in self._watcher.files() if p not in wanted]
        if stale:
            self._watcher.removePaths(stale)
            # Another input now: a reload its files' change started is not this one's.
            self._timer.stop()
        new = [p for p in wanted if p not in self._watcher.files()]
        if new:
            self._watcher.addPaths(new)

    def stop(self) -> None:
        """Watch nothing and reload nothing (the window closed; a file rewritten just now must
        not reload it)."""
        self._stopped = True
        self._timer.stop()
        if self._watcher.files():
            self._watcher.removePaths(self._watcher.files())

    def resume(self) -> None:
        """Reloads are possible again (the window is shown again)."""
        self._stopped = False

    def reload(self) -> None:
        """Re-read the input, keeping the active case (by id) and citation."""
        state = self.state
        if not state.path or self._stopped:
            return
        if self.review_session.session is None and self.review_session.making():
            # Its session is being made from what was read before: read again once it is
            # made, so the session takes the change in (syncing) instead of being dropped as
            # a session of another input.
            self._timer.start()
            return
        if self.review_session.follow_now():  # F5 on a read-only window: the writer's changes
            message.info("Reloaded: the session changed in another citeview", 5000)
        watched = self.watched_files(state.dataset)
        if not os.path.exists(state.path) or any(not os.path.exists(p) for p in watched):
            self._timer.start()  # being rewritten: try again shortly
            return
        from citeview.core.inputs import load_input

        case_id = state.view.case.id if state.view else None
        citation, source = state.active, state.active_source
        try:
            if state.input_dataset is not None:
                dataset = state.input_dataset.reload()  # plain files: every file, not the answer
            else:
                dataset = load_input(state.path, self.loaders)
        except InputError as err:
            message.error(str(err))
            return
        state.input_dataset = dataset
        self.watch(dataset)  # an atomic rewrite drops the watch
        session = self.review_session.session
        if session is not None and not session.readonly and dataset.kind != "session":
            try:
                session.sync_from(dataset)  # answers changed: annotations re-attached
            except InputError as err:
                message.error(str(err))
                return
            dataset = session.dataset()
            self.synced.emit()
        self.state.set_dataset(dataset)
        self.reloaded.emit(dataset)
        index = 0
        if case_id is not None:
            try:
                index = dataset.index_of(case_id)
            except KeyError:
                index = min(max(state.case_index, 0), len(dataset) - 1)
        self.loader.show_case(index, citation=citation if citation is not None else 0,
                             source=source)
        message.info("Reloaded: the file changed on disk", 5000)


__all__ = ["InputWatcher"]

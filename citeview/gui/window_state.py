"""What the window shows, in one evented object (napari's evented model is the pattern).

:class:`WindowState` holds the dataset, the shown case (its index and view-model), the active
citation and its active source, and blind review. Each has a signal, emitted only when the value
really changes. The window's parts are handed this object: they read what is shown from it and
set only what they own:

- ``dataset``: set by the opener and the watcher (``datasetChanged``),
- ``case_index`` and ``view``: set by the case loader (``caseIndexChanged``, ``viewChanged``;
  the view is ``None`` while the case is built; ``CaseLoader.viewReady`` says the panes show it),
- ``active`` / ``active_source``: set by navigation, cleared by the case loader
  (``activeChanged``),
- ``blind``: set by the review (``blindChanged``: the window's citations table follows it).

No part writes another part's attributes: what is shown changes here. docs/ARCHITECTURE.md
lists who reads what.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from citeview.core.datasets import Dataset
    from citeview.gui.state import CaseView


class WindowState(QObject):
    datasetChanged = Signal(object)  # Dataset | None
    caseIndexChanged = Signal(int)  # -1: no case
    viewChanged = Signal(object)  # CaseView | None (None: the case is being built)
    activeChanged = Signal(object, int)  # citation index (or None), source index
    blindChanged = Signal(bool)  # blind review: lint findings and hints hidden everywhere

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._dataset: Dataset | None = None
        self._case_index = -1
        self._view: CaseView | None = None
        self._active: int | None = None
        self._active_source = 0
        self._blind = False
        # Where the input came from (no signal: read when needed): its path, and the dataset as
        # read from its files (not the session holding its copy), what a reload reads again.
        self.path: str | None = None
        self.input_dataset: Dataset | None = None

    # -- reading --------------------------------------------------------------------------

    @property
    def dataset(self) -> Dataset | None:
        return self._dataset

    @property
    def case_index(self) -> int:
        return self._case_index

    @property
    def view(self) -> CaseView | None:
        """The shown case's view-model (``None`` while it is built)."""
        return self._view

    @property
    def active(self) -> int | None:
        """The active citation's index (0-based) in the shown case."""
        return self._active

    @property
    def active_source(self) -> int:
        """Which source of the active citation is shown."""
        return self._active_source

    @property
    def blind(self) -> bool:
        """Blind review: no lint findings, hints or codes are shown."""
        return self._blind

    # -- changing (each signals a real change only) ---------------------------------------

    def set_dataset(self, dataset: Dataset | None) -> None:
        if dataset is not self._dataset:
            self._dataset = dataset
            self.datasetChanged.emit(dataset)

    def set_case_index(self, index: int) -> None:
        if index != self._case_index:
            self._case_index = index
            self.caseIndexChanged.emit(index)

    def set_view(self, view: CaseView | None) -> None:
        if view is not self._view:
            self._view = view
            self.viewChanged.emit(view)

    def set_active(self, index: int | None, source: int = 0) -> None:
        if (index, source) != (self._active, self._active_source):
            self._active, self._active_source = index, source
            self.activeChanged.emit(index, source)

    def set_blind(self, on: bool) -> None:
        if on != self._blind:
            self._blind = on
            self.blindChanged.emit(on)


__all__ = ["WindowState"]

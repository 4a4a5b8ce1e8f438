"""Moving on: after a verdict, the next source or citation this annotator has not judged.

One key per decision, then the next item (as Prodigy's accept/reject do): a verdict key records
the verdict and :class:`Advancer` moves to the next unjudged source or citation of the case;
after the last one the case is marked done (in the same undo step) and the next case not done
opens at its first unjudged citation. Shift+J / Shift+K jump to the next / previous unjudged item
across cases; opening a session lands on the first unjudged citation of the first case not done.
Moving on can be turned off (Review menu, ``--no-advance``): J/K and Ctrl+Enter still work.

An *item* is ``(citation index, source index)`` in the shown case; it is judged when this
annotator's verdict for it is recorded (any verdict, "cannot tell" included).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QSettings, Signal

from citeview.core.numbering import FIRST_NUMBER
from citeview.gui import message
from citeview.session.model import ReviewState

if TYPE_CHECKING:
    from citeview.gui.case_loader import CaseLoader
    from citeview.gui.navigation import Navigator
    from citeview.gui.progress import ProgressTracker
    from citeview.gui.state import CaseView
    from citeview.gui.team import QtTeamLink
    from citeview.gui.window_state import WindowState

ADVANCE_KEY = "review/advance"  # QSettings: move on after a verdict (default on)

Item = tuple[int, int]


def items(view: CaseView) -> list[Item]:
    """Every (citation, source) of the case, in reading order."""
    return [(i, k) for i, cv in enumerate(view.citations)
            for k in range(len(cv.citation.source_ids))]


def judged(view: CaseView, item: Item) -> bool:
    cv = view.citations[item[0]]
    return item[1] < len(cv.verdicts) and cv.verdicts[item[1]] is not None


def unjudged(view: CaseView) -> list[Item]:
    return [it for it in items(view) if not judged(view, it)]


def _around(view: CaseView, start: Item, backward: bool = False,
            include_self: bool = False) -> Iterator[Item]:
    """Items after (before) ``start`` in reading order, wrapping round the case; ``start``
    itself last when ``include_self`` (never otherwise)."""
    cits = view.citations
    n = len(cits)
    i, k = start
    step = -1 if backward else 1
    for hop in range(n + 1):
        c = (i + step * hop) % n if n else 0
        sizes = len(cits[c].citation.source_ids) if n else 0
        ks = range(sizes) if not backward else range(sizes - 1, -1, -1)
        for kk in ks:
            if hop == 0 and (kk <= k if not backward else kk >= k):
                continue  # not after start in this citation (the first visit)
            if hop == n and (kk > k if not backward else kk < k):
                continue  # wrapped back: only up to start
            if (c, kk) == (i, k) and not include_self:
                continue
            yield (c, kk)


class Advancer(QObject):
    overridden = Signal(bool)  # --no-advance (or not) for this window: the menu shows it
    def __init__(self, state: WindowState, settings: QSettings, loader: CaseLoader,
                 navigator: Navigator, progress: ProgressTracker,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.settings = settings
        self.loader = loader
        self.navigator = navigator
        self.progress = progress
        self._land: str | None = None  # "first" / "last": where to land when a case shows
        self._override: bool | None = None  # --no-advance: for this run, not remembered
        self.team: QtTeamLink | None = None  # a team project's routing (the window sets it)
        loader.viewReady.connect(self._on_view_ready)

    # -- the setting -------------------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        if self._override is not None:
            return self._override
        value = self.settings.value(ADVANCE_KEY, True)
        return value not in (False, "false", "0", 0)

    def set_enabled(self, on: bool) -> None:
        """The menu's setting (remembered)."""
        self._override = None
        self.settings.setValue(ADVANCE_KEY, bool(on))

    def override(self, on: bool) -> None:
        """``--no-advance``: this window only; the menu shows it and can change it back."""
        self._override = bool(on)
        self.overridden.emit(self._override)

    # -- within the case ---------------------------------------------------------------------

    def position(self) -> Item | None:
        state = self.state
        return None if state.active is None else (state.active, state.active_source)

    def completes_case(self, item: Item) -> bool:
        """Whether judging ``item`` leaves nothing unjudged in the shown case."""
        view = self.state.view
        if view is None:
            return False
        return next((it for it in _around(view, item) if not judged(view, it)), None) is None

    def next_in_case(self, after: Item | None, backward: bool = False) -> Item | None:
        """The next (previous) unjudged item of the shown case after ``after``, wrapping
        (``after`` itself last). Walks from ``after``: the next item is usually the answer,
        so a verdict in a 10,000-citation case does not look at all of them."""
        view = self.state.view
        if view is None or not view.citations:
            return None
        if after is None:
            last = len(view.citations) - 1
            after = (last, len(view.citations[last].citation.source_ids)) if not backward \
                else (0, -1)
            order = _around(view, after, backward)
        else:
            order = _around(view, after, backward, include_self=True)
        return next((it for it in order if not judged(view, it)), None)

    def go(self, item: Item) -> None:
        self.navigator.activate_citation(*item)

    def after_verdict(self, item: Item, completed: bool) -> None:
        """A verdict was recorded on ``item``: move on (the case was marked done with it when
        ``completed``)."""
        if completed:
            self.open_next_case()
            return
        nxt = self.next_in_case(item)
        if nxt is not None and nxt != item:
            self.go(nxt)
        elif nxt is None:
            message.info("Every citation of this case is judged (Ctrl+Enter: next case)")

    # -- across cases ------------------------------------------------------------------------

    def open_next_case(self, leaving: int | None = None) -> None:
        """Open the next case not done, at its first unjudged citation. ``leaving``: the case
        being marked done (its write follows the next case's paint): not a case to open."""
        state = self.state
        nxt = self.progress.next_undone(state.case_index)
        if nxt is not None and nxt == leaving:
            nxt = None
        team = self.team
        if nxt is None and team is not None and team.routed:
            # A routed project: the server hands out the next case (or says there is none).
            cid = team.next_handout()
            if cid is None or state.dataset is None:
                return
            try:
                nxt = state.dataset.index_of(cid)
            except KeyError:
                return
        if nxt is None:
            message.info("All cases are done", 8000)
            return
        self.show_case(nxt, "first")

    def show_case(self, index: int, land: str = "first") -> None:
        self._land = land
        self.loader.show_case(index, citation=None)

    def land(self, where: str = "first") -> None:
        """Land on the first (last) unjudged item once the case being shown is ready."""
        self._land = where

    def landing(self) -> bool:
        """Whether the case being shown lands on a citation of its own once ready."""
        return self._land is not None

    def _on_view_ready(self) -> None:
        where, self._land = self._land, None
        view = self.state.view
        if where is None or view is None:
            return
        item = self.next_in_case(None, backward=where == "last")
        if item is None and view.citations:
            item = (0, 0) if where == "first" else (len(view.citations) - 1, 0)
        if item is not None:
            self.go(item)

    def jump(self, backward: bool = False) -> None:
        """Shift+J / Shift+K: the next (previous) unjudged item, in this case or the cases
        after (before) it, wrapping around."""
        state = self.state
        view = state.view
        if view is None or state.dataset is None:
            return
        pos = self.position()
        here = [it for it in unjudged(view)
                if pos is None or (it < pos if backward else it > pos)]
        if here:
            self.go(here[-1] if backward else here[0])
            return
        counts = self.progress.counts
        ids = state.dataset.case_ids()
        n = len(ids)
        for step in range(1, n + 1):
            i = (state.case_index + (-step if backward else step)) % n
            if counts is None or self._has_unjudged(ids[i]):
                if i == state.case_index:
                    break
                self.show_case(i, "last" if backward else "first")
                return
        if unjudged(view):
            self.go(unjudged(view)[-1 if backward else 0])
            return
        message.info("Nothing left to judge")

    def _has_unjudged(self, case_id: str) -> bool:
        counts = self.progress.counts
        if counts is None:
            return True
        sizes = counts.session.sizes().get(case_id)
        if sizes is None:
            counts.count_case(case_id)
            sizes = counts.session.sizes().get(case_id, ())
        return any(len(counts.judged_sources(case_id, n)) < k
                   for n, k in enumerate(sizes, FIRST_NUMBER) if k)

    def case_done(self, case_id: str) -> bool:
        return self.progress.case_state(case_id) is ReviewState.DONE


__all__ = ["ADVANCE_KEY", "Advancer", "items", "judged", "unjudged"]

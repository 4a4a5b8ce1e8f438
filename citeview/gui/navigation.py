"""Moving around: the active citation and which of its sources is shown, the case shown.

A citation becomes active by a chip (click, Enter, right-click menu of its sources), a row of
the citations table, J/K (through the citations filter) or F8; a case by the cases list,
Ctrl+PgUp/PgDown or Go to Case. Activating a citation highlights its claim in the answer, shows
its source with the cited span highlighted and centred, selects its rows in the tables and says
what it is in the status bar; :attr:`Navigator.citationChanged` tells the review bar.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QPoint,
    Qt,
    Signal,
)
from PySide6.QtWidgets import QMenu, QTableView, QWidget

from citeview.gui import dialogs, message, ops
from citeview.gui.ops import AfterPaint
from citeview.gui.state import SourceRow
from citeview.gui.tables import KEY_ROLE, FilterProxy
from citeview.gui.untrusted import menu_text, safe_title

if TYPE_CHECKING:
    from citeview.gui.filters import Filters
    from citeview.gui.find import FindBar
    from citeview.gui.panes import Panes
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.team import QtTeamLink
    from citeview.gui.view_modes import ViewModes
    from citeview.gui.window_state import WindowState

CHIP_MENU = "chip-menu"  # object name of a chip's context menu


def _needles(raw: str) -> list[str]:
    """Texts to look for in the rendered answer for a raw answer span: the span itself, then
    its first line without Markdown syntax (a whole paragraph rarely renders verbatim)."""
    out = [raw.strip()]
    first = raw.strip().split("\n", 1)[0]
    plain = re.sub(r"^\s*(?:#+|>|[-*+]|\d+[.)])\s+", "", first)
    plain = re.sub(r"[*_`]+", "", plain).strip()
    out.append(plain[:60])
    return [n for n in out if n]


def select_row(table: QTableView, proxy: FilterProxy, key: object) -> None:
    """Make the row whose key is ``key`` current in ``table`` (if the filter shows it)."""
    pi = proxy.index_of_key(key)
    if pi.isValid():
        table.selectionModel().setCurrentIndex(
            pi, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        table.scrollTo(pi)


class Navigator(QObject):
    citationChanged = Signal(int)  # active citation index

    caseWanted = Signal(int)  # the case to show (the case loader shows it)

    def __init__(self, state: WindowState, panes: Panes, modes: ViewModes, filters: Filters,
                 review_session: ReviewSession, window: QWidget) -> None:
        super().__init__(window)
        self.state = state
        self.panes = panes
        self.modes = modes
        self.filters = filters
        self.review_session = review_session
        self.window = window  # menus' and dialogs' parent
        self._syncing = False  # selecting rows to follow the active citation, not the user
        # The added citation's chip (a reviewer's correction) the keys last stepped to: its
        # correction id (J/K, F8 and Left/Right visit added chips in reading order too).
        self._added_active: str | None = None
        self.team: QtTeamLink | None = None  # a team project's routing (the window sets it)
        self._tables_later = AfterPaint(self._paint_tables, self)
        self._held: list[QWidget] = []

    def wire(self, find_bar: FindBar, show_case: Callable[[int], None]) -> None:
        """The panes' clicks and rows move this navigator; a case it or the find bar asks for
        is shown by ``show_case`` (the case loader's)."""
        p = self.panes
        p.cases_table.selectionModel().currentRowChanged.connect(self.on_case_row)
        p.sources_table.selectionModel().currentRowChanged.connect(self.on_source_row)
        p.citations_table.selectionModel().currentRowChanged.connect(self.on_citation_row)
        p.answer.citationActivated.connect(self.on_chip)
        p.answer.chipMenuRequested.connect(self.chip_menu)
        p.answer.tooltip_for = self.tooltip_for
        for part in (self, find_bar):
            part.caseWanted.connect(show_case)

    def hold_tables(self) -> None:
        """The tables follow the active citation (and the case) at once, but repaint in the
        frame after the one that shows the cited span and the answer: repainting a table's
        rows (a Python call per cell) took a third of the time from a click to the span on
        screen."""
        if self._held:
            return
        for table in (self.panes.citations_table, self.panes.sources_table, self.panes.cases_table):
            for w in (table.viewport(), table.verticalScrollBar(),
                      table.verticalHeader().viewport(), table.horizontalHeader().viewport()):
                if w.updatesEnabled() and w.isVisible():
                    w.setUpdatesEnabled(False)
                    self._held.append(w)
        # Asked for once the work that marks the panes dirty is done (its paint request is
        # then posted before this one), from the event loop: released whatever happens.
        self._tables_later.request_soon()

    def _paint_tables(self) -> None:
        held, self._held = self._held, []
        for w in held:
            w.setUpdatesEnabled(True)  # (repaints it)

    # ------------------------------------------------------------------------------ citations

    def activate_citation(self, index: int, source: int = 0, tell: bool = True) -> None:
        """Make citation ``index`` (0-based) active: claim highlighted in the answer, its
        ``source``-th source shown with the cited span highlighted and centred. ``tell``: say
        what it is in the status bar (a case just shown clears the status bar instead)."""
        view = self.state.view
        if view is None or not 0 <= index < len(view.citations):
            return
        ops.collect_after_paint()  # (collections wait for the span's paint)
        cv = view.citations[index]
        n = len(cv.citation.source_ids)
        source = source % n if n else 0
        self._added_active = None
        self.state.set_active(index, source)
        self.panes.answer.set_active(index)
        if self.modes.raw_mode:
            self.modes.show_raw_active()
        sid = cv.citation.source_ids[source] if n else ""
        target = cv.targets[source] if source < len(cv.targets) else None
        src = target.source if target is not None else None
        if target is None or src is None:
            self.panes.source.show_source(None, missing_id=sid)
        else:
            if self.panes.source.shown_source_id() != sid:
                self.panes.source.show_source(src)
                self.panes.source.set_tints(view.cited_spans.get(sid, []))
            self.panes.source.highlight(target)
        self._syncing = True
        try:
            self.hold_tables()
            select_row(self.panes.citations_table, self.panes.citations_proxy, ("citation", index))
            select_row(self.panes.sources_table, self.panes.sources_proxy, ("source", sid))
        finally:
            self._syncing = False
        if not tell:
            self.citationChanged.emit(index)
            return
        more = f" (source {source + 1} of {n}: {sid})" if n > 1 else ""
        codes = ("" if self.state.blind else
                 "".join(f" \u00b7 {d.code} {d.name}" for d in cv.diagnostics))
        judged = ""
        session = self.review_session.session
        if session is not None:
            verdict = cv.verdicts[source] if source < len(cv.verdicts) else None
            n_keys = min(len(session.labels), 9)
            judged = (f" \u00b7 your verdict: {verdict}" if verdict
                      else f" \u00b7 not judged (keys 1\u2013{n_keys}, N note)")
        message.info(
            f"Citation {cv.number}/{len(view.citations)}{more} \u00b7 {cv.status_text}{codes}"
            + judged, message.KEEP)
        self.citationChanged.emit(index)

    def select_citation_row(self, index: int) -> None:
        """Select citation ``index``'s row again (the table was refilled)."""
        self._syncing = True
        try:
            select_row(self.panes.citations_table, self.panes.citations_proxy, ("citation", index))
        finally:
            self._syncing = False

    def next_citation(self) -> None:
        view = self.state.view
        if view and view.citations:
            if self._added_live():
                self._from_added(+1, lambda cv: True)
                return
            i = -1 if self.state.active is None else self.state.active
            j = min(i + 1, len(view.citations) - 1)
            if not self._added_before(i, j, +1):
                self.activate_citation(j)

    def previous_citation(self) -> None:
        view = self.state.view
        if view and view.citations:
            if self._added_live():
                self._from_added(-1, lambda cv: True)
                return
            i = len(view.citations) if self.state.active is None else self.state.active
            j = max(i - 1, 0)
            if not self._added_before(i, j, -1):
                self.activate_citation(j)

    # Added citations' chips (corrections) in the keys' reading order: an added chip stands
    # where it is in the rendered answer, between the model's chips.

    def _added_live(self) -> bool:
        """Whether an added chip is active (and still shown: another case, or the chip taken
        back, ends it)."""
        if self._added_active is None:
            return False
        if all(cid != self._added_active for _at, cid in self._added_chips()):
            self._added_active = None
        return self._added_active is not None

    def _chip_at(self, index: int) -> int | None:
        r = self.panes.answer.chip_range(index)
        return None if r is None else r[0]

    def _added_chips(self) -> list[tuple[int, str]]:
        return [(start, cid) for start, _end, cid in self.panes.answer.added_chip_ranges()]

    def _added_before(self, i: int, j: int, d: int) -> bool:
        """Stepping ``d`` from citation ``i`` (-1 or the count: none yet) to ``j`` (the same:
        none further): the nearest added chip between their chips in that direction is
        activated instead (True), if there is one."""
        view = self.state.view
        added = self._added_chips()
        if view is None or not added:
            return False
        n = len(view.citations)
        here = (-1 if d > 0 else 1 << 60) if not 0 <= i < n else self._chip_at(i)
        there = None if j == i or not 0 <= j < n else self._chip_at(j)
        if here is None:
            return False
        if d > 0:
            between = [a for a in added if a[0] > here and (there is None or a[0] < there)]
            pick = min(between, default=None)
        else:
            between = [a for a in added if a[0] < here and (there is None or a[0] > there)]
            pick = max(between, default=None)
        if pick is None:
            return False
        self._activate_added(pick[1], pick[0])
        return True

    def _from_added(self, d: int, wants: Callable[[Any], bool]) -> bool:
        """From the added chip active, the next (``d`` = 1) or previous chip of either kind
        (model's chips the filter ``wants``); False when there is none."""
        view = self.state.view
        added = {cid: at for at, cid in self._added_chips()}
        at = added.get(self._added_active or "")
        if view is None or at is None:
            return False
        others = [(a, cid) for cid, a in added.items() if (a > at if d > 0 else a < at)]
        near_added = (min(others) if d > 0 else max(others)) if others else None
        chips = [(c, k) for k, cv in enumerate(view.citations)
                 if wants(cv) and (c := self._chip_at(k)) is not None
                 and (c > at if d > 0 else c < at)]
        near_chip = (min(chips) if d > 0 else max(chips)) if chips else None
        if near_added is not None and (near_chip is None or (
                near_added[0] < near_chip[0] if d > 0 else near_added[0] > near_chip[0])):
            self._activate_added(near_added[1], near_added[0])
            return True
        if near_chip is not None:
            target = view.citations[near_chip[1]]
            last = max(len(target.citation.source_ids) - 1, 0)
            self.activate_citation(near_chip[1], 0 if d > 0 else last)
            return True
        return False

    def _activate_added(self, cid: str, at: int) -> None:
        """The added chip of correction ``cid`` (at Qt position ``at``) shown as a click on
        it shows it: its source, its lines highlighted."""
        self._added_active = cid
        self.panes.answer.show_position(at)
        self.panes.answer.addedActivated.emit(cid)

    def next_source_of_citation(self) -> None:
        if self.state.active is not None:
            self.activate_citation(self.state.active, self.state.active_source + 1)

    def next_item(self) -> None:
        """Next source of a multi-source citation, else the next citation the citations filter
        shows (J)."""
        self._step(+1)

    def previous_item(self) -> None:
        self._step(-1)

    def _step(self, d: int) -> None:
        view = self.state.view
        if view is None or not view.citations:
            return
        wants = self.filters.wants
        if self._added_live():
            if not self._from_added(d, wants):
                message.info("No more citations in this case"
                             + (" (Ctrl+Enter: done, next case)" if d > 0 else ""))
            return
        if self.state.active is None:
            order = range(len(view.citations)) if d > 0 else range(len(view.citations) - 1,
                                                                   -1, -1)
            for i in order:
                if wants(view.citations[i]):
                    if not self._added_before(-1 if d > 0 else len(view.citations), i, d):
                        self.activate_citation(i)
                    return
            return
        cv = view.citations[self.state.active]
        n = len(cv.citation.source_ids)
        k = self.state.active_source + d
        if 0 <= k < n:
            self.activate_citation(self.state.active, k)
            return
        i = self.state.active + d
        while 0 <= i < len(view.citations):
            if wants(view.citations[i]):
                if self._added_before(self.state.active, i, d):
                    return
                target = view.citations[i]
                last = max(len(target.citation.source_ids) - 1, 0)
                self.activate_citation(i, 0 if d > 0 else last)
                return
            i += d
        if self._added_before(self.state.active, self.state.active, d):
            return
        message.info("No more citations in this case"
                     + (" (Ctrl+Enter: done, next case)" if d > 0 else ""))

    # ------------------------------------------------------------------------------ chips

    def on_chip(self, index: int) -> None:
        # Activating the active multi-source chip again shows its next source.
        if index == self.state.active:
            self.activate_citation(index, self.state.active_source + 1)
        else:
            self.activate_citation(index)

    def chip_menu(self, index: int, pos: QPoint) -> None:
        """The sources of chip ``index`` in a menu at ``pos``: choosing one shows it."""
        view = self.state.view
        if view is None or not 0 <= index < len(view.citations):
            return
        cv = view.citations[index]
        menu = QMenu(self.window)
        menu.setObjectName(CHIP_MENU)
        for k, sid in enumerate(cv.citation.source_ids):
            target = cv.targets[k] if k < len(cv.targets) else None
            title = target.source.title if target is not None and target.source else None
            label = f"{sid} \u2014 {title}" if title else sid
            act = menu.addAction(menu_text(label))
            act.triggered.connect(lambda _=False, k=k: self.activate_citation(index, k))
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(pos)

    def tooltip_for(self, index: int) -> list[str]:
        view = self.state.view
        if view is None or not 0 <= index < len(view.citations):
            return []
        return view.citations[index].tooltip_lines(self.state.blind)

    # ------------------------------------------------------------------------------ tables

    def on_citation_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._syncing or not current.isValid():
            return
        key = current.data(KEY_ROLE)
        if not key:
            return
        if key[0] == "citation":
            self.activate_citation(key[1])
        elif key[0] == "diagnostic" and self.state.view is not None:
            self.jump_to_diagnostic(key[1])

    def jump_to_diagnostic(self, k: int) -> None:
        """Show answer diagnostic ``k``: its text selected in the raw view (the exact spot), or
        in the rendered answer between the chips around it."""
        assert self.state.view is not None
        d = self.state.view.diagnostics[k]
        answer = self.state.view.case.answer
        message.info(f"{d.code} {d.severity.value}: {' '.join(d.message.split())}",
                     message.KEEP)
        if self.modes.raw_mode:
            self.panes.raw.set_active([(d.start, max(d.end, d.start + 1), "claim")])
            return
        before = [c for c in self.state.view.citations if c.citation.start <= d.start]
        lo = self.panes.answer.chip_range(before[-1].index) if before else None
        start = lo[1] if lo else 0
        found = None
        for needle in _needles(answer[d.start:d.end]):
            found = self.panes.answer.find_in_range(needle, start)
            if found is not None:
                break
        if found is not None:
            self.panes.answer.show_range(found)
        elif lo is not None:
            self.panes.answer.show_range(lo)

    def on_source_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        view = self.state.view
        if self._syncing or not current.isValid() or view is None:
            return
        key = current.data(KEY_ROLE)
        for row in view.sources:
            if key == ("source", row.source_id):
                self.show_source_row(row)
                return

    def show_source_row(self, row: SourceRow) -> None:
        """Show a source of the sources list, its cited lines tinted (no citation active)."""
        assert self.state.view is not None
        if row.source is None:
            self.panes.source.show_source(None, missing_id=row.source_id)
        else:
            self.panes.source.show_source(row.source)
            self.panes.source.set_tints(self.state.view.cited_spans.get(row.source_id, []))

    # ------------------------------------------------------------------------------ cases

    def on_case_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        index = current.data(KEY_ROLE)
        if isinstance(index, int) and index != self.state.case_index:
            self.caseWanted.emit(index)

    def next_case(self) -> None:
        dataset = self.state.dataset
        if dataset is not None and self.state.case_index + 1 < len(dataset):
            self.caseWanted.emit(self.state.case_index + 1)
        elif dataset is not None and self.team is not None and self.team.routed:
            # Past the reviewer's last case in a routed project: the server's next hand-out.
            cid = self.team.next_handout()
            if cid is not None:
                try:
                    index = dataset.index_of(cid)
                except KeyError:
                    return
                if index != self.state.case_index:
                    self.caseWanted.emit(index)

    def previous_case(self) -> None:
        if self.state.dataset is not None and self.state.case_index > 0:
            self.caseWanted.emit(self.state.case_index - 1)

    def goto_case_dialog(self) -> None:
        """Ctrl+G: a case id (completed as you type), a unique prefix of one, or a row
        number."""
        if self.state.dataset is None:
            return
        text = dialogs.ask_case(self.window, self.state.dataset)
        if text is not None and text.strip():
            self.goto_case(text.strip())

    def goto_case(self, text: str) -> bool:
        """Show the case ``text`` names (:func:`resolve_case`); say why when none."""
        if self.state.dataset is None:
            return False
        try:  # an exact id: the dataset's index, not a pass over every id
            index: int | None = self.state.dataset.index_of(text)
            why = ""
        except KeyError:
            index, why = resolve_case(self.state.dataset.case_ids(), text)
        if index is None:
            # A routed team project: another reviewer's case is not listed; say so plainly.
            mine = self.team.not_yours(text) if self.team is not None else None
            message.error(mine or why)
            return False
        self.caseWanted.emit(index)
        return True


def resolve_case(ids: Sequence[str], text: str) -> tuple[int | None, str]:
    """Which case ``text`` names: an exact id; else a bare number is the row number (1 is the
    first case); else the one id it is a prefix of, else the one id that contains it (as the
    completer offers them; case-insensitive). ``(None, why)`` when none or several."""
    exact = [i for i, cid in enumerate(ids) if cid == text]
    if exact:
        return exact[0], ""
    if text.isdigit():
        row = int(text)
        if 1 <= row <= len(ids):
            return row - 1, ""
        return None, f"no case number {row} (the cases are 1\u2013{len(ids)})"
    folded = text.casefold()
    starts = [i for i, cid in enumerate(ids) if cid.casefold().startswith(folded)]
    if len(starts) == 1:
        return starts[0], ""
    shown = safe_title(text, 60)
    found, how = starts, "start with"
    if not starts:  # the completer offers ids that contain the text: take those too
        found = [i for i, cid in enumerate(ids) if folded in cid.casefold()]
        how = "contain"
        if len(found) == 1:
            return found[0], ""
        if not found:
            return None, f"no case id starts with or contains {shown!r}"
    some = ", ".join(safe_title(ids[i], 40) for i in found[:5])
    more = f" and {len(found) - 5} more" if len(found) > 5 else ""
    return None, f"{len(found)} cases {how} {shown!r}: {some}{more}"


__all__ = ["CHIP_MENU", "Navigator", "resolve_case", "select_row"]

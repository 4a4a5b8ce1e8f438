"""Table models of the window: sources, citations + diagnostics, cases.

Every cell is plain text (``Qt.DisplayRole`` strings are never interpreted as rich text by the
item views); tooltips go through :func:`citeview.gui.answer_view.plain_tooltip`. Views sort and
filter through a :class:`QSortFilterProxyModel` on the raw values (:data:`SORT_ROLE`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, overload

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QStyledItemDelegate, QStyleOptionViewItem, QTableView

from citeview.core.diagnostics import Diagnostic, Severity
from citeview.gui.answer_view import plain_tooltip
from citeview.gui.palette import ColorRoles, color_roles
from citeview.gui.state import CaseView, CitationView, SourceRow

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
# What a row stands for: ("citation", index), ("diagnostic", index), ("source", id), case index.
KEY_ROLE = Qt.ItemDataRole.UserRole + 2
# "1" when the proxy's row predicate accepts the row, else "0" (what FilterProxy filters on).
ACCEPT_ROLE = Qt.ItemDataRole.UserRole + 3

_Index = QModelIndex | QPersistentModelIndex
_DISPLAY = Qt.ItemDataRole.DisplayRole.value
_TOOLTIP = Qt.ItemDataRole.ToolTipRole.value
_FOREGROUND = Qt.ItemDataRole.ForegroundRole.value
_SORT = int(SORT_ROLE)
_KEY = int(KEY_ROLE)
_ACCEPT = int(ACCEPT_ROLE)
_SERVED = frozenset({_DISPLAY, _TOOLTIP, _FOREGROUND, _SORT, _KEY, _ACCEPT})



def one_line(text: str, limit: int = 200) -> str:
    """Untrusted text for one table cell: no line breaks, bounded length."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


class _RowsModel(QStandardItemModel):
    """Rows of Python objects, each cell read by :meth:`cell` when painted.

    A ``QStandardItemModel`` with no items: its row and column counts and header texts live in
    C++, so the views and the sort proxy ask Python only for ``data()`` (a table model written
    in Python answered two ``rowCount``/``columnCount`` calls for every cell and role the proxy
    mapped, and ``headerData`` for every header paint: a large part of a case switch).
    """

    HEADERS: tuple[str, ...] = ()
    HEADER_TIPS: tuple[str, ...] = ()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(0, len(self.HEADERS), parent)
        for col, text in enumerate(self.HEADERS):
            item = QStandardItem(text)
            if self.HEADER_TIPS:
                item.setToolTip(self.HEADER_TIPS[col])
            self.setHorizontalHeaderItem(col, item)
        self._rows: Sequence[Any] = []
        self._roles: ColorRoles | None = None
        self._key_rows: dict[Any, int] | None = None  # key -> first row, built on first use
        self.row_filter: Callable[[Any], bool] | None = None  # set by its FilterProxy

    @property
    def roles(self) -> ColorRoles:
        """Colour roles of the current palette (reset by :meth:`palette_changed`)."""
        if self._roles is None:
            self._roles = color_roles()
        return self._roles

    def palette_changed(self) -> None:
        self._roles = None
        if self._rows:
            self.dataChanged.emit(self.index(0, 0),
                                  self.index(len(self._rows) - 1, self.columnCount() - 1))

    def set_rows(self, rows: Sequence[Any]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self._key_rows = None
        # The row count in C++ (empty items): inside a reset its insert signals tell no one.
        blocked = self.blockSignals(True)
        try:
            self.setRowCount(len(self._rows))
        finally:
            self.blockSignals(blocked)
        self.endResetModel()

    def row_of_key(self, key: Any) -> int:
        """The first row whose :data:`KEY_ROLE` is ``key`` (-1: none), without a scan."""
        if self._key_rows is None:
            found: dict[Any, int] = {}
            for r, row in enumerate(self._rows):
                found.setdefault(self.key(row), r)
            self._key_rows = found
        return self._key_rows.get(key, -1)

    def row(self, r: int) -> Any:
        return self._rows[r]

    def text_lengths(self, rows: int) -> tuple[int, ...]:
        """The length of the longest text of each column in the first ``rows`` rows (what
        sizing the columns to their contents reads)."""
        first = self._rows[:rows]
        return tuple(max((len(self.cell(row, col)[0]) for row in first), default=0)
                     for col in range(self.columnCount()))

    def cell(self, row: Any, column: int) -> tuple[str, Any]:
        """(display text, sort value) of a cell."""
        raise NotImplementedError

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # (Painting reads cells through QtRowsDelegate.) Roles not served return at once,
        # compared as ints (comparing with Qt's enums costs microseconds).
        role = int(role)
        if role not in _SERVED or not index.isValid():
            return None
        row = self._rows[index.row()]
        if role == _DISPLAY:
            return self.cell(row, index.column())[0]
        if role == _SORT:
            return self.cell(row, index.column())[1]
        if role == _KEY:
            return self.key(row)
        if role == _ACCEPT:
            return "1" if self.row_filter is None or self.row_filter(row) else "0"
        if role == _TOOLTIP:
            tip = self.tooltip(row)
            return plain_tooltip(tip) if tip else None
        colour = self.colour(row, index.column())
        return QBrush(colour) if colour is not None else None

    def key(self, row: Any) -> Any:
        return None

    def tooltip(self, row: Any) -> list[str]:
        return []

    def colour(self, row: Any, column: int) -> QColor | None:
        return None


class SourcesModel(_RowsModel):
    HEADERS = ("Id", "Kind", "Refs", "Title")
    HEADER_TIPS = ("Source id", "Kind of source", "Citations pointing at this source",
                   "Title or label")

    def cell(self, row: SourceRow, column: int) -> tuple[str, Any]:
        if column == 0:
            return row.source_id, row.source_id
        if column == 1:
            return row.kind, row.kind
        if column == 2:
            return str(row.citations), row.citations
        return one_line(row.title), row.title.casefold()

    def key(self, row: SourceRow) -> Any:
        return ("source", row.source_id)

    def colour(self, row: SourceRow, column: int) -> QColor | None:
        if row.missing:
            return self.roles.problem
        if column == 2 and row.citations == 0:
            return self.roles.muted
        return None

    def tooltip(self, row: SourceRow) -> list[str]:
        if row.missing:
            return [f"{row.source_id}: cited {row.citations}\u00d7 but not in the material"]
        src = row.source
        out = [f"{row.source_id} ({row.kind})"]
        out += [v for v in (getattr(src, "title", None), getattr(src, "url", None)) if v]
        out.append(f"{len(getattr(src, 'lines', []) or [])} lines, cited {row.citations}\u00d7")
        return out


class IssueRow:
    """A row of the citations table: a citation, or a diagnostic no citation explains."""

    __slots__ = ("citation", "diagnostic", "diag_index")

    def __init__(self, citation: CitationView | None = None,
                 diagnostic: Diagnostic | None = None, diag_index: int = -1) -> None:
        self.citation = citation
        self.diagnostic = diagnostic
        self.diag_index = diag_index

    @property
    def position(self) -> int:
        if self.citation is not None:
            return self.citation.citation.start
        assert self.diagnostic is not None
        return self.diagnostic.start


class CitationsModel(_RowsModel):
    """Citations (reading order) interleaved with answer diagnostics not tied to a citation."""

    HEADERS = ("#", "Sources", "Locator", "Status", "Verdict", "Overlap hint", "Diagnostics",
               "Note")
    HEADER_TIPS = ("Citation number, reading order", "Cited source ids", "Locator",
                   "Resolution status", "Your verdict",
                   "Triage hint, never a verdict: share of the claim's content words found in "
                   "the cited text (best source). Paraphrase scores low; negation can score "
                   "high.", "Lint findings", "Your notes on the citation's sources (N)")
    LOCATOR_COLUMN = 2
    VERDICT_COLUMN = 4
    HINT_COLUMN = 5
    DIAGNOSTICS_COLUMN = 6
    NOTE_COLUMN = 7
    blind = False  # hides lint findings and the support hint (agreement studies)

    def set_view(self, view: CaseView | None) -> None:
        if view is None:
            self.set_rows([])
            return
        rows: list[IssueRow] = [IssueRow(c) for c in view.citations]
        attached = {id(d) for c in view.citations for d in c.diagnostics}
        rows += [IssueRow(diagnostic=d, diag_index=k) for k, d in enumerate(view.diagnostics)
                 if id(d) not in attached]
        rows.sort(key=lambda r: (r.position, r.citation is None))
        self.set_rows(rows)

    def cell(self, row: IssueRow, column: int) -> tuple[str, Any]:
        c = row.citation
        if c is None:
            d = row.diagnostic
            assert d is not None
            values: tuple[tuple[str, Any], ...] = (
                ("", 1e12 + d.start), ("", ""), ("", ""),
                (d.severity.value, d.severity.rank), ("", ""), ("", -1.0),
                (one_line(f"{d.code} {d.message}"), d.code), ("", ""),
            )
            return values[column]
        if column == self.NOTE_COLUMN:
            note = " | ".join(n for n in c.notes if n)
            return one_line(note), note.casefold()
        if column == 0:
            return str(c.number), c.number
        if column == 1:
            ids = ", ".join(c.citation.source_ids)
            return ids, ids
        if column == self.LOCATOR_COLUMN:
            text = locator_text(c)
            return text, text
        if column == 3:
            return c.status_text, (c.problem, c.status_text)
        if column == 4:
            text = c.verdict_text
            return text, text
        if column == 5:
            best = c.best_support
            if self.blind or best is None:
                return "", -1.0
            return f"{best:.0%}", best
        if self.blind:
            return "", ""
        codes = " ".join(d.code for d in c.diagnostics)
        if not c.diagnostics:
            return "", ""
        first = c.diagnostics[0]
        more = f" (+{len(c.diagnostics) - 1} more)" if len(c.diagnostics) > 1 else ""
        return one_line(f"{first.code} {first.message}{more}"), codes

    def key(self, row: IssueRow) -> Any:
        if row.citation is not None:
            return ("citation", row.citation.index)
        return ("diagnostic", row.diag_index)

    def colour(self, row: IssueRow, column: int) -> QColor | None:
        c = row.citation
        if c is not None:
            if column == 3 and (c.citation.recovered is not None or not c.analysed.resolved):
                return self.roles.problem
            if column == 6 and c.diagnostics and not self.blind:
                worst = max(d.severity.rank for d in c.diagnostics)
                return self.roles.problem if worst >= Severity.ERROR.rank else self.roles.warning
            return None
        d = row.diagnostic
        assert d is not None
        return (self.roles.problem if d.severity is Severity.ERROR else
                self.roles.warning if d.severity is Severity.WARNING else self.roles.muted)

    def tooltip(self, row: IssueRow) -> list[str]:
        if row.citation is not None:
            return row.citation.tooltip_lines(self.blind)
        d = row.diagnostic
        assert d is not None
        return [f"{d.code} {d.name} ({d.severity.value})", d.message]

    def row_of_citation(self, index: int) -> int:
        return self.row_of_key(("citation", index))

    def refresh_citation(self, index: int) -> None:
        r = self.row_of_citation(index)
        if r >= 0:
            self.dataChanged.emit(self.index(r, 0), self.index(r, self.columnCount() - 1))


class _NumberedIds(Sequence[tuple[int, str]]):
    """``(row, id)`` of a list of ids, made when a row is read."""

    __slots__ = ("_ids", "shown")

    def __init__(self, ids: Sequence[str], shown: int) -> None:
        self._ids = ids
        self.shown = shown  # the rows listed so far (the first ``shown`` ids)

    def __len__(self) -> int:
        return self.shown

    @overload
    def __getitem__(self, index: int) -> tuple[int, str]: ...
    @overload
    def __getitem__(self, index: slice) -> list[tuple[int, str]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, str] | list[tuple[int, str]]:
        if isinstance(index, slice):
            return [(i, self._ids[i]) for i in range(*index.indices(self.shown))]
        if index < 0:
            index += self.shown
        if not 0 <= index < self.shown:
            raise IndexError(index)
        return index, self._ids[index]


#: Case list rows listed per event-loop turn (see :meth:`CasesModel.set_ids`).
LIST_PIECE = 20_000


class CasesModel(_RowsModel):
    """Cases of a dataset: id, question (loaded lazily), review state."""

    HEADERS = ("#", "Case", "State", "Question")
    listed = Signal()  # every row of the last set_ids is listed

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.question_of: Callable[[int], str] | None = None
        self.state_of: Callable[[int], str] | None = None
        # A lead's window on a team project: how many reviewers each case has (by id).
        self.reviewers_of: Callable[[str], int] | None = None
        self._questions: dict[int, str] = {}
        self._more = QTimer(self)  # lists the next piece of a long list
        self._more.setInterval(0)
        self._more.timeout.connect(self._list_more)

    def set_ids(self, ids: Sequence[str]) -> None:
        """List ``ids``: rows are made when read (a million-case list is no million tuples
        made on the GUI thread), the ids' own list kept, not copied. A long list is listed
        :data:`LIST_PIECE` rows at a time from the event loop (rows made in C++ and mapped by
        the sort proxy take a few milliseconds per 20,000: a million at once stalled the
        window); ``listed`` is emitted once every row is there."""
        self._questions = {}
        self._more.stop()
        self.beginResetModel()
        numbered = _NumberedIds(ids, min(len(ids), LIST_PIECE))
        self._rows = numbered
        self._key_rows = None
        blocked = self.blockSignals(True)
        try:
            self.setRowCount(numbered.shown)
        finally:
            self.blockSignals(blocked)
        self.endResetModel()
        if numbered.shown < len(ids):
            self._more.start()
        else:
            self.listed.emit()

    def total(self) -> int:
        """The rows of the last :meth:`set_ids`, listed or still to be."""
        return len(self._rows._ids) if isinstance(self._rows, _NumberedIds) else 0

    def listing(self) -> bool:
        """Whether rows of the last :meth:`set_ids` are still to be listed."""
        return self._more.isActive()

    def list_all(self) -> None:
        """List the rest now (a snapshot, a test: no event loop to wait in)."""
        while self._more.isActive():
            self._list_more()

    def _list_more(self) -> None:
        rows = self._rows
        if not isinstance(rows, _NumberedIds):
            self._more.stop()
            return
        total = len(rows._ids)
        start = rows.shown
        count = min(LIST_PIECE, total - start)
        if count > 0:
            self.beginInsertRows(QModelIndex(), start, start + count - 1)
            blocked = self.blockSignals(True)
            try:
                self.insertRows(start, count)
            finally:
                self.blockSignals(blocked)
            rows.shown = start + count
            self.endInsertRows()
        if rows.shown >= total:
            self._more.stop()
            self.listed.emit()

    def row_of_key(self, key: Any) -> int:
        """A case's key is its row (no table of every row to build)."""
        return key if isinstance(key, int) and 0 <= key < len(self._rows) else -1

    def cell(self, row: tuple[int, str], column: int) -> tuple[str, Any]:
        i, cid = row
        if column == 0:
            return str(i + 1), i
        if column == 1:
            return one_line(cid, 80), cid
        if column == 3:
            q = self._questions.get(i)
            if q is None and self.question_of is not None:
                q = one_line(self.question_of(i), 160)
                self._questions[i] = q
            return q or "", q or ""
        state = self.state_of(i) if self.state_of is not None else ""
        order = _STATE_ORDER.get(state, state)
        if self.reviewers_of is not None:
            n = self.reviewers_of(cid)
            said = f"{n} reviewer{'s' if n != 1 else ''}"
            state = f"{state} \u00b7 {said}" if state else said
        return state, order

    def key(self, row: tuple[int, str]) -> Any:
        return row[0]

    def tooltip(self, row: tuple[int, str]) -> list[str]:
        question = self._questions.get(row[0])  # the whole question (its column is narrow)
        return [row[1], question] if question else [row[1]]

    def refresh_case(self, i: int) -> None:
        if 0 <= i < len(self._rows):
            self.dataChanged.emit(self.index(i, 0), self.index(i, self.columnCount() - 1))


_STATE_ORDER = {"": "0", "not started": "0", "in progress": "1"}


def fit_columns(table: QTableView, max_width: int = 260,
                shares: dict[int, float] | None = None) -> None:
    """Columns sized to their contents but never wider than ``max_width`` (the last one
    stretches), so a long title does not push the table into horizontal scrolling. ``shares``:
    columns that take at most that part of a shown table (the rest is the last column's)."""
    header = table.horizontalHeader()
    if header.stretchLastSection():
        # The last column takes what is left whatever its text: not measured (the case list's
        # questions were 64 cases read and parsed each time the list was sized).
        for col in range(header.count() - 1):
            table.resizeColumnToContents(col)
    else:
        table.resizeColumnsToContents()
    width = table.viewport().width()
    if table.isVisible():  # a narrow list: no column takes more than 40% of it
        max_width = min(max_width, max(60, width * 2 // 5))
    for col in range(header.count() - 1):
        cap = max_width
        if shares and col in shares and table.isVisible():
            cap = min(cap, max(60, int(width * shares[col])))
        if header.sectionSize(col) > cap:
            header.resizeSection(col, cap)


def cell_text_width(table: QTableView, text: str) -> int:
    """The column width that shows ``text`` whole in a cell of ``table`` (the item view's
    text margins on both sides: ``QCommonStyle`` elides within them)."""
    from PySide6.QtWidgets import QStyle

    margin = table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
    return table.fontMetrics().horizontalAdvance(text) + 2 * margin


def locator_text(c: CitationView) -> str:
    """The Locator column's text: a reviewer's relocation shows the old and the new lines."""
    old = c.citation.locator or ""
    return old if c.relocated is None else f"{old or 'whole'} \u2192 {c.relocated}"


def widen_to_fit(table: QTableView, column: int, texts: Sequence[str],
                 max_width: int = 320) -> None:
    """Column ``column`` at least as wide as the widest of ``texts`` (up to ``max_width``):
    a verdict reads whole ("partially supported", not "partially ...")."""
    if not texts:
        return
    needed = min(max_width, max(cell_text_width(table, t) for t in texts) + 4)
    header = table.horizontalHeader()
    if header.sectionSize(column) < needed:
        header.resizeSection(column, needed)


_HAS_DISPLAY = QStyleOptionViewItem.ViewItemFeature.HasDisplay
_TEXT = QPalette.ColorRole.Text


class QtRowsDelegate(QStyledItemDelegate):
    """Paints a :class:`FilterProxy` over a :class:`_RowsModel` from one Python call per cell.

    ``QStyledItemDelegate`` reads seven roles per painted cell, each through the proxy into
    Python's ``data()``; this reads the cell's text and colour from the row at once (what those
    roles say: no font, alignment, check state, decoration or background of its own)."""

    def __init__(self, proxy: QSortFilterProxyModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.proxy = proxy
        self._features: dict[Any, Any] = {}  # features -> features | HasDisplay

    def initStyleOption(self, option: QStyleOptionViewItem,  # noqa: N802
                        index: _Index) -> None:
        model = self.proxy.sourceModel()
        src = self.proxy.mapToSource(index)
        if not isinstance(model, _RowsModel) or not src.isValid():
            super().initStyleOption(option, index)
            return
        option.index = index  # type: ignore[assignment]  # (Qt passes a QModelIndex)
        row = model.row(src.row())
        column = src.column()
        text = model.cell(row, column)[0]
        if text:
            features = option.features
            with_display = self._features.get(features)
            if with_display is None:
                with_display = self._features[features] = features | _HAS_DISPLAY
            option.features = with_display
            option.text = text
        colour = model.colour(row, column)
        if colour is not None:
            palette = option.palette
            palette.setBrush(_TEXT, QBrush(colour))
            option.palette = palette


class FilterProxy(QSortFilterProxyModel):
    """Sorts on :data:`SORT_ROLE` and takes an optional row predicate (issue 7's "not judged" /
    "problems only" filters), read through the model's :data:`ACCEPT_ROLE`."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setSortRole(SORT_ROLE)
        self.setFilterRole(ACCEPT_ROLE)
        self.setFilterKeyColumn(0)
        self.row_filter: Callable[[Any], bool] | None = None

    def index_of_key(self, key: Any) -> QModelIndex:
        """The proxy index of the first row whose key is ``key`` (invalid when it is not there
        or the filter hides it)."""
        model = self.sourceModel()
        r = model.row_of_key(key) if isinstance(model, _RowsModel) else -1
        return self.mapFromSource(model.index(r, 0)) if r >= 0 else QModelIndex()

    def set_row_filter(self, predicate: Callable[[Any], bool] | None) -> None:
        # Qt's own filter asks the model's ACCEPT_ROLE of each row while a predicate is set;
        # with none (an empty pattern) it asks nothing. (A filterAcceptsRow written in Python
        # was called once per row on every reset: a second per 200,000 cases, on the GUI
        # thread.) Each row is asked once: by the new pattern, or by filtering again.
        pattern = "1" if predicate is not None else ""
        same = self.filterRegularExpression().pattern() == pattern
        if same:
            self._begin()
        self.row_filter = predicate
        model = self.sourceModel()
        if isinstance(model, _RowsModel):
            model.row_filter = predicate
        if same:
            self._end()
        else:
            self.setFilterFixedString(pattern)

    def invalidate_rows(self) -> None:
        """Filter again (a verdict or review state the predicate reads has changed)."""
        if self.row_filter is not None:
            self._begin()
            self._end()

    def _begin(self) -> None:
        begin = getattr(self, "beginFilterChange", None)  # Qt 6.10+
        if begin is not None:
            begin()

    def _end(self) -> None:
        end = getattr(self, "endFilterChange", None)
        if end is not None:
            end()
        else:  # pragma: no cover - Qt before 6.10
            self.invalidateFilter()

    def lessThan(self, left: _Index, right: _Index) -> bool:  # noqa: N802
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        try:
            return bool(a < b)
        except TypeError:
            return str(a) < str(b)


"""The window's layout: its panes and tables, the splitters they sit in, the status bar's labels.

Built in two steps because two parts the window makes sit inside it: the panes first (the view
modes and the find bar need them), then, once the filters exist, the tables' boxes holding their
filters and the splitters around everything. Never sees the window class, only a QMainWindow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from citeview.gui.answer_view import AnswerView
from citeview.gui.elided import QtElidedLabel
from citeview.gui.palette import color_roles
from citeview.gui.panes import Panes
from citeview.gui.raw_answer_view import RawAnswerView
from citeview.gui.tables import (
    CasesModel,
    CitationsModel,
    FilterProxy,
    QtRowsDelegate,
    SourcesModel,
)

if TYPE_CHECKING:
    from citeview.gui.source_view import QtSourceView


def _source_view() -> QtSourceView:
    from citeview.gui.source_view import QtSourceView  # Pygments loads with the first window

    return QtSourceView()


class WindowLayout:
    """The window's widgets; ``panes`` is what the parts that fill and move them are given."""

    def __init__(self, window: QMainWindow, synchronous: bool) -> None:
        roles = color_roles(window.palette())
        self.cases_model = CasesModel(window)
        self.cases_proxy = FilterProxy(window)
        self.cases_proxy.setSourceModel(self.cases_model)
        self.cases_table = table(self.cases_proxy, "cases")
        self.cases_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.sources_model = SourcesModel(window)
        self.sources_proxy = FilterProxy(window)
        self.sources_proxy.setSourceModel(self.sources_model)
        self.sources_table = table(self.sources_proxy, "sources")
        self.sources_table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        self.citations_model = CitationsModel(window)
        self.citations_proxy = FilterProxy(window)
        self.citations_proxy.setSourceModel(self.citations_model)
        self.citations_table = table(self.citations_proxy, "citations")

        self.question = QLabel()
        self.question.setTextFormat(Qt.TextFormat.PlainText)
        self.question.setWordWrap(True)
        self.question.setContentsMargins(12, 8, 12, 6)
        self.question.setStyleSheet(f"color: {roles.css('muted')};")
        self.question.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.answer = AnswerView()
        self.answer.set_dark(roles.dark)
        self.answer.setAcceptDrops(False)
        self.raw = RawAnswerView()
        self.raw.setAcceptDrops(False)
        self.answer_stack = QStackedWidget()
        self.answer_stack.addWidget(self.answer)
        self.answer_stack.addWidget(self.raw)

        answer_box = QWidget()
        self._answer_lay = lay = QVBoxLayout(answer_box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(0)
        lay.addWidget(self.question)
        lay.addWidget(self.answer_stack, 1)

        self.source = _source_view()
        self.source.setAcceptDrops(False)
        # A big source fills in pieces from the event loop; a snapshot has no event loop.
        self.source.progressive = not synchronous

        self.split_panes = QSplitter(Qt.Orientation.Horizontal)
        self.split_panes.setObjectName("panes")
        self.split_panes.addWidget(answer_box)
        self.split_panes.addWidget(self.source)
        self.split_panes.setStretchFactor(0, 1)
        self.split_panes.setStretchFactor(1, 1)

        # The shown case's counts, in the header of the table they count (in the status bar
        # they were cut short beside the progress and the session: "0...").
        self.counts_label = QtElidedLabel()
        self.counts_label.setContentsMargins(12, 0, 8, 0)
        self.panes = Panes(
            self.answer, self.raw, self.source, self.question, self.counts_label,
            self.cases_table, self.cases_proxy, self.cases_model,
            self.citations_table, self.citations_proxy, self.citations_model,
            self.sources_table, self.sources_proxy, self.sources_model)

    def add_find_bar(self, bar: QWidget) -> None:
        """The find bar, under the answer."""
        self._answer_lay.addWidget(bar)

    def arrange(self, window: QMainWindow, cases_filter: QComboBox, citations_filter: QComboBox,
                session_label: QWidget) -> None:
        """The tables' boxes with their filters, the splitters, and the status bar's labels."""
        self.split_right = QSplitter(Qt.Orientation.Vertical)
        self.split_right.setObjectName("right")
        self.split_right.addWidget(self.split_panes)
        self.cases_box = boxed(self.cases_table, "Cases", cases_filter)
        self.split_right.addWidget(boxed(self.citations_table, "Citations",
                                         citations_filter, self.counts_label))
        self.split_right.setStretchFactor(0, 4)
        self.split_right.setStretchFactor(1, 1)

        self.split_left = QSplitter(Qt.Orientation.Vertical)
        self.split_left.setObjectName("left")
        self.split_left.addWidget(self.cases_box)
        self.split_left.addWidget(self.sources_table)
        self.cases_box.hide()

        self.split_main = QSplitter(Qt.Orientation.Horizontal)
        self.split_main.setObjectName("main")
        self.split_main.addWidget(self.split_left)
        self.split_main.addWidget(self.split_right)
        self.split_main.setStretchFactor(0, 0)
        self.split_main.setStretchFactor(1, 1)
        self.split_main.setSizes([300, 1100])
        self.split_right.setSizes([560, 200])
        window.setCentralWidget(self.split_main)

        # Permanent labels that give way: the message on the left always has room.
        self.progress_label = QtElidedLabel(share=0.22)  # the review's progress
        self.progress_label.set_detail(
            "Your progress. A citation counts as judged once each of its sources has your "
            "verdict (\u201ccannot tell\u201d included); Review \u25b8 Summary gives the "
            "report's numbers, per cited source.")
        for label in (self.progress_label, session_label):
            window.statusBar().addPermanentWidget(label)
        window.resize(1400, 860)


def recolor(window: QMainWindow, panes: Panes) -> bool:
    """The window's palette changed: recolour the question and the tables; whether the answer
    turned dark or light (its HTML must be rendered again)."""
    roles = color_roles(window.palette())
    panes.question.setStyleSheet(f"color: {roles.css('muted')};")
    for model in (panes.cases_model, panes.sources_model, panes.citations_model):
        model.palette_changed()
    if roles.dark == panes.answer.dark:
        return False
    panes.answer.set_dark(roles.dark)
    return True


def table(model: FilterProxy, name: str) -> QTableView:
    """A read-only, sortable, one-row-selected table of ``model``."""
    t = QTableView()
    t.setObjectName(name)
    t.setModel(model)
    t.setItemDelegate(QtRowsDelegate(model, t))
    t.setSortingEnabled(True)
    t.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
    t.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    t.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    t.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    t.setWordWrap(False)
    t.setAlternatingRowColors(True)
    t.setShowGrid(False)
    t.verticalHeader().hide()
    t.verticalHeader().setDefaultSectionSize(t.fontMetrics().height() + 6)
    header = t.horizontalHeader()
    header.setHighlightSections(False)
    header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
    header.setStretchLastSection(True)
    # Size columns from the first rows only: 10,000 citations must not stall the window.
    header.setResizeContentsPrecision(64)
    t.setAcceptDrops(False)
    return t


def boxed(table: QTableView, title: str, combo: QComboBox,
          detail: QWidget | None = None) -> QWidget:
    """A table with a one-line header holding its filter (and ``detail`` beside its title)."""
    box = QWidget()
    lay = QVBoxLayout(box)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(0)
    head = QHBoxLayout()
    head.setContentsMargins(6, 2, 2, 2)
    label = QLabel(title)
    label.setTextFormat(Qt.TextFormat.PlainText)
    head.addWidget(label)
    if detail is not None:
        head.addWidget(detail, 1)
    else:
        head.addStretch(1)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    head.addWidget(combo)
    lay.addLayout(head)
    lay.addWidget(table, 1)
    return box


__all__ = ["WindowLayout", "boxed", "recolor", "table"]

"""The window's panes and tables, handed together to the parts that drive them.

gui/layout.py builds the widgets, and the window gives this one object to the parts that
fill and move them (the case loader, navigation): they get the widgets they use, not the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel, QTableView

    from citeview.gui.answer_view import AnswerView
    from citeview.gui.elided import QtElidedLabel
    from citeview.gui.raw_answer_view import RawAnswerView
    from citeview.gui.source_view import QtSourceView
    from citeview.gui.tables import CasesModel, CitationsModel, FilterProxy, SourcesModel


@dataclass(slots=True, frozen=True)
class Panes:
    answer: AnswerView
    raw: RawAnswerView
    source: QtSourceView
    question: QLabel  # the case's question above the answer
    counts_label: QtElidedLabel  # the shown case's counts, in the citations table's header
    cases_table: QTableView
    cases_proxy: FilterProxy
    cases_model: CasesModel
    citations_table: QTableView
    citations_proxy: FilterProxy
    citations_model: CitationsModel
    sources_table: QTableView
    sources_proxy: FilterProxy
    sources_model: SourcesModel


__all__ = ["Panes"]

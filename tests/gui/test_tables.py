"""The window's tables: painted from one Python call per cell, exactly as Qt's own delegate
paints them from the model's roles."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QStyledItemDelegate, QTableView

from citeview.core.cases import Case
from citeview.core.datasets import ListDataset
from citeview.gui.readback import is_settled
from citeview.gui.tables import QtRowsDelegate
from tests.conftest import load_sample

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


def grab(table: QTableView) -> bytes:
    image = table.viewport().grab().toImage()
    return bytes(image.constBits())


@pytest.mark.parametrize("sort_column", [None, 3])
def test_each_table_paints_as_qt_delegate_paints_its_roles(qtbot, tmp_path, new_window,
                                                           sort_column) -> None:
    win = new_window(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    win.resize(1400, 860)
    cases = [Case.from_dict(load_sample(n)) for n in
             ("handbook-rule-breaking.case.json", "transit-multi-turn.case.json")]
    win.open_dataset(ListDataset(cases), citation=0)
    qtbot.waitUntil(lambda: is_settled(win), timeout=5000)
    tables = (win.citations_table, win.sources_table, win.cases_table)
    # The case has problem rows (red status), warnings and diagnostics of its own.
    model = win.citations_model
    colours = {model.index(r, c).data(Qt.ItemDataRole.ForegroundRole) is not None
               for r in range(model.rowCount()) for c in range(model.columnCount())}
    assert colours == {True, False}
    for table in tables:
        if sort_column is not None:
            table.sortByColumn(min(sort_column, table.model().columnCount() - 1),
                               Qt.SortOrder.DescendingOrder)
        assert isinstance(table.itemDelegate(), QtRowsDelegate)
        ours = grab(table)
        plain = QStyledItemDelegate(table)
        table.setItemDelegate(plain)
        assert grab(table) == ours, table.objectName()
        table.setItemDelegate(QtRowsDelegate(table.model(), table))

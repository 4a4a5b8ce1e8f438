"""Run under a real X server (see test_real_x_review.py): the window as a new reviewer first
sees it on a screen of the X server's size (no saved geometry), the demo open and four
verdicts given; print what is shown whole and what is cut (JSON).

At 1280x800 the Verdict column showed "partially ..." and "unsuppo...", the status bar "0..."
and "q...", while the offscreen platform's fonts hid it."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from PySide6.QtWidgets import QApplication, QLabel, QTableView

from tests.gui.helpers import opened_on_screen, settle, window_settings


def whole(label: QLabel) -> bool:
    """A one-line label shows its whole text."""
    return label.contentsRect().width() >= label.fontMetrics().horizontalAdvance(label.text())


def column_cut(table: QTableView, column: int) -> list[str]:
    """The texts of ``column`` its width cuts short."""
    from citeview.gui.tables import cell_text_width

    model = table.model()
    width = table.horizontalHeader().sectionSize(column)
    texts = {model.index(r, column).data() or "" for r in range(model.rowCount())}
    return sorted(t for t in texts if t and cell_text_width(table, t) > width)


def share(table: QTableView, column: int) -> float:
    return table.horizontalHeader().sectionSize(column) / max(1, table.viewport().width())


def main() -> None:
    app = QApplication([])
    from citeview.gui.app import demo_path
    from citeview.gui.tables import CitationsModel

    settings = window_settings(Path(tempfile.mkdtemp()), "qa reviewer")
    # First start: sized to the screen.
    win = opened_on_screen(app, str(demo_path()), settings, session=True)
    settle(app, 0.5)
    for k in (0, 1, 2, 1):  # supported, partially supported, unsupported, partially
        win.review.verdict_actions[k].trigger()
        settle(app, 0.3)
    settle(app, 0.8)
    citations = win.citations_table
    rows = citations.verticalHeader().defaultSectionSize()
    out = {
        "window": [win.width(), win.height()],
        "verdicts": [win.citations_model.index(r, CitationsModel.VERDICT_COLUMN).data()
                     for r in range(win.citations_model.rowCount())],
        "verdict_cut": column_cut(citations, CitationsModel.VERDICT_COLUMN),
        "status_cut": column_cut(citations, 3),
        # (the counts paint a shorter form that fits where the whole one would be cut)
        "counts": [win.counts_label.shown_text(),
                   win.counts_label.contentsRect().width() >= win.counts_label.fontMetrics()
                   .horizontalAdvance(win.counts_label.shown_text())
                   and "with a problem" in win.counts_label.shown_text()],
        "progress": [win.progress_label.text(), whole(win.progress_label)],
        "session": [win.review_session.label.text(), whole(win.review_session.label)],
        "question_shown": win.question.isVisible() and win.question.height()
        >= win.question.heightForWidth(win.question.width()),
        "citation_rows": citations.viewport().height() // rows,
        "case_question_share": share(win.cases_table, 3),
        "source_title_share": share(win.sources_table, 3),
    }
    print(json.dumps(out))
    win.close()


if __name__ == "__main__":
    main()

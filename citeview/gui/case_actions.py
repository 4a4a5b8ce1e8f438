"""The shown case out of the window: Save As (the session, or the case as JSON), Copy Answer As,
What the Model Saw, Stream Replay (the File, Edit and View menus' actions on the case)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QWidget

from citeview.gui import dialogs, message
from citeview.gui.exports import save_text
from citeview.gui.untrusted import safe_title

if TYPE_CHECKING:
    from citeview.gui.answer_view import AnswerView
    from citeview.gui.replay import QtStreamReplay
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.window_state import WindowState


class CaseActions(QObject):
    def __init__(self, state: WindowState, review_session: ReviewSession, answer: AnswerView,
                 window: QWidget) -> None:
        super().__init__(window)
        self.state = state
        self.review_session = review_session
        self.answer = answer  # its look (dark or light) for the replay
        self.window = window  # the dialogs' parent

    def save_as_dialog(self) -> None:
        """Save As: the review session (a copy made with SQLite's backup API; work continues in
        the copy), or without a session the current case as case JSON."""
        s = self.review_session.session
        if s is not None:
            path, _ = QFileDialog.getSaveFileName(self.window, "Save Session As", s.path,
                                                  "citeview session (*.citeview)")
            if path:
                if not path.endswith(".citeview"):
                    path += ".citeview"
                self.review_session.save_as(path)
            return
        view = self.state.view
        if view is None:
            return
        path, _ = QFileDialog.getSaveFileName(self.window, "Save Case As", f"{view.case.id}.json",
                                              "Case JSON (*.json)")
        if path:
            self.save_case(path)

    def show_model_input(self) -> dialogs.ModelInputDialog | None:
        """The shown case's question, material as given and instructions (the input's own, or
        the recommended ones, labelled so)."""
        if self.state.view is None:
            return None
        from citeview.core.model_input import model_input

        case = self.state.view.case
        dlg = dialogs.ModelInputDialog(model_input(case).text(),
                                       f"What the model saw \u2014 {safe_title(case.id)}",
                                       self.window)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()
        return dlg

    def show_replay(self) -> QtStreamReplay | None:
        """The shown case's answer replayed as a stream (:mod:`citeview.gui.replay`)."""
        from citeview.gui.replay import open_replay

        return open_replay(self.state, self.window, self.answer.dark)

    def copy_answer(self, fmt: str) -> str:
        """Put the shown answer on the clipboard as clean text, Markdown with numbered
        footnotes (title, URL, locator, cited lines), HTML with links (as rich text, with its
        plain-text form), or raw with its markers (for engineers). Returns what was copied."""
        if self.state.view is None:
            return ""
        from PySide6.QtCore import QMimeData

        from citeview.core.analysis import analyse
        from citeview.core.copyout import render, to_text

        case = self.state.view.case
        if fmt == "raw":
            text = case.answer
            QGuiApplication.clipboard().setText(text)
            message.info("Copied the raw answer (with its markers)")
            return text
        analysed = self.state.view.analysed or analyse(case)
        text = render(analysed, fmt)
        data = QMimeData()
        if fmt == "html":
            data.setHtml(text)
            data.setText(to_text(analysed))
        else:
            data.setText(text)
        QGuiApplication.clipboard().setMimeData(data)
        message.info(f"Copied the answer as {fmt}")
        return text

    def save_case(self, path: str) -> None:
        assert self.state.view is not None
        text = json.dumps(self.state.view.case.to_dict(), ensure_ascii=False, indent=2) + "\n"
        try:  # whole or not at all: a full disk leaves the file that was there
            save_text(path, text)
        except OSError as err:
            message.error(f"{path}: {err.strerror or err}")


__all__ = ["CaseActions"]

"""File ▸ Export and File ▸ Report: the session written out by the functions ``citeview export``
and ``citeview report`` call (:func:`citeview.session.interchange.write_json`,
:func:`citeview.session.rows.write_jsonl` / :func:`~citeview.session.rows.write_csv`,
:func:`citeview.session.report.write_report`), so the window and the command line write the same
files. A file is written whole or not at all (``QSaveFile``); the lint policy of the
``lint_codes`` column is the one ``citeview export`` run in the session's folder finds.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from PySide6.QtCore import QObject, QSaveFile, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QFileDialog

from citeview.core.errors import InputError
from citeview.core.policy import Policy
from citeview.gui import message

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from citeview.gui.review_session import ReviewSession
    from citeview.session.protocol import ReviewStore

# format -> (menu text, file suffix, file dialog filter)
FORMATS = {
    "json": ("Session as &JSON\u2026", ".json", "Session JSON, for citeview import (*.json)"),
    "jsonl": ("Rows as JSON &Lines\u2026", ".jsonl", "One row per citation and source (*.jsonl)"),
    "csv": ("Rows as &CSV\u2026", ".csv", "One row per citation and source (*.csv)"),
    "html": ("Report as &HTML\u2026", ".report.html", "Review report (*.html)"),
}


def _label(fmt: str) -> str:
    """``fmt``'s menu text without its mnemonic and ellipsis ("Rows as CSV")."""
    return FORMATS[fmt][0].replace("&", "").rstrip("\u2026")


def _policy(session: ReviewStore) -> Policy:
    """As ``citeview export`` / ``report`` find it when run in the session's folder."""
    found = Policy.discover(os.path.dirname(os.path.abspath(session.path)))
    return found.merged(families=session.families)


def write(session: ReviewStore, fmt: str, out: IO[str]) -> None:
    """``fmt`` of :data:`FORMATS` written by the commands' own functions."""
    if fmt == "json":
        from citeview.session.interchange import write_json

        write_json(session, out)
    elif fmt in ("jsonl", "csv"):
        from citeview.session.rows import write_csv, write_jsonl

        (write_jsonl if fmt == "jsonl" else write_csv)(session, out, _policy(session))
    elif fmt == "html":
        from citeview.session.report import write_report

        write_report(session, out, "html", _policy(session))
    else:
        raise ValueError(fmt)


class Exporter(QObject):
    """The File menu's Export and Report (tests replace :attr:`ask_path` and
    :attr:`open_url`: no file dialog, no browser)."""

    def __init__(self, review_session: ReviewSession, parent: QWidget) -> None:
        super().__init__(parent)
        self.review_session = review_session
        self.ask_path: Callable[[str, str, str], str] = (
            lambda title, start, pattern: QFileDialog.getSaveFileName(
                parent, title, start, pattern)[0])
        self.open_url: Callable[[QUrl], bool] = QDesktopServices.openUrl

    def session(self) -> ReviewStore | None:
        s = self.review_session.session
        if s is None:
            message.warning("Nothing to export: no review session is open")
        return s

    def export_dialog(self, fmt: str) -> str | None:
        """Ask where, then :meth:`export`; the path written, or None."""
        s = self.session()
        if s is None:
            return None
        _, suffix, pattern = FORMATS[fmt]
        stem = os.path.splitext(s.path)[0]
        path = self.ask_path(_label(fmt), stem + suffix, pattern)
        if not path:
            return None
        return path if self.export(fmt, path) else None

    def export(self, fmt: str, path: str) -> bool:
        """Write the session as ``fmt`` to ``path`` (whole or not at all); told either way."""
        s = self.session()
        if s is None:
            return False
        QGuiApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            buf = io.StringIO(newline="")
            write(s, fmt, buf)
            save_text(path, buf.getvalue())
        except (InputError, OSError) as err:
            what = err.strerror if isinstance(err, OSError) and err.strerror else err
            message.error(f"{path}: not written ({what})")
            return False
        finally:
            QGuiApplication.restoreOverrideCursor()
        message.info(f"Exported {_label(fmt)} to {path}", 10000)
        return True

    def open_report(self) -> str | None:
        """The review report as HTML (``citeview report --format html``), written to a
        temporary folder and opened in the browser; its path, or None."""
        s = self.session()
        if s is None:
            return None
        stem = os.path.splitext(os.path.basename(s.path))[0]
        folder = tempfile.mkdtemp(prefix="citeview-report-")
        path = os.path.join(folder, f"{stem}.report.html")
        if not self.export("html", path):
            return None
        if not self.open_url(QUrl.fromLocalFile(path)):
            message.warning(f"No browser opened the report: it is in {path}", message.KEEP)
        return path


def save_text(path: str, text: str) -> None:
    """``text`` to ``path`` through a ``QSaveFile``: an existing file is replaced only once the
    whole new one is written."""
    f = QSaveFile(path)
    if not f.open(QSaveFile.OpenModeFlag.WriteOnly):
        raise OSError(0, f.errorString())
    data = text.encode("utf-8")
    if f.write(data) != len(data):
        f.cancelWriting()
        raise OSError(0, f.errorString())
    if not f.commit():
        raise OSError(0, f.errorString())


__all__ = ["FORMATS", "Exporter", "save_text", "write"]

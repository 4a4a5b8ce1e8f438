"""The one door from the command line into the GUI.

``citeview`` without a subcommand (:func:`run_gui`), ``citeview open`` (:func:`run_gui_dataset`)
and ``citeview screenshot`` (:func:`snapshot`) start the window through this module; no other
module outside :mod:`citeview.gui` imports the GUI (import-linter contracts in
``pyproject.toml``). Qt is loaded only when a function here runs.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any

from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.core.numbering import index_of
from citeview.gui.app import LOADERS, SESSIONS, demo_path, run_gui, run_gui_dataset


def snapshot(dataset: Dataset, *, path: str | None, case_index: int = 0,
             click: int | None = None, raw: bool = False, size: tuple[int, int] = (1400, 860),
             fmt: str = "png") -> tuple[dict[str, Any], bytes]:
    """Render the window offscreen on case ``case_index`` of ``dataset`` (read from ``path``),
    after activating citation ``click`` (1-based) and switching to the raw view if asked.
    Returns the view state read back from the widgets and the image encoded as ``fmt`` (one
    of :func:`image_formats`). A session shows its verdicts (those of its annotator when there
    is only one)."""
    from citeview.gui.app import application, new_window

    application(offscreen=True)
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QSettings
    from PySide6.QtWidgets import QApplication

    from citeview.gui.readback import MessageLog, view_state

    # A throwaway settings file: a snapshot never depends on (or changes) the user's window.
    with tempfile.TemporaryDirectory() as tmp, MessageLog() as told:
        settings = QSettings(os.path.join(tmp, "s.ini"), QSettings.Format.IniFormat)
        win = new_window(settings, synchronous=True, sessions=SESSIONS, loaders=LOADERS)
        win.resize(*size)
        win.show()
        try:
            session = getattr(dataset, "session", None)
            if session is not None:
                from citeview.gui.review_session import ANNOTATOR_KEY

                # Settings every view reads: damaged ones are one line here, not a traceback
                # from a slot.
                session.labels, session.families, session.blind  # noqa: B018

                names = {x.annotator for x in session.iter_annotations()}
                if len(names) == 1:
                    settings.setValue(ANNOTATOR_KEY, names.pop())
                win.open_session(session, path=path, case_id=dataset.case_ids()[case_index])
            else:
                win.open_dataset(dataset, path=path, case_id=dataset.case_ids()[case_index],
                                 citation=0)
            QApplication.processEvents()
            if win.view is None:
                raise InputError(told.last_error() or "the case could not be shown")
            n = len(win.view.citations)
            if click is not None:
                if click > n:
                    raise InputError(f"--click {click}: the case has {n} citations")
                win.navigator.activate_citation(index_of(click))
            if raw:
                win.set_raw_mode(True)
            QApplication.processEvents()
            win.source.colour_now()
            encoded = QByteArray()
            buffer = QBuffer(encoded)
            buffer.open(QIODevice.OpenModeFlag.WriteOnly)
            # The stubs say bytes for the format; PySide takes only str (6.11).
            if not win.grab().toImage().save(buffer, fmt.upper()):  # type: ignore[call-overload]
                raise InputError(f"cannot encode the image as {fmt.upper()}")
            buffer.close()
            state = view_state(win)
        finally:
            # Closed on every path, errors too: a caller that goes on (tests, a batch of
            # snapshots) must not find this window still open.
            win.close()
            win.deleteLater()
    return state, bytes(encoded.data())


def image_formats() -> list[str]:
    """The image formats Qt can write here, lower case (``png``, ``jpg``, ...)."""
    from citeview.gui.app import application

    application(offscreen=True)  # image plugins are found through the application
    from PySide6.QtGui import QImageWriter

    return sorted(bytes(f.data()).decode("ascii").lower()
                  for f in QImageWriter.supportedImageFormats())


__all__ = ["demo_path", "image_formats", "run_gui", "run_gui_dataset", "snapshot"]

"""Before the first case: what a worker will need made on the GUI thread, and the first imports
made in a worker of their own while the window starts (the window calls both at start-up)."""

from __future__ import annotations

from PySide6.QtGui import QFont


def warm_up_qt(font: QFont) -> None:
    """The Qt classes a worker uses (an answer document with its chips painted, handed to the
    GUI thread) made on the GUI thread. PySide makes a class's enums on their first use, and
    two threads making them at once can fail: a worker painting chips while another made its
    first QBrush got "type object 'QGradient' has no attribute 'Preset'", and the case could
    not be shown."""
    from PySide6.QtCore import QThread

    from citeview.gui.answer_document import gil_free_move, prepare_document
    from citeview.gui.answer_render import Chip, ChipState, chip_html

    chips = chip_html(Chip(1)) + chip_html(Chip(2, ChipState.PROBLEM))
    prepare_document(f"<p><em>warm</em> up{chips}</p>", False, font)
    gil_free_move()  # how a worker hands its document over, looked up (and checked) here
    QThread.Priority.NormalPriority  # noqa: B018 -- made now
    # What the window reads once a big input's session is made (sizing the verdict column):
    # made here, not in that one GUI-thread call (a 60 ms stall while a million cases copy).
    from PySide6.QtWidgets import QStyle

    QStyle.PixelMetric.PM_FocusFrameHMargin  # noqa: B018 -- made now


def warm_up() -> None:
    """The imports and first-use set-ups of analysing and linting a case, rendering its answer
    and guessing a lexer (no Qt class: see :func:`warm_up_qt`)."""
    from citeview.core.analysis import analyse
    from citeview.core.cases import Case
    from citeview.core.markers import DELIMITER, START, STOP
    from citeview.gui.answer_render import render_answer
    from citeview.gui.lexing import guess_lexer

    # With a citation, so that lint's placement rules build their Markdown parsers too.
    cited = f"*Warm* up.{START}cite{DELIMITER}turn0file0{STOP}\n\n- a `list`"
    analyse(Case("warm-up", cited)).lint  # noqa: B018 -- computed now
    render_answer("*warm* up", [], [])
    guess_lexer("warm.py", None, "")
    guess_lexer(None, None, "#!/bin/sh\n")
    import citeview.session.merge  # noqa: F401 -- the review bar asks it when a session opens


__all__ = ["warm_up", "warm_up_qt"]

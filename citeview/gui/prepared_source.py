"""A source made ready to show: its text's offsets and line labels, its lexer, and the document
the source pane fills in pieces. Made in the case loader's worker (:func:`prepare_source`; no
widget here: the ``worker`` import contract) and shown by
:class:`~citeview.gui.source_view.QtSourceView`.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, Any  # Any: a Pygments lexer (untyped)

from PySide6.QtGui import (
    QFont,
    QTextCursor,
    QTextDocument,
    QTextOption,
)
from PySide6.QtWidgets import (
    QWidget,
)

from citeview.core.material import SourceLines
from citeview.gui.highlighting import LazyHighlighter
from citeview.gui.lexing import guess_lexer
from citeview.gui.offsets import DocumentText

if TYPE_CHECKING:
    from citeview.core.material import Source, SourceLine

_LONG_LINE = 5_000
# A span is highlighted once this many characters after it are in the document too (context
# below it when it is centred): a screenful and more.
_CONTEXT_AFTER = 16_000


def status_value(status: object) -> str:
    return str(getattr(status, "value", status))


def line_label(label: object) -> str:
    s = str(label)
    return s if s[:1] in ("L", "l") else f"L{s}"


# --------------------------------------------------------------------------- loaded source


@dataclass(slots=True)
class PreparedSource:
    """A source made ready for display: the look-ups over its text (made anywhere, see
    :func:`prepare_source`) and, once shown, its Qt document, filled in pieces."""

    source: Source
    dtext: DocumentText
    doc: QTextDocument | None = None  # made on the GUI thread when first shown
    filled: int = 0  # characters of ``dtext.qt_text`` in ``doc``
    # Labelled lines sorted by their start in source.text (code points).
    label_starts: Sequence[int] = field(default_factory=list)
    label_lines: Sequence[SourceLine] = field(default_factory=list)  # in label_starts order
    first_label: str | None = None  # block/context label, shown on the first line
    gutter_sample: str = ""  # the widest label, for the gutter width
    lexer_done: bool = False
    lexer: Any = None  # the Pygments lexer guessed (None: plain text), once lexer_done
    lexer_later: bool = False  # a worker guesses it (after the first paint): do not guess here
    long_lines: bool = False  # a line too long to wrap at word boundaries
    highlighter: LazyHighlighter | None = None
    lexer_name: str | None = None

    @classmethod
    def prepare(cls, source: Source, guess: bool = True) -> PreparedSource:
        """Everything but the Qt document (no Qt object: safe in a worker thread)."""
        dtext = DocumentText(source.text, _line_starts(source))
        loaded = cls(source, dtext)
        loaded.long_lines = dtext.longest_line > _LONG_LINE
        kind = status_value(getattr(source, "kind", ""))
        given = getattr(source, "lines", None) or ()
        if kind in ("block", "context") or not given:
            label = getattr(source, "label", None) or (
                source.id if kind in ("block", "context") else None)
            loaded.first_label = str(label) if label else None
            loaded.gutter_sample = loaded.first_label or ""
        else:
            # C-speed passes only: a 200,000-line source must open at once.
            if isinstance(given, SourceLines):  # parsed: in text order, columns already
                loaded.label_starts, loaded.label_lines = given.starts, given
                labels: Sequence[Any] = given.labels
            else:
                lines = list(given)
                starts = list(map(attrgetter("start"), lines))
                if starts != sorted(starts):
                    lines.sort(key=attrgetter("start"))
                    starts = list(map(attrgetter("start"), lines))
                loaded.label_starts = starts
                loaded.label_lines = lines
                labels = list(map(attrgetter("label"), lines))
            try:
                widest: object = max(labels)  # label numbers
            except TypeError:
                widest = max(map(str, labels), key=len)
            loaded.gutter_sample = line_label(widest)
        if guess:
            loaded.guess_lexer()
        return loaded

    def guess_lexer(self) -> None:
        """Choose the Pygments lexer (the first guess imports Pygments' lexers: done in the
        worker when the window prepares the source there)."""
        if self.lexer_done:
            return
        if not self.long_lines:  # minified text: format ranges on one huge line cost seconds
            source = self.source
            self.lexer = guess_lexer(getattr(source, "title", None),
                                     getattr(source, "url", None), source.text)
            self.lexer_name = str(self.lexer.name) if self.lexer is not None else None
        self.lexer_done = True
        self.lexer_later = False

    def make_doc(self, parent: QWidget, font: QFont) -> QTextDocument:
        """The (empty) document (the view gives it its plain-text layout): filled by :meth:`fill`
        once the view shows it (a document filled before its view relays out every block on
        ``setDocument``: 0.3 s for 200,000 lines)."""
        doc = QTextDocument(parent)
        doc.setUndoRedoEnabled(False)
        doc.setDefaultFont(font)
        if self.long_lines:
            option = doc.defaultTextOption()
            option.setWrapMode(QTextOption.WrapMode.WrapAnywhere)
            doc.setDefaultTextOption(option)
        self.doc = doc  # (its plain-text layout, a widget class, is set by the view)
        return doc

    @property
    def complete(self) -> bool:
        return self.doc is not None and self.filled >= len(self.dtext.qt_text)

    def holds(self, position: int) -> bool:
        """Whether the document holds Qt position ``position`` and a screenful of text after
        it (room to centre a span ending there), or all the text."""
        return self.doc is not None and (self.filled > position + _CONTEXT_AFTER
                                         or self.complete)

    def fill(self, limit: int | None = None) -> bool:
        """Put about ``limit`` more characters (all: None) of the text into the document, cut
        after a line break; True once it holds all of it."""
        assert self.doc is not None
        text = self.dtext.qt_text
        n = len(text)
        if self.filled >= n:
            return True
        start = self.filled
        cut = n if limit is None or n - start <= limit else text.find("\n", start + limit)
        cut = n if cut < 0 else min(cut + 1, n)
        if start == 0 and cut == n:
            self.doc.setPlainText(text)
        else:
            cursor = QTextCursor(self.doc)
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text[start:cut])
        self.filled = cut
        return cut >= n

    def label_text(self, i: int) -> str:
        return line_label(self.label_lines[i].label)

    def block_label(self, qt_start: int, qt_end: int) -> str | None:
        """The gutter label of the block spanning Qt positions ``qt_start..qt_end``."""
        if self.first_label is not None:
            return self.first_label if qt_start == 0 else None
        if not self.label_starts:
            return None
        a = self.dtext.from_qt(qt_start)
        b = self.dtext.from_qt(qt_end)
        i = bisect_left(self.label_starts, a)
        if i < len(self.label_starts) and self.label_starts[i] <= b:
            return self.label_text(i)
        return None

    def labels_between(self, start: int, end: int) -> tuple[str, str] | None:
        """First and last label of the lines starting in source offsets ``start..end``
        (inclusive)."""
        if self.first_label is not None:
            return (self.first_label, self.first_label) if start == 0 else None
        i = bisect_left(self.label_starts, start)
        j = bisect_right(self.label_starts, end) - 1
        if i > j or i >= len(self.label_starts):
            return None
        return self.label_text(i), self.label_text(j)


def _line_starts(source: Source) -> Sequence[int] | None:
    """Where the lines of ``source.text`` start, when its parsed lines say so: every line
    labelled (one per line, in text order, breaks all ``\\n``), so the starts of its lines
    are the starts of the text's lines (a 200,000-line source: no second pass over it)."""
    lines = getattr(source, "lines", None)
    if (isinstance(lines, SourceLines) and lines and lines.starts[0] == 0
            and "\r" not in source.text and len(lines) == source.text.count("\n") + 1):
        return lines.starts
    return None


def prepare_source(source: Source, lexer_later: bool = False) -> PreparedSource:
    """A source made ready to show (offsets, labels, lexer), without Qt: the window makes it in
    its worker so that showing a 200,000-line source starts at once. Give it to
    :meth:`QtSourceView.adopt`. ``lexer_later``: the caller guesses the lexer later
    (``prepared.guess_lexer()``, in a worker too) and then calls
    :meth:`QtSourceView.colour_later`."""
    prepared = PreparedSource.prepare(source, guess=not lexer_later)
    prepared.lexer_later = lexer_later and not prepared.lexer_done
    return prepared


def block_range(loaded: PreparedSource, start: int, end: int,
                 last_line_start: int | None = None) -> tuple[int, int]:
    """First and last block numbers of the source span ``start..end``. A span ends before its
    last line's break, so an end at a line's start means that line is an empty last line
    only when ``last_line_start`` says so."""
    dtext = loaded.dtext
    first = dtext.block_of(start)
    if last_line_start is not None:
        last = dtext.block_of(last_line_start)
    else:
        last = dtext.block_of(end)
        if end > start and last > first and dtext.block_of(end - 1) < last:
            last -= 1
    return first, max(first, last)


__all__ = ["PreparedSource", "block_range", "line_label", "prepare_source", "status_value"]

"""The source pane: a source's text with its own line labels, the cited span highlighted.

Everything shown here comes from the material or the model and is untrusted: labels and tooltips
are forced to plain text, the body is a ``QPlainTextEdit``, and the URL opens only on a click and
only for http(s).

Scale: a 200,000-line source must open at once. Per-line work happens only for the blocks on
screen (gutter labels, tints, Pygments colours); the strong highlight is one ``ExtraSelection``;
label look-ups are binary searches over the source's lines. Documents of recently shown sources
are kept, so going back and forth between sources does not rebuild them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import TYPE_CHECKING  # Any: a Pygments lexer (untyped)

from PySide6.QtCore import QEvent, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QDesktopServices,
    QFontDatabase,
    QKeyEvent,
    QMouseEvent,
    QPalette,
    QShowEvent,
    QTextCharFormat,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextDocumentLayout,
    QStackedWidget,
    QTextEdit,
    QVBoxLayout,
    QWidget,
)

from citeview.core.material import SourceLines
from citeview.gui.answer_view import find_wrapping, plain_tooltip
from citeview.gui.elided import QtElidedLabel
from citeview.gui.highlighting import LazyHighlighter, TokenFormats
from citeview.gui.palette import color_roles
from citeview.gui.prepared_source import PreparedSource, block_range, status_value
from citeview.gui.source_text import QtSourceText

if TYPE_CHECKING:
    from citeview.core.material import Source
    from citeview.core.resolution import Target


# Keep the documents of this many recently shown sources (and at most this many characters).
_CACHE_SOURCES = 8
_CACHE_CHARS = 30_000_000
# Filling a document in pieces: the first one at once (a screenful and more), then pieces of
# about _FILL_SECONDS each from the event loop.
_FIRST_PIECE = 64_000
_FILL_SECONDS = 0.025

_STATUS_TITLES = {
    "line-out-of-range": "Line out of range",
    "reversed-range": "Reversed range",
    "line-locator-on-unlined-source": "Line locator on a source without lines",
    "unknown-source": "Source not in the material",
}






def provider_banner(target: Target) -> str | None:
    """What a provider's citation points at, for the banner ("Cites page 2 of 3"); None for a
    marker's target (its lines show in the gutter)."""
    if getattr(target, "unit", None) is None:
        return None
    text = f"Cites {target.detail}" if target.detail else f"Cites {target.where}"
    if target.cited_text and target.unit in ("pages", "blocks", "url"):
        quote = " ".join(target.cited_text.split())
        quote = quote if len(quote) <= 300 else quote[:299] + "\u2026"
        text += f" \u2014 cited text: \u201c{quote}\u201d"
    return text



# --------------------------------------------------------------------------- header


class _LinkLabel(QtElidedLabel):
    """The URL: drawn as a link when it is http(s); activated by a click or Enter/Space."""

    activated = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._clickable = False

    def set_clickable(self, clickable: bool) -> None:
        self._clickable = clickable
        font = self.font()
        font.setUnderline(clickable)
        self.setFont(font)
        self.setCursor(Qt.CursorShape.PointingHandCursor if clickable
                       else Qt.CursorShape.ArrowCursor)
        # Not a Tab stop (Tab moves between the panes): View > Open Source URL (Ctrl+L).
        self.setFocusPolicy(Qt.FocusPolicy.ClickFocus if clickable else Qt.FocusPolicy.NoFocus)

    def is_clickable(self) -> bool:
        return self._clickable

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if (self._clickable and event.button() == Qt.MouseButton.LeftButton
                and self.rect().contains(event.position().toPoint())):
            self.activated.emit()
            return
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self._clickable and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter,
                                               Qt.Key.Key_Space):
            self.activated.emit()
            return
        super().keyPressEvent(event)


def web_url(text: str | None) -> QUrl | None:
    """``text`` as a URL the browser may open: http or https with a host; otherwise None."""
    if not text:
        return None
    url = QUrl(text.strip(), QUrl.ParsingMode.StrictMode)
    if not url.isValid() or url.scheme().lower() not in ("http", "https") or not url.host():
        return None
    return url


# --------------------------------------------------------------------------- the pane


class QtSourceView(QWidget):
    """Header (title, URL, updated date, kind), a banner for problems, and the source text."""

    #: Emitted with the URL after the user asked to open it (and it was handed to the browser).
    urlOpened = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._cache: OrderedDict[tuple[str, int, int], PreparedSource] = OrderedDict()
        self._source: Source | None = None
        self._missing_id: str | None = None
        self._strong_span: tuple[int, int] | None = None  # Qt positions
        self._strong_sel: QTextEdit.ExtraSelection | None = None
        # A reviewer's evidence spans in the shown source (code points): a second colour.
        self._evidence: list[tuple[int, int]] = []
        self._strong_labels: tuple[str, str] | None = None
        self._tint_spans: list[tuple[int, int]] = []
        self._keep_centred: tuple[int, int] | None = None  # block range to keep centred
        # Progressive: a big source is put into its document in pieces from the event loop
        # (the window); otherwise at once (snapshots, widget tests).
        self.progressive = False
        self._pending_target: Target | None = None  # highlighted once the document is full
        self._fill_timer = QTimer(self)
        self._fill_timer.setInterval(0)
        self._fill_timer.timeout.connect(self._fill_some)
        self._piece = _FIRST_PIECE
        self._build()
        self.show_source(None)

    # -- construction ----------------------------------------------------------------------------

    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(0)

        self._header = QFrame(self)
        self._header.setObjectName("sourceHeader")
        self._header.setAutoFillBackground(True)
        hl = QVBoxLayout(self._header)
        hl.setContentsMargins(10, 6, 10, 6)
        hl.setSpacing(2)
        row1 = QHBoxLayout()
        row1.setSpacing(8)
        self._title = QtElidedLabel(self._header)
        tf = self._title.font()
        tf.setBold(True)
        self._title.setFont(tf)
        self._kind = QLabel(self._header)
        self._kind.setTextFormat(Qt.TextFormat.PlainText)
        self._kind.setObjectName("sourceKind")
        row1.addWidget(self._title, 1)
        row1.addWidget(self._kind, 0)
        hl.addLayout(row1)
        row2 = QHBoxLayout()
        row2.setSpacing(12)
        self._url = _LinkLabel(self._header)
        self._url.activated.connect(self.open_url)
        self._updated = QLabel(self._header)
        self._updated.setTextFormat(Qt.TextFormat.PlainText)
        row2.addWidget(self._url, 1)
        row2.addWidget(self._updated, 0)
        hl.addLayout(row2)
        self._meta = QtElidedLabel(self._header)
        hl.addWidget(self._meta)
        outer.addWidget(self._header)

        self._banner = QLabel(self)
        self._banner.setTextFormat(Qt.TextFormat.PlainText)
        self._banner.setWordWrap(True)
        self._banner.setContentsMargins(10, 5, 10, 5)
        self._banner.setAutoFillBackground(True)
        self._banner.hide()
        outer.addWidget(self._banner)

        line = QFrame(self)
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFixedHeight(1)
        self._rule = line
        outer.addWidget(line)

        self._stack = QStackedWidget(self)
        self._text = QtSourceText(self._stack)
        self._text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._text.verticalScrollBar().actionTriggered.connect(self._user_scrolled)
        self._text.relaid.connect(self._rescroll)
        self._message_page = QWidget(self._stack)
        ml = QVBoxLayout(self._message_page)
        ml.setContentsMargins(32, 24, 32, 24)
        ml.setSpacing(8)
        ml.addStretch(2)
        self._headline = QLabel(self._message_page)
        self._message = QLabel(self._message_page)
        for lab in (self._headline, self._message):
            lab.setTextFormat(Qt.TextFormat.PlainText)
            lab.setWordWrap(True)
            lab.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
            ml.addWidget(lab)
        hf = self._headline.font()
        hf.setBold(True)
        hf.setPointSizeF(hf.pointSizeF() * 1.15)
        self._headline.setFont(hf)
        ml.addStretch(3)
        self._stack.addWidget(self._text)
        self._stack.addWidget(self._message_page)
        outer.addWidget(self._stack, 1)
        self._apply_roles()

    def _apply_roles(self) -> None:
        roles = self._text.roles = color_roles(self.palette())
        pal = self._header.palette()
        pal.setColor(QPalette.ColorRole.Window, roles.panel)
        self._header.setPalette(pal)
        for lab in (self._updated, self._meta):
            p = lab.palette()
            p.setColor(QPalette.ColorRole.WindowText, roles.muted)
            lab.setPalette(p)
        self._kind.setStyleSheet(
            f"QLabel#sourceKind {{ color: {roles.css('muted')}; border: 1px solid "
            f"{roles.css('border')}; border-radius: 3px; padding: 0px 5px; }}")
        p = self._rule.palette()
        p.setColor(QPalette.ColorRole.WindowText, roles.border)
        self._rule.setPalette(p)
        self._rule.setStyleSheet(f"background: {roles.css('border')}; border: none;")
        self._style_url()

    def _style_url(self) -> None:
        roles = self._text.roles
        p = self._url.palette()
        p.setColor(QPalette.ColorRole.WindowText,
                   roles.link if self._url.is_clickable() else roles.muted)
        self._url.setPalette(p)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == event.Type.PaletteChange and hasattr(self, "_text"):
            self._apply_roles()
            formats = TokenFormats(self._text.roles.pygments_style)
            for loaded in self._cache.values():
                if loaded.highlighter is not None:
                    loaded.highlighter.restyle(formats)
            if self._source is not None:
                self._fill_header(self._source)
            elif self._stack.currentWidget() is self._message_page:
                self._show_missing(self._missing_id)
            if self._strong_sel is not None:
                self._strong_sel.format.setBackground(self._text.roles.highlight)
            self._apply_selections()

    # -- the contract ----------------------------------------------------------------------------

    def show_source(self, source: Source | None, missing_id: str | None = None) -> None:
        """Show ``source``; None with ``missing_id`` shows the "source not in the material" state
        naming that id; None alone an empty pane."""
        self._clear_highlight()
        self._set_banner(None)
        self._pending_target = None
        self._tint_spans = []
        if source is not self._source:
            self._evidence = []  # another source's spans
        self._text.set_tint_blocks([])
        if source is None:
            self._source = None
            self._missing_id = missing_id
            self._fill_timer.stop()
            self._show_missing(missing_id)
            return
        self._missing_id = None
        if self._source is not source:
            self._source = source
            loaded = self._load(source)
            if self._text.loaded is not None and self._text.loaded.highlighter is not None:
                self._text.loaded.highlighter.detach()
            previous = self._text.loaded
            self._text.loaded = loaded
            # Wrapping at word boundaries is quadratic on a long run without spaces (16 s for a
            # 300,000-character line, measured); such documents wrap anywhere. Set before the
            # document so that it is laid out once.
            self._text.setWordWrapMode(
                QTextOption.WrapMode.WrapAnywhere if loaded.long_lines
                else QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
            if loaded.doc is None:
                doc = loaded.make_doc(self._text, self._text.font())
                doc.setDocumentLayout(QPlainTextDocumentLayout(doc))
                self._text.setDocument(doc)
            else:
                if loaded.doc.defaultFont() != self._text.font():
                    loaded.doc.setDefaultFont(self._text.font())  # zoomed since it was built
                self._text.setDocument(loaded.doc)
            if (previous is not None and previous.doc is not None
                    and all(v is not previous for v in self._cache.values())):
                previous.doc.deleteLater()  # evicted from the cache while it was shown
            self._text.update_gutter_width()
            self._fill_timer.stop()
            if self.progressive and not loaded.complete:
                self._piece = _FIRST_PIECE
                self._fill_some()  # the first screenful now, the rest from the event loop
                if not loaded.complete:
                    self._fill_timer.start()
            else:
                self._fill_done(loaded.fill())
        self._fill_header(source)
        self._stack.setCurrentWidget(self._text)
        self._text.verticalScrollBar().setValue(0)

    def adopt(self, prepared: PreparedSource) -> None:
        """Keep a source prepared elsewhere (:func:`prepare_source`) for when it is shown."""
        key = self._key(prepared.source)
        if key not in self._cache:
            self._cache[key] = prepared
            self._evict()

    def is_loading(self) -> bool:
        """Whether the shown source's document is still being filled."""
        loaded = self._text.loaded
        return self._source is not None and loaded is not None and not loaded.complete

    def finish_loading(self) -> None:
        """Fill the shown source's document now (snapshots, before reading it back)."""
        loaded = self._text.loaded
        if self._source is not None and loaded is not None and not loaded.complete:
            self._fill_timer.stop()
            self._fill_done(loaded.fill())

    def _fill_some(self) -> None:
        loaded = self._text.loaded
        if self._source is None or loaded is None or loaded.doc is None:
            self._fill_timer.stop()
            return
        t0 = time.perf_counter()
        done = loaded.fill(self._piece)
        spent = time.perf_counter() - t0
        # About _FILL_SECONDS per piece: the window stays responsive while it fills.
        if spent > 0:
            self._piece = max(_FIRST_PIECE, min(int(self._piece * _FILL_SECONDS / spent),
                                                4 * self._piece))
        if done:
            self._fill_timer.stop()
            self._fill_done(True)
        elif self._pending_target is not None:
            self.highlight(self._pending_target)  # as soon as its lines are in

    def _fill_done(self, done: bool) -> None:
        """The shown document holds all its text: colour it, highlight what waited for it."""
        loaded = self._text.loaded
        if not done or loaded is None:
            return
        if loaded.highlighter is not None:
            loaded.highlighter.attach()
        elif not loaded.lexer_done or loaded.lexer is not None:
            QTimer.singleShot(0, self._colour_later)
        target, self._pending_target = self._pending_target, None
        if target is not None:
            self.highlight(target)

    def highlight(self, target: Target | None) -> None:
        """Strongly highlight what ``target`` cites and scroll it to the centre (a whole source:
        all of it, top shown). A target with a problem says what is wrong in the banner and
        highlights the lines of the range that exist. None clears the highlight."""
        if target is None:
            self._clear_highlight()
            self._set_banner(None)
            return
        status = status_value(target.status)
        if target.source is None:
            if self._source is not None or self._missing_id != target.source_id:
                self.show_source(None, target.source_id)
            suggestion = getattr(target, "suggestion", None)
            if suggestion:
                self._message.setText(self._message.text().split("\n")[0]
                                      + f"\n\nA source with a close id exists: {suggestion}.")
            return
        if target.source is not self._source or self._missing_id is not None:
            # The same id in a new Source object (the input was reloaded): keep its tints.
            same_id = self._source is not None and self._source.id == target.source.id
            tints = self._tint_spans
            self.show_source(target.source)
            if tints and same_id:
                self.set_tints(tints)
        loaded = self._text.loaded
        assert loaded is not None
        span = target.span
        lines = target.lines or ()  # (a whole source's: not copied)
        if span is None and lines:
            span = (min(ln.start for ln in lines), max(ln.end for ln in lines))
        if not loaded.holds(loaded.dtext.span_to_qt(span)[1] if span is not None else 0):
            # Highlighted as soon as the document holds the span's lines and a screenful
            # after them (see _fill_some), before the rest of a big source is in; until then
            # no other citation's highlight stays.
            if self._strong_span is not None:
                self._clear_highlight()
            self._pending_target = target
            return
        self._pending_target = None
        whole = status == "whole-source"
        if span is None:
            self._clear_highlight()
        else:
            last_start = (lines.starts[-1] if isinstance(lines, SourceLines) and lines
                          else max(ln.start for ln in lines) if lines else None)
            self._text.strong_exact = getattr(target, "unit", None) == "chars"
            self._set_strong(loaded, span, top=whole, last_line_start=last_start)
        if status in ("ok", "whole-source"):
            self._set_banner(provider_banner(target))
        else:
            title = _STATUS_TITLES.get(status, status.replace("-", " ").capitalize())
            msg = f"⚠ {title}: {target.detail}" if target.detail else f"⚠ {title}"
            if span is None and status != "line-locator-on-unlined-source":
                msg += " — nothing to highlight."
            self._set_banner(msg, problem=True)

    def set_tints(self, spans: list[tuple[int, int]]) -> None:
        """Faintly tint the lines of ``spans`` (code points in the shown source's text)."""
        self._tint_spans = list(spans)
        loaded = self._text.loaded
        if loaded is None or self._source is None:
            return
        self._text.set_tint_blocks([block_range(loaded, s, e) for s, e in spans])

    def shown_source(self) -> Source | None:
        return self._source

    def shown_prepared(self) -> PreparedSource | None:
        """The shown source as prepared (its lexer may be guessed elsewhere, see
        :func:`prepare_source`)."""
        return self._text.loaded if self._source is not None else None

    def shown_source_id(self) -> str | None:
        if self._source is None:
            return None
        return str(self._source.id)

    def highlighted_labels(self) -> tuple[str, str] | None:
        """First and last gutter label of the strong highlight (None when nothing labelled is
        highlighted)."""
        return self._strong_labels

    def span_in_view(self) -> bool | None:
        """Whether the strong highlight is on screen (see :meth:`span_on_screen`); None when
        nothing is highlighted."""
        strong = self._text.strong_blocks
        if strong is None or self._strong_span is None or self._source is None:
            return None
        return self._text.span_in_view(*strong)

    def span_on_screen(self) -> dict[str, object]:
        """Where the strong highlight is, read from the viewport's geometry: ``span_in_view``
        (its rows all inside the viewport, or, taller than it, its first row at the top; None
        when nothing is highlighted) and the first and last labels of the lines wholly in
        view (``visible_lines``)."""
        text = self._text
        loaded = text.loaded
        rows = text.visible_rows() if self._source is not None else None
        visible = None
        if rows is not None and loaded is not None:
            doc = text.document()
            fb, lb = doc.findBlockByNumber(rows[0]), doc.findBlockByNumber(rows[1])
            visible = loaded.labels_between(
                loaded.dtext.from_qt(fb.position()),
                loaded.dtext.from_qt(lb.position() + max(lb.length() - 1, 0)))
        return {"span_in_view": self.span_in_view(),
                "visible_lines": list(visible) if visible is not None else None}

    def highlighted_text(self) -> str:
        """The strongly highlighted text as displayed (line breaks as ``\\n``)."""
        if self._strong_sel is None:
            return ""
        return self._strong_sel.cursor.selectedText().replace("\u2029", "\n")

    # -- evidence and the reviewer's selection (code points of the shown source's text) ---------

    def set_evidence(self, spans: list[tuple[int, int]]) -> None:
        """Mark ``spans`` of the shown source as evidence: their characters in the evidence
        colour (not the cited span's), their lines marked in the gutter."""
        spans = sorted(spans)
        if spans == self._evidence:
            return  # painted so already (every activation asks; most citations have none)
        self._evidence = spans
        self._apply_selections()

    def evidence_spans(self) -> list[tuple[int, int]]:
        """The evidence spans shown, as painted: code points read back from the document."""
        loaded = self._text.loaded
        if loaded is None or self._source is None:
            return []
        strong = 1 if self._strong_sel is not None else 0
        return [loaded.dtext.span_from_qt((sel.cursor.selectionStart(), sel.cursor.selectionEnd()))
                for sel in self._text.extraSelections()[strong:]]

    def selected_span(self) -> tuple[int, int] | None:
        """The text selected in the shown source (mouse or keyboard), as code points of its
        text; None when nothing is selected."""
        loaded = self._text.loaded
        if loaded is None or self._source is None:
            return None
        cursor = self._text.textCursor()
        if not cursor.hasSelection():
            return None
        return loaded.dtext.span_from_qt((cursor.selectionStart(), cursor.selectionEnd()))

    def cursor_offset(self) -> int | None:
        """Where the source's caret is (code points), None with no source shown."""
        loaded = self._text.loaded
        if loaded is None or self._source is None:
            return None
        return loaded.dtext.from_qt(self._text.textCursor().position())

    def select_span(self, span: tuple[int, int]) -> None:
        """Select code points ``span`` of the shown source (as a reviewer's drag would)."""
        loaded = self._text.loaded
        if loaded is None or self._source is None:
            return
        a, b = loaded.dtext.span_to_qt(span)
        cursor = self._text.textCursor()
        cursor.setPosition(a)
        cursor.setPosition(b, QTextCursor.MoveMode.KeepAnchor)
        self._text.setTextCursor(cursor)

    def _apply_selections(self) -> None:
        """The cited span's selection, then the evidence spans (painted over it)."""
        loaded = self._text.loaded
        sels: list[QTextEdit.ExtraSelection] = []
        if self._strong_sel is not None:
            sels.append(self._strong_sel)
        blocks: list[tuple[int, int]] = []
        if loaded is not None and loaded.doc is not None and self._source is not None:
            fmt = QTextCharFormat()
            fmt.setBackground(self._text.roles.evidence)
            for start, end in self._evidence:
                a, b = loaded.dtext.span_to_qt((start, end))
                cursor = QTextCursor(loaded.doc)
                cursor.setPosition(a)
                cursor.setPosition(b, QTextCursor.MoveMode.KeepAnchor)
                sel = QTextEdit.ExtraSelection()
                sel.cursor = cursor
                sel.format = fmt
                sels.append(sel)
                blocks.append(block_range(loaded, start, end))
        self._text.evidence_blocks = blocks
        self._text.setExtraSelections(sels)
        self._text.viewport().update()
        self._text.gutter.update()

    def is_missing_state(self) -> bool:
        return self._source is None and self._missing_id is not None

    # -- more read-back and actions for the window ----------------------------------------------

    def text_view(self) -> QtSourceText:
        return self._text

    def banner_text(self) -> str:
        return self._banner.text() if not self._banner.isHidden() else ""

    def message_text(self) -> str:
        """The text of the missing/empty state ('' while a source is shown)."""
        if self._stack.currentWidget() is not self._message_page:
            return ""
        return f"{self._headline.text()}\n{self._message.text()}"

    def header_texts(self) -> dict[str, str]:
        return {"title": self._title.full_text(), "kind": self._kind.text(),
                "url": self._url.full_text(), "updated": self._updated.text(),
                "metadata": self._meta.full_text()}

    def lexer_name(self) -> str | None:
        loaded = self._text.loaded
        return loaded.lexer_name if loaded is not None and self._source is not None else None

    def zoom(self, steps: int) -> None:
        """Make the text bigger (positive) or smaller; the gutter follows."""
        if steps > 0:
            self._text.zoomIn(steps)
        elif steps < 0:
            self._text.zoomOut(-steps)

    def find_text(self, text: str, backward: bool = False) -> bool:
        """Select the next occurrence of ``text`` in the source (wrapping around)."""
        if not text or self._source is None:
            return False
        self._text.textCursor()  # (places a caret still on its way: find starts there)
        return find_wrapping(self._text, text, backward)

    def open_url(self) -> bool:
        """Open the shown source's URL in the browser, if it is http(s)."""
        url = web_url(getattr(self._source, "url", None)) if self._source is not None else None
        if url is None:
            return False
        opened = self.open_external(url)
        if opened:
            self.urlOpened.emit(url.toString())
        return opened

    def open_external(self, url: QUrl) -> bool:
        """Hand ``url`` to the desktop (tests replace this)."""
        return bool(QDesktopServices.openUrl(url))

    def colour_later(self) -> None:
        """Colour the shown source from the event loop (its lexer was just guessed)."""
        QTimer.singleShot(0, self._colour_later)

    def colour_now(self) -> None:
        """Choose the lexer and colour the visible lines now (snapshots do this before
        grabbing; the window otherwise does it from the event loop)."""
        self.finish_loading()
        loaded = self._text.loaded
        if loaded is not None and self._source is not None:
            loaded.guess_lexer()
        self._colour_later()
        loaded = self._text.loaded
        if loaded is not None and loaded.highlighter is not None:
            loaded.highlighter.colour_visible()

    # -- internals -------------------------------------------------------------------------------

    @staticmethod
    def _key(source: Source) -> tuple[str, int, int]:
        return (str(source.id), id(source), hash(source.text))

    def _load(self, source: Source) -> PreparedSource:
        key = self._key(source)
        loaded = self._cache.get(key)
        if loaded is not None and loaded.source is source:
            self._cache.move_to_end(key)
            return loaded
        loaded = PreparedSource.prepare(source, guess=False)  # the lexer: after the first paint
        self._cache[key] = loaded
        self._evict()
        return loaded

    def _evict(self) -> None:
        total = sum(len(v.dtext.qt_text) for v in self._cache.values())
        while len(self._cache) > 1 and (len(self._cache) > _CACHE_SOURCES
                                        or total > _CACHE_CHARS):
            _, old = self._cache.popitem(last=False)
            total -= len(old.dtext.qt_text)
            if old is not self._text.loaded:
                if old.highlighter is not None:
                    old.highlighter.detach()
                    old.highlighter.deleteLater()
                if old.doc is not None:
                    old.doc.deleteLater()

    def _colour_later(self) -> None:
        loaded = self._text.loaded
        if (loaded is None or self._source is None or loaded.highlighter is not None
                or not loaded.complete or (loaded.lexer_later and not loaded.lexer_done)):
            return
        loaded.guess_lexer()
        if loaded.lexer is None:
            return
        loaded.highlighter = LazyHighlighter(self._text, loaded.lexer,
                                             TokenFormats(self._text.roles.pygments_style))

    def _fill_header(self, source: Source) -> None:
        sid = str(source.id)
        title = getattr(source, "title", None) or ""
        self._title.set_full_text(title or sid)
        pal = self._title.palette()
        pal.setColor(QPalette.ColorRole.WindowText, self._text.roles.text)
        self._title.setPalette(pal)
        kind = status_value(getattr(source, "kind", ""))
        label = getattr(source, "label", None)
        kind_text = f"{kind} · {sid}" if kind else sid
        if label and kind in ("block", "context"):
            kind_text = f"{kind} {label} · {sid}" if str(label) != sid else f"{kind} · {sid}"
        self._kind.setText(kind_text)
        self._kind.setToolTip(plain_tooltip([f"source id {sid}"]))
        self._kind.show()
        url = getattr(source, "url", None) or ""
        clickable = web_url(url) is not None
        self._url.set_full_text(url, url if clickable else
                                (f"{url}\n(not an http(s) link: not opened)" if url else ""))
        self._url.set_clickable(clickable)
        self._url.setVisible(bool(url))
        self._style_url()
        meta = list(getattr(source, "metadata", None) or ())
        updated = next((v for k, v in meta if k.casefold() == "updated"), None)
        self._updated.setText(f"Updated {' '.join(updated.split())}" if updated else "")
        self._updated.setVisible(bool(updated))
        shown = {"title", "url", "updated"}
        rest = [(k, v) for k, v in meta if k.casefold() not in shown]
        rest_text = " · ".join(f"{k}: {v}" for k, v in rest)
        self._meta.set_full_text(rest_text, "\n".join(f"{k}: {v}" for k, v in rest))
        self._meta.setVisible(bool(rest))

    def _show_missing(self, missing_id: str | None) -> None:
        roles = self._text.roles
        self._url.hide()
        self._updated.hide()
        self._meta.hide()
        pal = self._title.palette()
        if missing_id is None:
            self._title.set_full_text("No source")
            pal.setColor(QPalette.ColorRole.WindowText, roles.muted)
            self._kind.hide()
            self._headline.setText("No source")
            self._message.setText("Activate a citation in the answer to see what it points at.")
            hp = self._headline.palette()
            hp.setColor(QPalette.ColorRole.WindowText, roles.muted)
        else:
            self._title.set_full_text(f"⚠ Source not in the material: {missing_id}")
            pal.setColor(QPalette.ColorRole.WindowText, roles.problem)
            self._kind.setText("missing")
            self._kind.show()
            self._headline.setText("⚠ Source not in the material")
            self._message.setText(
                f"The answer cites “{missing_id}”, but no source with this id was given to the "
                "model, so there is nothing to show or check. The id may be invented or "
                "mistyped.")
            hp = self._headline.palette()
            hp.setColor(QPalette.ColorRole.WindowText, roles.problem)
        mp = self._message.palette()
        mp.setColor(QPalette.ColorRole.WindowText, roles.muted if missing_id is None
                    else roles.text)
        self._title.setPalette(pal)
        self._headline.setPalette(hp)
        self._message.setPalette(mp)
        self._stack.setCurrentWidget(self._message_page)

    def _set_banner(self, text: str | None, problem: bool = False) -> None:
        if not text:
            self._banner.hide()
            self._banner.setText("")
            return
        roles = self._text.roles
        pal = self._banner.palette()
        pal.setColor(QPalette.ColorRole.Window, roles.problem_bg if problem else roles.panel)
        pal.setColor(QPalette.ColorRole.WindowText, roles.problem if problem else roles.text)
        self._banner.setPalette(pal)
        self._banner.setText(text)
        self._banner.show()

    def _clear_highlight(self) -> None:
        self._text._caret_block = None
        self._strong_span = None
        self._strong_labels = None
        self._keep_centred = None
        self._text.strong_blocks = None
        self._strong_sel = None
        self._apply_selections()

    def _set_strong(self, loaded: PreparedSource, span: tuple[int, int], top: bool,
                    last_line_start: int | None = None) -> None:
        a, b = loaded.dtext.span_to_qt(span)
        strong = self._text.strong_blocks
        if (self._strong_span == (a, b) and strong is not None
                and self._keep_centred == ((0, -1) if top else strong)
                and (top or self._text.span_in_view(*strong))):
            # Highlighted and in view already (the first phase showed the case's first
            # citation; activating it again when the case is built changes nothing).
            return
        doc = loaded.doc
        assert doc is not None  # highlighted once shown and filled
        cursor = QTextCursor(doc)
        cursor.setPosition(a)
        cursor.setPosition(b, QTextCursor.MoveMode.KeepAnchor)
        sel = QTextEdit.ExtraSelection()
        sel.cursor = cursor
        fmt = QTextCharFormat()
        fmt.setBackground(self._text.roles.highlight)
        sel.format = fmt
        self._strong_sel = sel
        self._apply_selections()
        first, last = block_range(loaded, span[0], span[1], last_line_start)
        self._strong_span = (a, b)
        self._text.strong_blocks = (first, last)
        fb, lb = doc.findBlockByNumber(first), doc.findBlockByNumber(last)
        self._strong_labels = loaded.labels_between(
            loaded.dtext.from_qt(fb.position()),
            loaded.dtext.from_qt(lb.position() + lb.length() - 1))
        self._keep_centred = (first, last) if not top else (0, -1)
        self._scroll_to_highlight()
        self._text.gutter.update()

    def _scroll_to_highlight(self) -> None:
        if self._keep_centred is None:
            return
        first, last = self._keep_centred
        text = self._text
        if last < 0:
            text.caret_later(0)
            text.verticalScrollBar().setValue(0)
            return
        text.show_rows(first, last)
        text.caret_later(first)

    def _user_scrolled(self, *_: object) -> None:
        self._keep_centred = None

    def _rescroll(self) -> None:
        """The text was laid out anew: the span it keeps centred is brought back in view."""
        if self._keep_centred is not None:
            self._scroll_to_highlight()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._keep_centred is not None:
            self._scroll_to_highlight()


__all__ = ["QtSourceText", "QtSourceView", "web_url"]

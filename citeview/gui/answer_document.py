"""The answer document: the rendered answer's HTML parsed into a ``QTextDocument`` that loads
nothing, its chips found and painted (:class:`ChipPainter`). Built in the case loader's worker
(``QTextDocument`` is reentrant; no widget here: the ``worker`` import contract) and handed to
the answer pane (:class:`~citeview.gui.answer_view.AnswerView`).
"""

from __future__ import annotations

import html
import re
from bisect import bisect_left, bisect_right

from PySide6.QtCore import (
    QCoreApplication,
    QUrl,
)
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QTextBlock,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextLayout,
)

from citeview.core.text import Utf16Map
from citeview.gui.answer_render import (
    CHIP_KEY,
    CHIP_SCHEME,
    FLAG_CLASS,
    ChipFound,
    RenderedAnswer,
    chip_colours,
    problem_colour,
    stylesheet,
    text_spaces,
)


class _SafeDocument(QTextDocument):
    """A document that never loads a resource (no image, no stylesheet, nothing remote)."""

    def loadResource(self, type: int, name: QUrl | str) -> object:  # noqa: A002, N802
        return None


class ChipPainter:
    """Paints each chip's look (its state's or verdict's colours, bold; the red problem mark)
    as its block's additional formats (what a QSyntaxHighlighter sets, without one's whole-
    document passes at every layout change): over the document's plain text, so Qt's HTML
    import styles no tag per chip (that took longer than all the rest of a 10,000-chip answer).

    ``chips`` are the chips' Qt ranges (shared with the view, kept up to date by it) and
    ``styles`` their looks (:func:`style_of`)."""

    def __init__(self, chips: list[tuple[int, int]], styles: list[tuple[str, int]],
                 dark: bool) -> None:
        self.chips = chips
        self.styles = styles
        self.dark = dark
        # Chip indices by position: reading order, unless a provider's claims are not.
        valid = [i for i, (s, _) in enumerate(chips) if s >= 0]
        if any(chips[a][0] >= chips[b][0] for a, b in zip(valid, valid[1:], strict=False)):
            valid.sort(key=lambda i: chips[i][0])
        self.order = valid
        self._formats: dict[tuple[str, bool, bool], QTextCharFormat] = {}

    def _format(self, key: str, mark: bool) -> QTextCharFormat:
        cached = self._formats.get((key, mark, self.dark))
        if cached is None:
            bg, fg = chip_colours(key, self.dark)
            cached = QTextCharFormat()
            cached.setBackground(QBrush(QColor(bg)))
            cached.setForeground(QBrush(QColor(problem_colour(self.dark) if mark else fg)))
            cached.setFontWeight(600)
            cached.setFontUnderline(False)
            self._formats[(key, mark, self.dark)] = cached
        return cached

    def chip_at(self, position: int) -> int | None:
        """The chip whose range holds Qt ``position``, or None."""
        chips, order = self.chips, self.order
        k = bisect_right(order, position, key=lambda i: chips[i][0]) - 1
        if k >= 0 and chips[order[k]][0] <= position < chips[order[k]][1]:
            return order[k]
        return None

    def paint_block(self, block: QTextBlock) -> None:
        """Set the looks of the chips in ``block`` (the caller has Qt lay it out again)."""
        chips, order = self.chips, self.order
        k = bisect_left(order, block.position(), key=lambda i: chips[i][0])
        self._paint(block, k)

    def _paint(self, block: QTextBlock, k: int) -> int:
        """Set the looks of the chips in ``block`` from ``order[k]`` (the first in it, if any
        is); the order's position after them."""
        start = block.position()
        end = start + block.length()
        chips, order, styles = self.chips, self.order, self.styles
        ranges = []
        n = len(order)
        while k < n:
            index = order[k]
            s, e = chips[index]
            if s >= end:
                break
            key, mark = styles[index]
            base = self._format(key, False)
            if mark < 0:
                ranges.append(_range(s - start, e - s, base))
            else:  # the red mark between two runs of the chip's own colours
                ranges.append(_range(s - start, mark, base))
                ranges.append(_range(s - start + mark, 1, self._format(key, True)))
                ranges.append(_range(s - start + mark + 1, e - s - mark - 1, base))
            k += 1
        block.layout().setFormats(ranges)
        return k

    def paint_all(self, document: QTextDocument) -> None:
        """Every chip's look, block by block (a new document, or another palette): the chips
        in reading order, each block found once."""
        chips, order = self.chips, self.order
        k = 0
        while k < len(order):
            k = self._paint(document.findBlock(chips[order[k]][0]), k)


def _range(start: int, length: int, fmt: QTextCharFormat) -> QTextLayout.FormatRange:
    r = QTextLayout.FormatRange()
    r.start = start
    r.length = length
    r.format = fmt
    return r


def style_of(cls: str, text: str) -> tuple[str, int]:
    """A chip's look from its class (:func:`citeview.gui.answer_render.chip_class`) and label:
    (state or verdict tone, offset of the red problem mark in the chip or -1)."""
    flagged = cls.endswith(FLAG_CLASS)
    key = CHIP_KEY.get(cls[:-1] if flagged else cls, CHIP_KEY[""])
    mark = text.find("!") if flagged else -1
    return key, (1 + len(text[:mark].encode("utf-16-le")) // 2) if mark >= 0 else -1


class PreparedDocument:
    """A rendered answer document, its chips' positions and their painter, ready for
    :class:`AnswerView`."""

    __slots__ = ("chips", "document", "painter")

    def __init__(self, document: QTextDocument, chips: list[tuple[int, int]],
                 painter: ChipPainter) -> None:
        self.document = document
        self.chips = chips
        self.painter = painter


def prepare_document(body_html: str | RenderedAnswer, dark: bool, font: QFont | str
                     ) -> PreparedDocument:
    """Parse the answer HTML into a document, find its chips and paint them. Safe in a worker
    thread (QTextDocument is reentrant): the costly parse of a huge answer stays off the GUI
    thread. The document is handed over to the GUI thread's ownership.

    Chips are found without anchors in the document: each chip's label stands between two
    no-break spaces, so once the chips' anchors are taken out of the HTML, the n-th no-break
    space of the HTML's text is the n-th of the document's. Where the document does not bear
    that out (a model's own no-break spaces where Qt reads them otherwise), the anchors stay
    in and the chips are found by them. ``body_html``: the HTML of
    :func:`~citeview.gui.answer_render.render_answer`, or its pieces
    (:func:`~citeview.gui.answer_render.render_parts`: the chips known without a search)."""
    doc = _SafeDocument()
    if isinstance(font, str):
        f = QFont()
        f.fromString(font)
        font = f
    doc.setDefaultFont(font)
    doc.setDocumentMargin(12)
    doc.setUndoRedoEnabled(False)
    doc.setDefaultStyleSheet(stylesheet(dark))
    if isinstance(body_html, RenderedAnswer):
        stripped, found = body_html.html, body_html.found
    else:
        stripped, found = _strip_chips(body_html)
    doc.setHtml(stripped)
    chips = _chips_by_spaces(doc, found)
    if chips is None:
        doc.setHtml(body_html.anchored() if isinstance(body_html, RenderedAnswer)
                    else body_html)
        chips = _find_chips(doc)
    styles = [(CHIP_KEY[""], -1)] * len(chips)
    for index, _, cls, text in found:
        if cls and index < len(styles):  # (no class: the default look)
            styles[index] = style_of(cls, text)
    painter = ChipPainter(chips, styles, dark)
    painter.paint_all(doc)  # no layout yet: the view's first layout takes them in
    # Setting a block's formats marks it changed; with no layout to tell, the change stays
    # pending and came out whole at the first edit (a verdict laid out the whole document
    # again: 70 ms for 10,000 chips). An empty edit lets it go now, unseen.
    flush = QTextCursor(doc)
    flush.beginEditBlock()
    flush.endEditBlock()
    app = QCoreApplication.instance()
    if app is not None and doc.thread() is not app.thread():
        doc.moveToThread(app.thread())
    return PreparedDocument(doc, chips, painter)


_CHIP_TAG_RE = re.compile(f'<a href="{CHIP_SCHEME}:(\\d+)"(?: class="([a-z]*)")?>([^<]*)</a>')

def _strip_chips(body_html: str) -> tuple[str, list[ChipFound]]:
    """The HTML without the chips' anchors (their text kept), and the chips it held."""
    found: list[ChipFound] = []
    pieces: list[str] = []
    pos = 0
    spaces = 0  # no-break spaces in the HTML's text so far
    for m in _CHIP_TAG_RE.finditer(body_html):
        between = body_html[pos:m.start()]
        spaces += text_spaces(between)
        inner = m.group(3)
        label = html.unescape(inner).strip("\u00a0")
        found.append((int(m.group(1)), spaces, m.group(2) or "", label))
        spaces += inner.count("\u00a0")
        pieces.append(between)
        pieces.append(inner)
        pos = m.end()
    pieces.append(body_html[pos:])
    return "".join(pieces), found


def _chips_by_spaces(doc: QTextDocument, found: list[ChipFound]
                     ) -> list[tuple[int, int]] | None:
    """Chip positions from the document's no-break spaces (see :func:`prepare_document`), or
    None when the document's do not match the HTML's: a chip's two spaces must be there, in
    order, around its label."""
    raw = doc.toRawText()
    spaces = [m.start() for m in _NBSP_RE.finditer(raw)]
    ordinals = [f[1] for f in found]
    indices = [f[0] for f in found]
    if ordinals and (ordinals[-1] + 1 >= len(spaces) or len(set(indices)) != len(indices)
                     or any(b <= a + 1 for a, b in zip(ordinals, ordinals[1:], strict=False))):
        return None
    starts = [spaces[o] for o in ordinals]
    ends = [spaces[o + 1] for o in ordinals]
    if [raw[s + 1:e] for s, e in zip(starts, ends, strict=True)] != [f[3] for f in found]:
        return None
    chips = [(-1, -1)] * (max(indices, default=-1) + 1)
    for index, s, e in zip(indices, starts, ends, strict=True):
        chips[index] = (s, e + 1)
    if not raw.isascii() and len(raw.encode("utf-16-le")) != 2 * len(raw):
        u16 = Utf16Map(raw)
        chips = [(u16.to_utf16(s), u16.to_utf16(e)) if s >= 0 else (s, e) for s, e in chips]
    return chips


_NBSP_RE = re.compile("\u00a0")


def _find_chips(doc: QTextDocument) -> list[tuple[int, int]]:
    """Qt (start, end) of chip i at index i ((-1, -1) if absent), by their anchors."""
    found: dict[int, tuple[int, int]] = {}
    prefix = CHIP_SCHEME + ":"
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            href = frag.charFormat().anchorHref()
            if href.startswith(prefix):
                i = int(href[len(prefix):])
                s, e = frag.position(), frag.position() + frag.length()
                prev = found.get(i)
                found[i] = (prev[0], e) if prev else (s, e)
            it += 1
        block = block.next()
    return [found.get(i, (-1, -1)) for i in range(max(found, default=-1) + 1)]


__all__ = ["ChipPainter", "PreparedDocument", "prepare_document", "style_of"]

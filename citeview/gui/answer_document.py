"""The answer document: the rendered answer's HTML parsed into a ``QTextDocument`` that loads
nothing, its chips found and painted (:class:`ChipPainter`). Built in the case loader's worker
(``QTextDocument`` is reentrant; no widget here: the ``worker`` import contract) and handed to
the answer pane (:class:`~citeview.gui.answer_view.AnswerView`) on the GUI thread, moved there
with the GIL released (:func:`gil_free_move`).
"""

from __future__ import annotations

import ctypes
import html
import os
import re
import sys
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Callable

import shiboken6
from PySide6.QtCore import (
    QCoreApplication,
    QLibraryInfo,
    QUrl,
    qVersion,
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
    :class:`AnswerView`. Read on the GUI thread: one made by :meth:`later` is built there, at
    its first read."""

    __slots__ = ("_parts", "_source")

    def __init__(self, document: QTextDocument, chips: list[tuple[int, int]],
                 painter: ChipPainter) -> None:
        self._parts: tuple[QTextDocument, list[tuple[int, int]], ChipPainter] | None = (
            document, chips, painter)
        self._source: tuple[str | RenderedAnswer, bool, QFont | str] | None = None

    @classmethod
    def later(cls, body_html: str | RenderedAnswer, dark: bool, font: QFont | str
              ) -> PreparedDocument:
        """What :func:`prepare_document` makes from these, made on the GUI thread when first
        read (a worker that cannot hand a document over without the GIL makes no Qt object)."""
        prepared = cls.__new__(cls)
        prepared._parts = None
        prepared._source = (body_html, dark, font)
        return prepared

    def _built(self) -> tuple[QTextDocument, list[tuple[int, int]], ChipPainter]:
        if self._parts is None:
            assert self._source is not None
            app = QCoreApplication.instance()
            if app is not None and not app.thread().isCurrentThread():
                raise RuntimeError("an answer document deferred to the GUI thread was read "
                                   "in another thread")
            self._parts = _build(*self._source)
            self._source = None
        return self._parts

    @property
    def document(self) -> QTextDocument:
        return self._built()[0]

    @property
    def chips(self) -> list[tuple[int, int]]:
        return self._built()[1]

    @property
    def painter(self) -> ChipPainter:
        return self._built()[2]


def prepare_document(body_html: str | RenderedAnswer, dark: bool, font: QFont | str
                     ) -> PreparedDocument:
    """Parse the answer HTML into a document, find its chips and paint them. Safe in a worker
    thread (QTextDocument is reentrant): the costly parse of a huge answer stays off the GUI
    thread. The document is handed over to the GUI thread's ownership, with the GIL released
    (:func:`gil_free_move`; where that cannot be done, it is built on the GUI thread instead,
    when first read: :meth:`PreparedDocument.later`).

    Chips are found without anchors in the document: each chip's label stands between two
    no-break spaces, so once the chips' anchors are taken out of the HTML, the n-th no-break
    space of the HTML's text is the n-th of the document's. Where the document does not bear
    that out (a model's own no-break spaces where Qt reads them otherwise), the anchors stay
    in and the chips are found by them. ``body_html``: the HTML of
    :func:`~citeview.gui.answer_render.render_answer`, or its pieces
    (:func:`~citeview.gui.answer_render.render_parts`: the chips known without a search)."""
    app = QCoreApplication.instance()
    gui = app.thread() if app is not None else None
    if gui is None or gui.isCurrentThread():
        return PreparedDocument(*_build(body_html, dark, font))
    move = gil_free_move()
    if move is None:
        return PreparedDocument.later(body_html, dark, font)
    parts = _build(body_html, dark, font)
    if not move(parts[0], gui):
        raise RuntimeError("the answer document could not be handed to the GUI thread")
    return PreparedDocument(*parts)


def _build(body_html: str | RenderedAnswer, dark: bool, font: QFont | str
           ) -> tuple[QTextDocument, list[tuple[int, int]], ChipPainter]:
    """The document, its chips and their painter (see :func:`prepare_document`), in the
    calling thread."""
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
    return doc, chips, painter


# -- handing a document over to the GUI thread ------------------------------------------------
#
# PySide's QObject.moveToThread calls Qt holding the GIL, and QObject::moveToThread locks the
# object's signal-slot mutex (one of a pool of 131 shared by all objects, by address: unrelated
# objects share one) and both threads' posted-event mutexes. The GUI thread takes that pool's
# mutexes with the GIL released and then waits for the GIL under them: PySide disconnects a dead
# Python receiver's connections outside the GIL, and QObject::disconnect calls the sender's
# disconnectNotify under the lock, where the wrapper of an object made in Python takes the GIL to
# look for an override (Qt deleting a QObject does the same). A worker moving its document
# waited for that mutex holding the GIL the GUI thread waited for: a CI run hung there.
#
# So the worker calls Qt's own QObject::moveToThread through ctypes, which releases the GIL for
# the call: waiting for a lock, it holds nothing the GUI thread needs. The ThreadChange events
# the move sends first (which may run Python, taking the GIL back) go out before it takes any
# lock. Making the document is safe as it is: a new document's objects take none of these
# mutexes (no connection, no posted event), only the move does.
#
# Not chosen: making the document on the GUI thread (35 ms of a 10,000-chip answer's first
# paint, what the worker is there to take off it: only the fallback); a handshake moving it
# while the GUI thread waits at a known point (every case would make the GUI thread wait for a
# worker's turn at the GIL, and any GUI wait on a worker, shutdown's included, would deadlock).
#
# The symbol is looked up in the Qt already loaded (never a second copy) and checked once by
# moving an object of its own; where that fails (a platform or Qt build not foreseen here) no
# worker makes a document: PreparedDocument.later builds it on the GUI thread.

# move(obj, thread): a QObject (here a document) and a QThread (the GUI thread's, or None). (This
# module names neither class: the ``worker`` import contract.)
_MoveToThread = Callable[[QTextDocument, "shiboken6.Object | None"], bool]

# QObject::moveToThread(QThread*) (kept for binary compatibility by Qt 6.7 and later, whose own
# adds an empty tag argument), as the Itanium C++ ABI (Linux, macOS) and MSVC (Windows) name it.
_ITANIUM_SYMBOL = "_ZN7QObject12moveToThreadEP7QThread"
_MSVC_SYMBOL = "?moveToThread@QObject@@QEAAXPEAVQThread@@@Z"

_move_lock = threading.Lock()
_move_found: list[_MoveToThread | None] = []  # once looked up: the function, or None


def gil_free_move() -> _MoveToThread | None:
    """``move(obj, thread)``: Qt's ``QObject::moveToThread`` called with the GIL released, or
    None where it cannot be (see above). Looked up at the first call (the window does it on the
    GUI thread at start-up: :func:`~citeview.gui.warm_up.warm_up_qt`)."""
    with _move_lock:
        if not _move_found:
            _move_found.append(_look_up_move())
        return _move_found[0]


def _look_up_move() -> _MoveToThread | None:
    try:
        lib = _loaded_qt_core()
        if lib is None:
            return None
        fn = getattr(lib, _MSVC_SYMBOL if sys.platform == "win32" else _ITANIUM_SYMBOL)
    except (AttributeError, OSError, ValueError):
        return None
    fn.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
    # The symbol kept for binary compatibility returns nothing (it jumps to the bool overload
    # on x86-64 Linux, but that is no contract): the move is read back from the object instead.
    fn.restype = None

    def move(obj: QTextDocument, thread: shiboken6.Object | None) -> bool:
        # (ctypes releases the GIL for the call: a CDLL function, not a PyDLL one.) A C++
        # object already deleted is refused as PySide refuses it: its address is no object.
        if not shiboken6.isValid(obj) or (thread is not None and not shiboken6.isValid(thread)):
            raise RuntimeError("moveToThread: the C++ object was already deleted")
        target = _address(thread) if thread is not None else None
        fn(_address(obj), target)
        now = obj.thread()  # (QObject::thread reads the object's thread data: no lock)
        return (now is None) if target is None else (now is not None and _address(now) == target)

    # Checked on an object of its own: moved to no thread (the one move any thread may make),
    # it must say so, and Qt too.
    probe = QTextDocument()
    try:
        if move(probe, None) and probe.thread() is None:
            return move
    except (ctypes.ArgumentError, OSError, TypeError):
        pass
    return None


def _address(obj: shiboken6.Object) -> int:
    """The address of the C++ object (QObject is the first base of QTextDocument and QThread:
    that of the QObject too)."""
    return int(shiboken6.getCppPointer(obj)[0])


def _loaded_qt_core() -> ctypes.CDLL | None:
    """The Qt Core library this process has loaded (PySide's), or None: never loaded anew."""
    major = qVersion().split(".")[0]
    if sys.platform == "win32":
        kernel32 = ctypes.WinDLL("kernel32")
        kernel32.GetModuleHandleW.argtypes = (ctypes.c_wchar_p,)
        kernel32.GetModuleHandleW.restype = ctypes.c_void_p
        name = f"Qt{major}Core.dll"
        handle = kernel32.GetModuleHandleW(name)
        return ctypes.CDLL(name, handle=handle) if handle else None
    no_load = getattr(os, "RTLD_NOLOAD", 0)
    if not no_load:
        return None
    names = [f"libQt{major}Core.so.{major}"]
    if sys.platform == "darwin":
        libs = QLibraryInfo.path(QLibraryInfo.LibraryPath.LibrariesPath)
        names = [os.path.join(libs, "QtCore.framework", "Versions", "A", "QtCore"),
                 os.path.join(libs, "QtCore.framework", "QtCore"),
                 os.path.join(libs, f"libQt{major}Core.{major}.dylib")]
        names += [os.path.realpath(n) for n in names]
    for name in names:
        try:
            return ctypes.CDLL(name, mode=no_load | getattr(os, "RTLD_LAZY", 1))
        except OSError:
            continue
    return None


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


__all__ = ["ChipPainter", "PreparedDocument", "gil_free_move", "prepare_document", "style_of"]

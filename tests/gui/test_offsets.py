"""Code points <-> Qt document positions: a character found at its converted position in a real
QTextDocument is the same character, whatever astral characters and line breaks precede it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtGui import QTextCursor, QTextDocument

from citeview.core.text import split_lines
from citeview.gui.offsets import DocumentText, LineUnits, utf16_len

PIECES = ["a", "é", "Z ", "😀", "𝒳", "👩‍👧", "\n", "\r\n", "\r", "\u2029", "\u2028", "\ufdd0",
          "\t", "中"]


def qt_document(text: str) -> tuple[QTextDocument, DocumentText]:
    dt = DocumentText(text)
    doc = QTextDocument()
    doc.setPlainText(dt.qt_text)
    return doc, dt


def qt_char(doc: QTextDocument, start: int, end: int) -> str:
    cursor = QTextCursor(doc)
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    return cursor.selectedText()


def check_every_character(text: str) -> None:
    doc, dt = qt_document(text)
    # One block per line of the material (a trailing break leaves Qt an empty last block).
    n_lines = len(split_lines(text))
    assert doc.blockCount() == max(n_lines + (1 if text.endswith(("\n", "\r")) else 0), 1)
    i = 0
    while i < len(text):
        ch = text[i]
        width = 2 if text.startswith("\r\n", i) else 1
        a, b = dt.to_qt(i), dt.to_qt(i + width)
        shown = qt_char(doc, a, b)
        if ch in "\r\n":
            assert shown == "\u2029"  # one block separator for \n, \r and \r\n alike
        elif ch in "\u2029":
            assert shown == "\u2028"  # kept inside its line
        elif ch in "\ufdd0\ufdd1":
            assert shown == "\ufffd"
        else:
            assert shown == ch
        assert dt.from_qt(a) == i
        # The Qt-free line look-up agrees with Qt's own block of that position.
        assert dt.block_of(i) == doc.findBlock(a).blockNumber()
        i += width
    assert dt.to_qt(len(text)) == doc.characterCount() - 1
    assert dt.from_qt(doc.characterCount() - 1) == len(text)


def test_emoji_and_astral_characters_before_a_span(qapp) -> None:  # type: ignore[no-untyped-def]
    text = "😀😀 faces 🎉 and 𝒳𝒴𝒵\nThe cited line."
    doc, dt = qt_document(text)
    s = text.index("The cited")
    a, b = dt.span_to_qt((s, len(text)))
    assert qt_char(doc, a, b) == "The cited line."
    assert (a, b) == (s + 6, len(text) + 6)  # six astral characters before it
    assert dt.span_from_qt((a, b)) == (s, len(text))
    check_every_character(text)


def test_crlf_and_lone_cr(qapp) -> None:  # type: ignore[no-untyped-def]
    text = "one\r\ntwo 😀\r\nthree\rfour\nfive"
    doc, dt = qt_document(text)
    assert doc.blockCount() == 5
    s = text.index("three")
    assert qt_char(doc, *dt.span_to_qt((s, s + 5))) == "three"
    assert doc.findBlock(dt.to_qt(text.index("five"))).blockNumber() == 4
    # The LF of a CRLF pair maps to the separator, like its CR.
    cr = text.index("\r\n")
    assert dt.to_qt(cr) == dt.to_qt(cr + 1) == 3
    check_every_character(text)


@pytest.mark.parametrize("sep", ["\u2029", "\ufdd0", "\ufdd1"])
def test_qt_block_separators_do_not_split_a_line(qapp, sep: str) -> None:  # type: ignore[no-untyped-def]
    doc, dt = qt_document(f"a{sep}b\nc")
    assert doc.blockCount() == 2
    assert dt.to_qt(4) == doc.findBlockByNumber(1).position()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_every_character_lands_on_itself(qapp, text: str) -> None:  # type: ignore[no-untyped-def]
    check_every_character(text)


def test_line_units_and_utf16_len() -> None:
    line = "a😀b𝒳c"
    units = LineUnits(line)
    assert [units(i) for i in range(len(line) + 1)] == [0, 1, 3, 4, 6, 7]
    assert LineUnits("plain")(3) == 3
    assert utf16_len(line) == 7
    assert utf16_len("abc") == 3
    assert utf16_len("é中") == 2


def test_longest_line_and_line_starts() -> None:
    dt = DocumentText("ab\r\nlongest line\rx\n")
    assert dt.longest_line == len("longest line")
    assert dt.line_starts == [0, 3, 16, 18]
    assert DocumentText("").longest_line == 0

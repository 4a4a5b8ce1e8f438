"""Pygments lexer for answers with their citation markers made visible (the raw view).

The marker characters U+E200/U+E202/U+E201 are private-use characters that most fonts draw as
empty boxes or not at all. :func:`visible_markers` replaces them one-for-one by ``⟦``, ``|`` and
``⟧`` (``⟦cite|turn0file0|L8-L13⟧``), so every offset into the answer stays valid, and
:class:`CitationMarkerLexer` colours that syntax (it also accepts the raw characters). It is
registered under the ``pygments.lexers`` entry point as ``citeview-markers``.
"""

from __future__ import annotations

import re

from pygments.lexer import RegexLexer, default
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Punctuation,
    String,
    Text,
    Whitespace,
)

from citeview.core.markers import DELIMITER, START, STOP

VISIBLE_START = "⟦"
VISIBLE_DELIMITER = "|"
VISIBLE_STOP = "⟧"

_TO_VISIBLE = str.maketrans({START: VISIBLE_START, DELIMITER: VISIBLE_DELIMITER,
                             STOP: VISIBLE_STOP})

# Character classes for the lexer: the visible form and the raw characters alike.
_S = f"{VISIBLE_START}{START}"
_D = f"|{DELIMITER}"
_E = f"{VISIBLE_STOP}{STOP}"
_LOCATOR = r"L\d+(?:-L\d+)?"


class MarkerOffsets:
    """Offsets between an answer and its visible form. The replacement is one character for one,
    so both directions are the identity; the class exists so callers never assume it."""

    __slots__ = ("length",)

    def __init__(self, length: int) -> None:
        self.length = length

    def to_visible(self, offset: int) -> int:
        return min(max(offset, 0), self.length)

    def to_original(self, offset: int) -> int:
        return min(max(offset, 0), self.length)


def visible_markers(text: str) -> tuple[str, MarkerOffsets]:
    """``text`` with marker characters shown as ``⟦``, ``|``, ``⟧``, and the offset map."""
    return text.translate(_TO_VISIBLE), MarkerOffsets(len(text))


class CitationMarkerLexer(RegexLexer):
    """Citation markers in an answer: brackets and delimiters, family, source ids, locator.

    Stray marker characters and ASCII-escaped markers (``\\ue200``) are flagged, and bracket
    references such as ``【turn0file0】`` are marked; everything else is plain text. A marker left
    open ends at the end of its line or at the next marker, as the diagnosing scan reads it.
    """

    name = "Citation markers"
    aliases = ["citeview-markers", "citation-markers"]
    filenames: list[str] = []
    mimetypes = ["text/x-citeview-markers"]

    @staticmethod
    def analyse_text(text: str) -> float:
        """Pygments' guess: certain for raw marker characters, likely for the visible form."""
        if START in text and STOP in text:
            return 1.0
        return 0.8 if re.search(r"⟦cite\|[A-Za-z0-9_-]+", text) else 0.0

    tokens = {
        "root": [
            (f"[{_S}]", Punctuation.Marker, "family"),
            (f"[{_E}{DELIMITER}]", Error),
            (r"\\+u(?:\{[eE]20[012]\}|[eE]20[012])", String.Escape),
            (r"【[^【】\n]{1,200}】", Comment.Special),
            (r"\n", Whitespace),
            (f"[^{_S}{_E}{DELIMITER}\\\\【\\n]+", Text),
            (r".", Text),
        ],
        "family": [
            (f"[{_D}]", Punctuation.Marker, ("#pop", "parts")),
            (f"[{_E}]", Punctuation.Marker, "#pop"),
            (f"[^{_S}{_D}{_E}\\n]+", Keyword.Namespace),
            default("#pop"),
        ],
        "parts": [
            (f"[{_E}]", Punctuation.Marker, "#pop"),
            (f"[{_D}]", Punctuation.Marker),
            (f"{_LOCATOR}(?=[ \\t]*[{_E}])", Number),
            (r"[A-Za-z0-9_-]+", Name.Label),
            # Blanks belong to the marker only next to a delimiter or the STOP; a blank between
            # an id and more words means the marker was left open and prose follows.
            (f"(?<=[{_D}])[ \\t]+", Whitespace),
            (f"[ \\t]+(?=[{_D}{_E}])", Whitespace),
            (f"[^{_S}{_D}{_E}\\sA-Za-z0-9_-]+", Error),
            default("#pop"),
        ],
    }

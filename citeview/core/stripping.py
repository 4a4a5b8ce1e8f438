"""Stripping an answer clean of every marker, of any family: what ``citeview strip --all`` prints
and what copying out (:mod:`citeview.core.copyout`) starts from.

Removed: every citation :func:`citeview.core.markers.scan` found (recovered ones too), every
whole marker ``START ... STOP`` of any family or none (LibreChat's family-less composites,
``url`` markers, families not enabled), LibreChat's standalone ``DELIMITER turn0search0``
references, unterminated marker heads, the wild forms of :mod:`citeview.core.wild` (degraded
markers of other families, ``:contentReference`` placeholders, ``[3†source]``, mojibake
markers, ``[oai_citation:N‡Title](url)``, ``:codex-file-citation{...}``, bare ids of a cut
marker, Gemini's ``[cite_start]`` / ``[cite: 1]``), bracket references, and any marker
character left. An entity marker becomes its display text (``Paris``), as a chat UI shows it.
A removed span that stood apart (whitespace before it, whitespace, punctuation or the end after
it) takes the whitespace before it along, so ``days fileciteturn0file0L2-L2.`` becomes
``days.``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citeview.core.markers import START, STOP, ScanResult
from citeview.core.wild import entity_display

# Private-use characters of markers: the guide's three and LibreChat's highlight pair.
PRIVATE_MARKER_CHARS = "\ue200\ue201\ue202\ue203\ue204"
_DELETE = {ord(ch): None for ch in PRIVATE_MARKER_CHARS}
_WHOLE_MARKER_RE = re.compile(
    f"{START}(?P<family>[^\ue200\ue201\ue202]*)(?:\ue202(?P<body>[^\ue200\ue201]*))?{STOP}")
_STANDALONE_RE = re.compile(r"\ue202turn\d+[A-Za-z]+\d+")
# Findings whose whole span is marker residue, removed by a clean strip.
_RESIDUE_CODES = frozenset({"CV101", "CV102", "CV103", "CV104", "CV106", "CV107", "CV108",
                            "CV110", "CV111", "CV112", "CV113", "CV114", "CV115", "CV116",
                            "CV117", "CV118"})
_AFTER_APART = frozenset(" \t\r\n.,;:!?)]}\"'")


@dataclass(slots=True)
class Edit:
    """Replace ``text[start:end]`` by ``replacement``; ``attach`` (always, for a removal) takes
    the whitespace before a span that stood apart along (see the module)."""

    start: int
    end: int
    replacement: str = ""
    attach: bool = False


def residue_edits(text: str, result: ScanResult) -> list[Edit]:
    """The non-overlapping edits (in text order) that strip ``text`` clean: see the module."""
    edits = [Edit(c.start, c.end) for c in result.citations]
    edits += [Edit(d.start, d.end) for d in result.diagnostics if d.code in _RESIDUE_CODES]
    if START in text:
        for m in _WHOLE_MARKER_RE.finditer(text):
            shown = None
            if m.group("family") == "entity" and m.group("body") is not None:
                shown = entity_display(m.group("body"))
            edits.append(Edit(m.start(), m.end(), shown or ""))
    if "\ue202" in text:
        edits += [Edit(m.start(), m.end()) for m in _STANDALONE_RE.finditer(text)]
    # At one start the longest wins, and a replacement (an entity's text) before a removal.
    edits.sort(key=lambda e: (e.start, -e.end, e.replacement == ""))
    out: list[Edit] = []
    end = -1
    for e in edits:
        if e.start >= end and e.end > e.start:
            out.append(e)
            end = e.end
    return out


def strip_clean(text: str, result: ScanResult) -> str:
    """``text`` without any marker of any family, clean (see the module)."""
    return apply_edits(text, residue_edits(text, result)).translate(_DELETE)


def apply_edits(text: str, edits: list[Edit]) -> str:
    pieces: list[str] = []
    pos = 0
    for e in edits:
        piece = text[pos:e.start]
        if not e.replacement or e.attach:
            after = text[e.end] if e.end < len(text) else " "
            stripped = piece.rstrip(" \t")
            if after in _AFTER_APART and stripped != piece and (stripped or pieces):
                piece = stripped
        pieces.append(piece)
        pieces.append(e.replacement)
        pos = e.end
    pieces.append(text[pos:])
    return "".join(pieces)


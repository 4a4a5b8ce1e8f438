"""Answer Markdown -> HTML for the answer pane, with each citation replaced by a chip.

Model text is untrusted: raw HTML is escaped by markdown-it (``html: False``), images become their
alt text (nothing is ever fetched), links lose their targets (only chips are anchors), and marker
characters left outside any citation are made visible. Chips are the only markup we inject, as
``<a href="cite:I">`` with ``I`` the 0-based citation index in reading order, and a short class
naming its state or verdict tone (:func:`chip_class`). The answer pane takes the anchors out
before Qt imports the HTML and paints the chips' look itself (:mod:`citeview.gui.answer_view`):
Qt's HTML import of a tag per chip cost more than all the rest of a 10,000-chip answer.

Qt-free on purpose: the HTML is built off the GUI thread.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from citeview.core.markdown import CLOSE, OPEN, inert_markdown
from citeview.core.markers import DELIMITER, START, STOP
from citeview.core.numbering import index_of, number_at
from citeview.lexers import VISIBLE_START, VISIBLE_STOP

_SENTINEL_RE = re.compile(f"{OPEN}(\\d+){CLOSE}")
_ADJACENT_RE = re.compile(f"{CLOSE}(?={OPEN})")
_SENTINEL_IN_TAG_RE = re.compile(f"<[^>{OPEN}]*{OPEN}")
_TAG_WITH_SENTINEL_RE = re.compile(f"<[^>{OPEN}]*{OPEN}[^>]*>")

CHIP_SCHEME = "cite"


class ChipState:
    RESOLVED = "resolved"
    PROBLEM = "problem"
    ANNOTATED = "annotated"


# Text that tells the state without colour (WCAG 1.4.1): problem "!", annotated check mark.
STATE_GLYPH = {ChipState.RESOLVED: "", ChipState.PROBLEM: "!", ChipState.ANNOTATED: "\u2713"}

# A corrected citation's mark on its chip (after the verdict's glyphs).
CORRECTED_GLYPH = "\u00b1"

# A verdict's glyph and tone: the four default labels by name (wherever they appear), any other
# label by its key number (1-9), so every verdict reads without colour too.
VERDICT_GLYPHS = {"supported": "\u2713", "partially supported": "\u25d0",
                  "unsupported": "\u2717", "cannot tell": "?"}
VERDICT_TONES = {"supported": "good", "partially supported": "partial",
                 "unsupported": "bad", "cannot tell": "unsure"}
MIXED = "mixed"  # a multi-source citation whose sources got different verdicts

# (background, foreground) per state or verdict tone, light and dark palettes.
_CHIP_COLOURS = {
    False: {
        ChipState.RESOLVED: ("#dbe7fb", "#1a4a9c"),
        ChipState.PROBLEM: ("#fbdcdc", "#9c1a1a"),
        ChipState.ANNOTATED: ("#d9f2df", "#1b6b33"),
        "good": ("#d9f2df", "#1b6b33"),
        "partial": ("#fdf0c4", "#7a5600"),
        "bad": ("#fde2d2", "#9a3412"),
        "unsure": ("#e5e7eb", "#374151"),
        "custom": ("#d5eef0", "#0f5560"),
        MIXED: ("#ece4f7", "#553c9a"),
    },
    True: {
        ChipState.RESOLVED: ("#24395e", "#b9d1ff"),
        ChipState.PROBLEM: ("#5e2424", "#ffc2c2"),
        ChipState.ANNOTATED: ("#1f4a2b", "#b8f0c6"),
        "good": ("#1f4a2b", "#b8f0c6"),
        "partial": ("#4d3d0f", "#ffe08a"),
        "bad": ("#5a2a14", "#ffc4a3"),
        "unsure": ("#374151", "#e5e7eb"),
        "custom": ("#12414a", "#b5eef5"),
        MIXED: ("#3b2f5c", "#ddd0ff"),
    },
}
# The problem mark keeps its red on a judged chip.
_PROBLEM_FG = {False: "#c01818", True: "#ff8a8a"}


def verdict_glyph(label: str, labels: Sequence[str] = ()) -> str:
    """How a verdict shows on a chip: the default labels' glyphs, else the label's key."""
    if label in VERDICT_GLYPHS:
        return VERDICT_GLYPHS[label]
    if label in labels:
        return str(labels.index(label) + 1)
    return "\u2022"


def verdict_marks(verdicts: Sequence[str | None], labels: Sequence[str] = ()
                  ) -> tuple[str, str]:
    """(glyphs, tone) of a citation's verdicts, one per source: "" while any source is
    unjudged; several distinct verdicts read ``\u2713/\u2717`` in the mixed tone."""
    if not verdicts or any(v is None for v in verdicts):
        return "", ""
    distinct = list(dict.fromkeys(v for v in verdicts if v is not None))
    glyphs = "/".join(verdict_glyph(v, labels) for v in distinct)
    if len(distinct) > 1:
        return glyphs, MIXED
    return glyphs, VERDICT_TONES.get(distinct[0], "custom")


def merged_marks(per_annotator: Sequence[Sequence[str | None]], labels: Sequence[str] = ()
                 ) -> tuple[str, str]:
    """A merged session's chip: each annotator's glyphs side by side (``\u2713|\u2717``, "\u00b7"
    for one who has not judged it), in the agreed verdict's tone, else the mixed one."""
    parts = []
    summaries: list[str | None] = []
    for verdicts in per_annotator:
        glyphs, _tone = verdict_marks(verdicts, labels)
        parts.append(glyphs or "\u00b7")
        given = list(dict.fromkeys(v for v in verdicts if v is not None))
        summaries.append(given[0] if glyphs and len(given) == 1 else None)
    agreed = summaries[0] if summaries and all(x == summaries[0] for x in summaries) else None
    tone = VERDICT_TONES.get(agreed, "custom") if agreed is not None else MIXED
    return "|".join(parts), tone


@dataclass(slots=True, frozen=True)
class Chip:
    """How one citation shows in the answer."""

    number: int  # the citation's number (from 1): its label
    state: str = ChipState.RESOLVED
    n_sources: int = 1
    recovered: bool = False
    problem: bool = False  # also shown on an annotated chip
    marks: str = ""  # the verdict glyphs (annotated chips)
    tone: str = ""  # the verdict's colour key (annotated chips)
    corrected: bool = False  # the reviewer corrected it (relocated, another source, removed)

    @property
    def label(self) -> str:
        """Number, ``+k`` more sources, ``~`` recovered."""
        label = str(self.number)
        if self.n_sources > 1:
            label += f"+{self.n_sources - 1}"
        if self.recovered:
            label = "~" + label
        return label

    @property
    def index(self) -> int:
        """Its position among the answer's chips (what the answer pane addresses)."""
        return index_of(self.number)

    @property
    def flagged(self) -> bool:
        return self.problem or self.state == ChipState.PROBLEM

    @property
    def text(self) -> str:
        """Chip label, then "!" for a problem, the verdict's glyphs once annotated and the
        corrections mark."""
        text = self.label + (STATE_GLYPH[ChipState.PROBLEM] if self.flagged else "")
        if self.state == ChipState.ANNOTATED:
            text += self.marks or STATE_GLYPH[ChipState.ANNOTATED]
        return text + (CORRECTED_GLYPH if self.corrected else "")

    def parts(self, dark: bool = False) -> list[tuple[str, str, str]]:
        """``(text, background, foreground)`` runs: the problem mark in red on any chip."""
        bg, fg = chip_colours(self.tone or self.state, dark)
        if not self.flagged or self.state == ChipState.PROBLEM:
            return [(self.text, bg, fg)]
        marks = self.text[len(self.label) + 1:]
        out = [(self.label, bg, fg), ("!", bg, _PROBLEM_FG[dark])]
        if marks:
            out.append((marks, bg, fg))
        return out


def chip_colours(state: str, dark: bool = False) -> tuple[str, str]:
    return _CHIP_COLOURS[dark].get(state, _CHIP_COLOURS[dark][ChipState.RESOLVED])


# A chip's look, named in its anchor's class: a letter per state or verdict tone (none:
# resolved, the usual chip), then "x" when a judged chip also carries the red problem mark.
# The answer pane paints chips from it (gui.answer_document.ChipPainter); Qt's HTML import never
# styles them (a styled tag per chip made importing a 10,000-chip answer twice as slow).
CHIP_CLASS = {ChipState.RESOLVED: "", ChipState.PROBLEM: "p", ChipState.ANNOTATED: "a",
              "good": "g", "partial": "h", "bad": "b", "unsure": "u", "custom": "c", MIXED: "m"}
CHIP_KEY = {code: key for key, code in CHIP_CLASS.items()}
FLAG_CLASS = "x"


def chip_class(chip: Chip) -> str:
    """The class naming ``chip``'s look (see :data:`CHIP_CLASS`)."""
    code = CHIP_CLASS.get(chip.tone or chip.state, "")
    return code + FLAG_CLASS if chip.flagged and chip.state != ChipState.PROBLEM else code


def problem_colour(dark: bool = False) -> str:
    """The colour of the problem mark ("!") on a judged chip."""
    return _PROBLEM_FG[dark]


def chip_html(chip: Chip, dark: bool = False) -> str:
    """The chip's anchor: its label between two no-break spaces, its look named by its class."""
    return chip_anchor(chip.index, chip_class(chip), chip_inner(chip.text))


def chip_inner(label: str) -> str:
    """A chip's text in the HTML: its label (escaped) between two no-break spaces."""
    return f"\u00a0{label if label.isdigit() else html.escape(label)}\u00a0"


def chip_anchor(index: int, cls: str, inner: str) -> str:
    """Chip ``index``'s anchor around its text (:func:`chip_inner`), its look named by
    ``cls``."""
    attr = f' class="{cls}"' if cls else ""
    return f'<a href="{CHIP_SCHEME}:{index}"{attr}>{inner}</a>'


# Qt's rich text draws a table's cell borders only from these attributes.
_TABLE_OPEN = '<table border="1" cellspacing="0" cellpadding="4">\n'

# A stray START and STOP show as the raw view shows them (the stream replay finds leaked
# markers by them).
_VISIBLE = str.maketrans({START: VISIBLE_START, STOP: VISIBLE_STOP, DELIMITER: "|",
                          OPEN: "\ufffd", CLOSE: "\ufffd"})


def with_sentinels(answer: str, spans: Sequence[tuple[int, int]]) -> str:
    """``answer`` with each span replaced by its sentinel; stray marker characters made visible."""
    out: list[str] = []
    pos = 0
    for i, (s, e) in enumerate(spans):
        if s < pos:  # overlapping spans do not occur in a scan; keep the first
            continue
        piece = answer[pos:s]
        # (translate is slow even on text it leaves alone; none of its characters are ASCII)
        out.append(piece if piece.isascii() else piece.translate(_VISIBLE))
        out.append(f"{OPEN}{i}{CLOSE}")
        pos = e
    out.append(answer[pos:].translate(_VISIBLE))
    return "".join(out)


def render_answer(answer: str, spans: Sequence[tuple[int, int]], chips: Sequence[Chip],
                  dark: bool = False) -> str:
    """HTML body for the answer pane: Markdown rendered, citation ``spans`` (code points, reading
    order) replaced by ``chips`` (same order)."""
    return render_parts(answer, spans, chips, dark).anchored()


# A chip in the rendered answer: (index, ordinal of its first no-break space among the no-break
# spaces of the HTML's text, class (:func:`chip_class`), label).
ChipFound = tuple[int, int, str, str]


@dataclass(slots=True, frozen=True)
class RenderedAnswer:
    """The rendered answer in pieces: ``texts[k]`` is the HTML before chip slot ``k`` (and the
    last one after the last slot); ``slots[k]`` is that chip's (index, class, label HTML between
    its two no-break spaces), or None where its citation has no chip. ``found`` lists the chips
    as the answer document finds them by their no-break spaces."""

    texts: list[str]
    slots: list[tuple[int, str, str] | None]
    found: list[ChipFound]

    @property
    def html(self) -> str:
        """The HTML with each chip's label bare (what the answer document imports)."""
        out = [self.texts[0]]
        for slot, text in zip(self.slots, self.texts[1:], strict=True):
            if slot is not None:
                out.append(slot[2])
            out.append(text)
        return "".join(out)

    def anchored(self) -> str:
        """The HTML with each chip as its anchor (:func:`chip_html`)."""
        out = [self.texts[0]]
        for slot, text in zip(self.slots, self.texts[1:], strict=True):
            if slot is not None:
                out.append(chip_anchor(*slot))
            out.append(text)
        return "".join(out)


def render_parts(answer: str, spans: Sequence[tuple[int, int]],
                 chips: Sequence[Chip] | None = None, dark: bool = False) -> RenderedAnswer:
    """:func:`render_answer` in pieces, the chips found as it goes (no anchor is written to be
    searched for again). ``chips`` None: every citation's chip as it first shows, its number
    in the resolved look (the answer painted before its citations are resolved)."""
    body = inert_markdown(_TABLE_OPEN).render(with_sentinels(answer, spans))
    # Only in text between tags: a sentinel that ended up in an attribute (a fence's info
    # string) is dropped rather than injected into markup. (Text holds no "<": markdown-it
    # escapes it, so every "<" starts a tag.)
    if _SENTINEL_IN_TAG_RE.search(body) is not None:
        body = _TAG_WITH_SENTINEL_RE.sub(lambda m: _SENTINEL_RE.sub("", m.group(0)), body)
    # Adjacent chips get a thin space between them, or they read as one chip.
    body = _ADJACENT_RE.sub(CLOSE + "\u2009", body)
    n = len(spans) if chips is None else len(chips)
    pieces = _SENTINEL_RE.split(body)
    indices = [int(i) for i in pieces[1::2]]
    # (The chips' anchors count as tags of the HTML, as they are once written.)
    flat = _flatten_inline(body, 2 * sum(1 for i in indices if i < n))
    if flat is not body and flat != body:  # (sentinels are text: never dropped)
        pieces = _SENTINEL_RE.split(flat)
    texts = pieces[0::2]
    slots: list[tuple[int, str, str] | None] = []
    found: list[ChipFound] = []
    spaces = text_spaces(texts[0])
    for i, text in zip(indices, texts[1:], strict=True):
        if i < n:
            if chips is None:
                cls, label = "", str(number_at(i))
            else:
                cls, label = chip_class(chips[i]), chips[i].text
            inner = chip_inner(label)
            found.append((i, spaces, cls, label))
            slots.append((i, cls, inner))
            spaces += 2 + label.count("\u00a0")
        else:
            slots.append(None)
        spaces += text_spaces(text)
    return RenderedAnswer(texts, slots, found)


def text_spaces(fragment: str) -> int:
    """No-break spaces in the text of an HTML fragment (not in its tags' attributes)."""
    n = fragment.count("\u00a0")
    if n and "<" in fragment:
        n -= sum(tag.count("\u00a0") for tag in TAG_RE.findall(fragment))
    return n


# Inline formatting markdown-it nests as deep as the answer's emphasis runs go. Qt's HTML import
# is quadratic in nesting depth ("*" * 40,000 + "x" + "*" * 40,000 took 30 s), and a tag inside
# the same tag shows nothing more (bold in bold is bold), so such a tag is dropped with its
# close; past a sane total depth every further inline tag is dropped.
_INLINE_TAG_RE = re.compile(r"<(/?)(em|strong|s|del|code|span)\b[^>]*>")
MAX_INLINE_DEPTH = 16


def _flatten_inline(body: str, more_tags: int = 0) -> str:
    """``body`` with the inline tags past :data:`MAX_INLINE_DEPTH`, or inside the same tag,
    dropped; ``more_tags``: tags the HTML will hold besides (the chips' anchors)."""
    if body.count("<") + more_tags < 2 * MAX_INLINE_DEPTH:
        return body  # too few tags to nest deeply (the usual answer)
    stack: list[tuple[str, bool]] = []  # (tag, kept)
    open_kept: dict[str, int] = {}
    depth = 0

    def keep(m: re.Match[str]) -> str:
        nonlocal depth
        closing, name = m.group(1), m.group(2)
        if not closing:
            kept = depth < MAX_INLINE_DEPTH and (name == "span" or not open_kept.get(name))
            stack.append((name, kept))
            if kept:
                open_kept[name] = open_kept.get(name, 0) + 1
                depth += 1
            return m.group(0) if kept else ""
        while stack:  # markdown-it closes in order; a stray close is dropped
            top, kept = stack.pop()
            if kept:
                open_kept[top] -= 1
                depth -= 1
            if top == name:
                return m.group(0) if kept else ""
        return ""

    return _INLINE_TAG_RE.sub(keep, body)


TAG_RE = re.compile(r"<[^>]*>")  # any tag of rendered HTML


def visible_text(fragment: str) -> str:
    """The text a fragment of the answer shows once rendered (Markdown syntax and link targets
    gone): what the answer pane finds a provider's claim by, whose span may be all syntax, such
    as a link ``([site](https://site/page))``."""
    rendered = inert_markdown(_TABLE_OPEN).renderInline(fragment.translate(_VISIBLE))
    return html.unescape(TAG_RE.sub("", rendered))


def stylesheet(dark: bool = False) -> str:
    """Default stylesheet of the answer document (Qt's rich-text CSS subset)."""
    code_bg = "#2a2d33" if dark else "#f3f4f6"
    rule = "#4a4f57" if dark else "#c9ccd1"
    link = "#8ab4ff" if dark else "#1f5bbf"
    return (
        f"pre {{ background-color:{code_bg}; font-family:monospace; }}"
        f"code {{ background-color:{code_bg}; font-family:monospace; }}"
        f"table {{ border-color:{rule}; border-style:solid; }}"
        f"th {{ text-align:left; }}"
        f".link {{ color:{link}; text-decoration:underline; }}"
        f".img {{ color:{link}; font-style:italic; }}"
        "h1 { font-size:x-large; } h2 { font-size:large; } h3 { font-size:medium; }"
    )

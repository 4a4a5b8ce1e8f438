"""Colour roles shared by every pane, derived from the system palette (light or dark).

Panes never hard-code colours: they ask :func:`color_roles` for the role (strong highlight,
faint tint, problem, ok, ...) so that light and dark palettes both stay readable and the answer
pane and the source pane agree on what a colour means.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QColor, QGuiApplication, QPalette


@dataclass(slots=True, frozen=True)
class ColorRoles:
    """Colours for one palette. ``*_bg`` colours are backgrounds behind normal text."""

    dark: bool
    base: QColor  # text area background
    text: QColor  # normal text
    muted: QColor  # secondary text: gutter labels, metadata
    panel: QColor  # header/gutter background, a shade off ``base``
    border: QColor  # thin separators
    highlight: QColor  # strong highlight of the active cited span / claim
    highlight_edge: QColor  # a bar marking the strong highlight in the gutter
    tint: QColor  # faint tint of other cited spans
    tint_edge: QColor  # a thin mark of tinted lines in the gutter
    evidence: QColor  # a reviewer's evidence span in the source (distinct from the highlight)
    evidence_edge: QColor  # a bar marking evidence lines in the gutter
    problem: QColor  # text/glyph colour of a problem (unknown source, out of range, error)
    problem_bg: QColor  # background of a problem banner or chip
    warning: QColor
    warning_bg: QColor
    ok: QColor  # resolved
    ok_bg: QColor
    annotated: QColor  # a reviewer verdict
    link: QColor
    pygments_style: str  # Pygments style used to colour code in the panes

    def css(self, role: str) -> str:
        """``#rrggbb`` / ``rgba(...)`` of a role, for style sheets."""
        c: QColor = getattr(self, role)
        if c.alpha() == 255:
            return str(c.name())
        return f"rgba({c.red()}, {c.green()}, {c.blue()}, {c.alpha()})"


def is_dark(palette: QPalette) -> bool:
    """True when the palette draws light text on a dark background."""
    return palette.color(QPalette.ColorRole.Base).lightnessF() < 0.5


def mix(a: QColor, b: QColor, t: float) -> QColor:
    """``a`` moved by ``t`` (0..1) towards ``b``: shades that follow the system palette."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


def _luminance(c: QColor) -> float:
    def channel(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(c.red()) + 0.7152 * channel(c.green()) + 0.0722 * channel(c.blue())


def contrast(a: QColor, b: QColor) -> float:
    """WCAG contrast ratio of two colours (1 to 21; 4.5 reads well as body text)."""
    la, lb = _luminance(a), _luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def color_roles(palette: QPalette | None = None) -> ColorRoles:
    """The roles for ``palette`` (default: the application's current palette)."""
    if palette is None:
        palette = QGuiApplication.palette()
    base = palette.color(QPalette.ColorRole.Base)
    text = palette.color(QPalette.ColorRole.Text)
    dark = is_dark(palette)
    link = palette.color(QPalette.ColorRole.Link)
    if dark:
        return ColorRoles(
            dark=True,
            base=base,
            text=text,
            muted=mix(text, base, 0.4),
            panel=mix(base, text, 0.05),
            border=mix(base, text, 0.18),
            highlight=QColor("#5a4a12"),
            highlight_edge=QColor("#e0b020"),
            tint=mix(base, QColor("#5b8bd0"), 0.16),
            tint_edge=QColor("#4f6f9f"),
            evidence=QColor("#1f4d3a"),
            evidence_edge=QColor("#3fb27f"),
            problem=QColor("#ff7b72"),
            problem_bg=QColor("#4a2020"),
            warning=QColor("#e3b341"),
            warning_bg=QColor("#3d3015"),
            ok=QColor("#56d364"),
            ok_bg=QColor("#1c3a24"),
            annotated=QColor("#c297ff"),
            link=link if contrast(link, base) >= 4.5 else QColor("#6cb6ff"),
            pygments_style="github-dark",
        )
    return ColorRoles(
        dark=False,
        base=base,
        text=text,
        muted=mix(text, base, 0.42),
        panel=mix(base, text, 0.035),
        border=mix(base, text, 0.15),
        highlight=QColor("#fff0a0"),
        highlight_edge=QColor("#d4a000"),
        tint=mix(base, QColor("#4a7fd0"), 0.08),
        tint_edge=QColor("#a8c0e8"),
        evidence=QColor("#c8f0d8"),
        evidence_edge=QColor("#2e9e62"),
        problem=QColor("#c62828"),
        problem_bg=QColor("#fdecea"),
        warning=QColor("#9a6700"),
        warning_bg=QColor("#fff5d6"),
        ok=QColor("#1a7f37"),
        ok_bg=QColor("#e6f4ea"),
        annotated=QColor("#6f42c1"),
        link=link if contrast(link, base) >= 4.5 else QColor("#0969da"),
        pygments_style="default",
    )

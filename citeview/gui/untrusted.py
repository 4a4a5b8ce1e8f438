"""Untrusted text (case ids, file names, source titles: model or user input) for one-line places
of the window that Qt would otherwise interpret: window titles and menu items."""

from __future__ import annotations


def safe_title(text: str, limit: int = 80) -> str:
    """Untrusted text for a window title: one line, bounded, no ``[*]`` placeholder."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "\u2026"
    return flat.replace("[*]", "[*][*]")


def menu_text(text: str) -> str:
    """Untrusted text for a menu item: ``&`` would become a mnemonic."""
    return safe_title(text, 100).replace("&", "&&")

"""Choosing a Pygments lexer for a source's text (its title, URL, content): pure Python, run in
the case loader's worker (no widget, no QObject: checked by the ``worker`` import contract).
:mod:`~citeview.gui.highlighting` colours with the lexer chosen here.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from urllib.parse import urlsplit

from pygments.lexer import Lexer
from pygments.lexers import find_lexer_class, get_lexer_for_filename
from pygments.lexers.data import JsonLexer
from pygments.lexers.markup import MarkdownLexer
from pygments.lexers.special import TextLexer
from pygments.util import ClassNotFound

# A content guess must score at least this in the lexer's own ``analyse_text`` (0..1): prose
# scores 0.01 and an HTML-looking sentence 0.45, real Python or HTML 0.5-1.0.
GUESS_THRESHOLD = 0.5
_SAMPLE = 8000
# The text of a web page is extracted prose, whatever the URL's extension says.
_WEB_PAGE_EXTENSIONS = {"html", "htm", "xhtml", "php", "asp", "aspx", "jsp", "cfm", "shtml"}
_FILENAME_RE = re.compile(r"^[\w.@+-]*\.[A-Za-z0-9]{1,10}$")
# Lexers with an ``analyse_text`` of their own (names as Pygments spells them: an unknown name
# makes Pygments scan every installed package's entry points).
_CONTENT_LEXERS = ("Python", "Bash", "HTML", "XML", "Diff", "C", "C++", "PHP", "Perl", "Ruby",
                   "TeX", "INI", "Makefile", "SQL", "reStructuredText")
_MARKDOWN_FEATURES = (
    re.compile(r"^#{1,6} \S", re.M),  # heading
    re.compile(r"^\s*(```|~~~)", re.M),  # code fence
    re.compile(r"^\s*(?:[-*+]|\d+\.) \S", re.M),  # list item
    re.compile(r"^\s*\|.*\|\s*$\n^\s*\|?\s*:?-{3,}", re.M),  # table
    re.compile(r"\[[^\]\n]+\]\([^)\s]+\)"),  # link
    re.compile(r"(\*\*|__)\S.*?\S\1"),  # strong emphasis
    re.compile(r"`[^`\n]+`"),  # inline code
)


def _filename_candidates(title: str | None, url: str | None) -> list[str]:
    names: list[str] = []
    if url:
        try:
            path = urlsplit(url.strip()).path
        except ValueError:
            path = ""
        name = path.rstrip("/").rsplit("/", 1)[-1]
        if "." in name and name.rsplit(".", 1)[1].lower() not in _WEB_PAGE_EXTENSIONS:
            names.append(name)
    if title:
        t = title.strip().rsplit("/", 1)[-1]
        if _FILENAME_RE.match(t) and t.rsplit(".", 1)[1].lower() not in _WEB_PAGE_EXTENSIONS:
            names.append(t)
    return names


def _looks_like_json(sample: str, text: str) -> bool:
    s = sample.lstrip()
    if not s or s[0] not in "{[":
        return False
    if len(text) <= 200_000:
        try:
            json.loads(text)
        except ValueError:
            return False
        return True
    # Too big to parse while opening: a JSON-looking start is enough to colour it.
    return re.match(r'[\[{]\s*(?:"|\{|\[|\]|\}|-?\d)', s) is not None


def markdown_score(sample: str) -> int:
    """How many distinct Markdown constructs ``sample`` uses."""
    return sum(1 for rx in _MARKDOWN_FEATURES if rx.search(sample))


def guess_lexer(title: str | None, url: str | None, text: str) -> Lexer | None:
    """The lexer for a source, or None for plain text.

    The title's or URL's file name decides first (``notes.md``, ``.../config.json``); otherwise
    the content: JSON that parses, Markdown with two or more distinct constructs, or Pygments'
    lexers' own ``analyse_text`` when its confidence reaches :data:`GUESS_THRESHOLD`.
    """
    sample = text[:_SAMPLE]
    for name in _filename_candidates(title, url):
        try:
            lexer = get_lexer_for_filename(name, sample)
        except ClassNotFound:
            continue
        return None if isinstance(lexer, TextLexer) else lexer
    if not sample.strip():
        return None
    if _looks_like_json(sample, text):
        return JsonLexer()
    if markdown_score(sample) >= 2:
        return MarkdownLexer()
    best: tuple[float, type[Lexer]] | None = None
    for cls in _content_candidates():
        score = float(cls.analyse_text(sample))
        if score >= GUESS_THRESHOLD and (best is None or score > best[0]):
            best = (score, cls)
    return best[1]() if best is not None else None


@lru_cache(maxsize=1)
def _content_candidates() -> tuple[type[Lexer], ...]:
    """Lexers whose own ``analyse_text`` recognises content reliably. Pygments' ``guess_lexer``
    asks all ~600 lexers and imports each module first (1 s, measured); these are the ones that
    recognise material a model is shown."""
    out: list[type[Lexer]] = []
    for name in _CONTENT_LEXERS:
        cls = find_lexer_class(name)
        if cls is not None:
            out.append(cls)
    return tuple(out)


__all__ = ["GUESS_THRESHOLD", "guess_lexer", "markdown_score"]

"""The one Markdown renderer for untrusted model text: markdown-it with raw HTML off (escaped),
images as their alt text (nothing is ever fetched) and links without their targets (only chips
are anchors). The answer pane (``gui/answer_render``) and the HTML page (:mod:`.page`) both
render through it, so what an answer may show is decided here once."""

from __future__ import annotations

import html
from functools import cache
from typing import Any

from markdown_it import MarkdownIt

# Sentinels standing in for chips while markdown-it parses an answer: private-use characters
# markdown never treats as syntax (any already in the answer are neutralised first).
OPEN, CLOSE = "\uf8f0", "\uf8f1"


@cache
def inert_markdown(table_open: str = "") -> MarkdownIt:
    """CommonMark with tables, never live HTML; ``table_open``: the tag a table opens with
    (default markdown-it's). One shared renderer per tag (renderers are stateless)."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table")

    def image(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        # Never an <img>: the alt text, marked as an image, so nothing can be fetched.
        alt = self.renderInlineAsText(tokens[idx].children or [], options, env)
        return f'<span class="img">[image: {html.escape(alt)}]</span>'

    def link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        # Links keep their look but lose their target: only chips are followed.
        return '<span class="link">'

    def link_close(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        return "</span>"

    md.add_render_rule("image", image)
    md.add_render_rule("link_open", link_open)
    md.add_render_rule("link_close", link_close)
    if table_open:
        def table(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
            return table_open

        md.add_render_rule("table_open", table)
    return md


__all__ = ["CLOSE", "OPEN", "inert_markdown"]

"""The text of a PDF's pages, for checking page citations (Anthropic ``page_location``).

Reading PDFs needs ``pypdf`` (the ``pdf`` extra: ``pip install 'citeview[pdf]'``). Without it,
or for a PDF it cannot read, :func:`pdf_page_texts` says why instead of giving pages, and page
citations are shown with the provider's cited text, marked as not checked.
"""

from __future__ import annotations

import base64
import binascii
import io
from dataclasses import dataclass
from typing import Any

INSTALL_HINT = "pypdf is not installed (pip install 'citeview[pdf]')"
# Pages read at most: a citation never needs more, and a huge PDF must not stall a case.
MAX_PAGES = 2000
# The text of a page is read only when its content stream holds at most this many tokens
# (operators and operands; pypdf takes ~10-45 us each), and a document's pages together at most
# MAX_DOCUMENT_TOKENS: past them a page is "not checked" (CV608), never a stall. A dense page
# of text is a few thousand.
MAX_PAGE_TOKENS = 60_000
MAX_DOCUMENT_TOKENS = 600_000


@dataclass(slots=True, frozen=True)
class PdfText:
    """The text of each page (an empty string: the page has no text layer, or was not read:
    its number is in ``unread``), or why there is none (``reason``)."""

    pages: tuple[str, ...] = ()
    reason: str = ""
    unread: frozenset[int] = frozenset()  # 1-based numbers of pages with too much to read

    @property
    def ok(self) -> bool:
        return not self.reason


def decode_base64(data: str) -> bytes | None:
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None


def pdf_page_texts(data: bytes) -> PdfText:
    """The text layer of every page of the PDF ``data``."""
    try:
        import pypdf
        from pypdf.errors import PyPdfError
    except ImportError:
        return PdfText(reason=INSTALL_HINT)
    if not data.startswith(b"%PDF"):
        return PdfText(reason="the document is not a PDF (no %PDF header)")
    try:
        reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
        pages = []
        unread = set()
        budget = MAX_DOCUMENT_TOKENS
        for n, page in enumerate(reader.pages):
            if n >= MAX_PAGES:
                break
            size = _tokens(page)
            if size > MAX_PAGE_TOKENS or size > budget:
                pages.append("")
                unread.add(n + 1)
                continue
            budget -= size
            pages.append(page.extract_text() or "")
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError,
            OSError, RecursionError, ZeroDivisionError) as err:
        # pypdf raises more than its own errors on a damaged file; none of them is a bug here.
        return PdfText(reason=f"the PDF could not be read ({type(err).__name__}: {err})")
    return PdfText(tuple(pages), unread=frozenset(unread))


def _tokens(page: Any) -> int:
    """About how many tokens the page's content stream holds (its separators, counted at C
    speed on the decoded bytes: no parse)."""
    contents = page.get_contents()
    if contents is None:
        return 0
    data = contents.get_data()
    return int(data.count(b" ") + data.count(b"\n") + data.count(b"\r") + data.count(b"("))


__all__ = ["INSTALL_HINT", "MAX_DOCUMENT_TOKENS", "MAX_PAGE_TOKENS", "PdfText", "decode_base64",
           "pdf_page_texts"]

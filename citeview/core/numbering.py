"""How citations are numbered: from 1 in reading order. The one place a citation's number and
its 0-based position (in a case's citations, a table's rows, the answer's chips) are converted;
everything else addresses a citation by its number or its analysed citation. What else is shown
to people by number (a case's place in its input, a stream's events) is numbered the same way,
through the same two functions."""

from __future__ import annotations

FIRST_NUMBER = 1


def index_of(number: int) -> int:
    """The 0-based position of citation ``number``."""
    return number - FIRST_NUMBER


def number_at(index: int) -> int:
    """The number of the citation at 0-based position ``index``."""
    return index + FIRST_NUMBER


__all__ = ["FIRST_NUMBER", "index_of", "number_at"]

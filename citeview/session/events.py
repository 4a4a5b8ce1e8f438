"""What a session tells its subscribers after a committed change: one typed event per kind.

Views match on the class (``isinstance`` or ``match``), never on a string, so a misspelt kind is
a type error and a new kind shows up wherever changes are handled. Every implementation of the
session interface (:mod:`citeview.session.protocol`) sends these, after the change is stored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from citeview.session.model import AnnotationKey


@dataclass(slots=True, frozen=True)
class AnnotationChanged:
    """One annotation (``key``, any annotator) was set, replaced or deleted."""

    case_id: str
    key: AnnotationKey | None = None


@dataclass(slots=True, frozen=True)
class EvidenceChanged:
    """An evidence span of one citation's source (``key``, any annotator) was added or
    removed."""

    case_id: str
    key: AnnotationKey | None = None


@dataclass(slots=True, frozen=True)
class CorrectionChanged:
    """A correction of a case's citations (any annotator) was stored or removed: its corrected
    answer changed."""

    case_id: str


@dataclass(slots=True, frozen=True)
class ReviewChanged:
    """A case review (any annotator) was set or deleted."""

    case_id: str


@dataclass(slots=True, frozen=True)
class CaseChanged:
    """One case's content was replaced (the input changed); its counts are gone with it."""

    case_id: str


@dataclass(slots=True, frozen=True)
class CasesAdded:
    """Cases were added: the list of case ids changed."""


@dataclass(slots=True, frozen=True)
class MetaChanged:
    """A setting changed (labels, families, blind, ...) or the session moved (Save As)."""


@dataclass(slots=True, frozen=True)
class SizesKnown:
    """A case's item counts (judgements per citation) became known."""

    case_id: str


Change = (AnnotationChanged | ReviewChanged | CaseChanged | CasesAdded | MetaChanged | SizesKnown
          | EvidenceChanged | CorrectionChanged)
Listener = Callable[[Change], None]


class Subscribers:
    """The listeners of one session: :meth:`subscribe` and :meth:`notify` (every call is made;
    one that raises does not stop the others, its error propagates after them)."""

    __slots__ = ("listeners",)

    def __init__(self) -> None:
        self.listeners: list[Listener] = []

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self.listeners.append(listener)

        def unsubscribe() -> None:
            if listener in self.listeners:
                self.listeners.remove(listener)
        return unsubscribe

    def notify(self, *changes: Change) -> None:
        _deliver(iter([(listener, change) for change in changes
                       for listener in list(self.listeners)]))


def _deliver(calls: Iterator[tuple[Listener, Change]]) -> None:
    """Make every call; one that raises does not stop the others (one broken view must not
    stop the rest): they are made, then its error propagates (a later error chains onto it)."""
    for listener, change in calls:
        try:
            listener(change)
        except Exception:
            _deliver(calls)
            raise


__all__ = [
    "AnnotationChanged", "CaseChanged", "CasesAdded", "Change", "CorrectionChanged",
    "EvidenceChanged", "Listener", "MetaChanged",
    "ReviewChanged", "SizesKnown", "Subscribers",
]

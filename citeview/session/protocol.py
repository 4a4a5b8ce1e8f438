"""What the window and the commands need of a review session: :class:`ReviewStore`.

The SQLite file (:class:`citeview.session.store.Session`) is one implementation; the session
kept in memory (:class:`citeview.session.memory.MemorySession`) is another, and both pass the
same contract tests (``tests/session/test_contract.py``). A store on a database server is a third
implementation of this protocol: the GUI and the commands type against it, not against a class,
and open sessions through a :class:`SessionBackend` passed in at their entry point.

Every change is committed before its method returns and then announced to subscribers as a
typed event (:mod:`citeview.session.events`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from citeview.core.analysis import AnalysedCase, Analyser
from citeview.core.cases import Case
from citeview.core.datasets import Dataset
from citeview.core.policy import Policy
from citeview.session.events import AnnotationChanged, Change, Listener, ReviewChanged
from citeview.session.model import Annotation, AnnotationKey, CaseReview, Reattached, ReviewState


# One write of an edit: an annotation or review row to set (or delete, when ``new`` is None).
@dataclass(slots=True, frozen=True)
class RowChange:
    kind: Literal["annotation", "review"]
    case_id: str
    annotator: str
    key: AnnotationKey | None
    orphaned: bool
    new: Annotation | CaseReview | None


def row_event(change: RowChange) -> Change:
    """The event telling subscribers that ``change`` was written."""
    if change.kind == "annotation":
        return AnnotationChanged(change.case_id, change.key)
    return ReviewChanged(change.case_id)


class ReviewStore(Protocol):
    """An open review session: cases, annotations and reviews, item counts, settings and
    change subscriptions."""

    path: str
    readonly: bool
    message: str | None  # e.g. why it is read-only; for the status bar
    annotator: str
    closed: bool
    unclean: bool  # the last writer left without closing

    # -- lifetime
    def close(self) -> None: ...
    def __enter__(self) -> ReviewStore: ...
    def __exit__(self, *exc: object) -> None: ...
    def changed_elsewhere(self) -> bool: ...
    def integrity_check(self) -> str: ...
    def save_as(self, path: str, *, switch: bool = True) -> None: ...
    def subscribe(self, listener: Listener) -> Callable[[], None]: ...

    # -- meta
    @property
    def meta(self) -> dict[str, Any]: ...
    @property
    def document_extra(self) -> dict[str, Any]: ...
    @property
    def labels(self) -> tuple[str, ...]: ...
    @property
    def families(self) -> tuple[str, ...]: ...
    @property
    def blind(self) -> bool: ...
    @property
    def name(self) -> str: ...
    def set_meta(self, key: str, value: Any) -> None: ...
    def set_blind(self, blind: bool) -> None: ...
    def set_labels(self, labels: Sequence[str]) -> None: ...

    # -- cases
    def case_ids(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def index_of(self, case_id: str) -> int: ...
    def ids_starting(self, prefix: str, limit: int) -> list[str]: ...
    def case_data(self, case_id: str) -> dict[str, Any]: ...
    def get_case(self, case_id: str) -> Case: ...
    def adopt_case(self, case: Case) -> None: ...
    def case_at(self, index: int) -> Case: ...
    def dataset(self) -> SessionDataset: ...
    def add_cases(self, cases: Iterable[Case]) -> list[str]: ...
    def update_case(self, case: Case) -> Reattached: ...
    def sync_from(self, dataset: Dataset) -> dict[str, Reattached]: ...

    # -- analysis and item counts
    @property
    def analyser(self) -> Analyser: ...
    @property
    def policy(self) -> Policy: ...
    def analysed(self, case: str | Case, policy: Policy | None = None) -> AnalysedCase: ...
    def sizes(self) -> dict[str, tuple[int, ...]]: ...
    def record_sizes(self, case_id: str, sizes: Sequence[int]) -> None: ...
    def record_sizes_many(self, sizes: dict[str, tuple[int, ...]],
                          store: bool = True) -> None: ...
    def flush_sizes(self) -> None: ...

    # -- annotations and reviews
    def annotation(self, key: AnnotationKey,
                   annotator: str | None = None) -> Annotation | None: ...
    def annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                    orphaned: bool | None = None) -> list[Annotation]: ...
    def iter_annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                         orphaned: bool | None = None,
                         number: int | None = None) -> Iterator[Annotation]: ...
    def orphans(self, case_id: str | None = None) -> list[Annotation]: ...
    def put_annotation(self, ann: Annotation) -> None: ...
    def review(self, case_id: str, annotator: str | None = None) -> CaseReview: ...
    def reviews(self, case_id: str | None = None) -> list[CaseReview]: ...
    def put_review(self, review: CaseReview) -> None: ...
    def states(self, annotator: str | None = None) -> dict[str, ReviewState]: ...
    def first_not_done(self, annotator: str | None = None) -> int | None: ...
    def current_row(self, change: RowChange) -> Annotation | CaseReview | None: ...
    def apply(self, changes: Sequence[RowChange]) -> None: ...


class SessionBackend(Protocol):
    """Where sessions live and how they are opened: the SQLite files
    (:data:`citeview.session.store.SQLITE`), memory
    (:class:`~citeview.session.memory.MemoryBackend`) or, later, a server. The window is
    handed one at its entry point."""

    def exists(self, path: str) -> bool: ...
    def create(self, path: str, cases: Dataset | Iterable[Case], *, annotator: str = "",
               source: str | None = None) -> ReviewStore: ...
    def create_file(self, path: str, cases: Dataset | Iterable[Case], *,
                    source: str | None = None) -> None: ...
    def open(self, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> ReviewStore: ...


class SessionDataset(Dataset):
    """The cases of a session as a :class:`Dataset` (kind "session"); ``.session`` is the
    session itself."""

    def __init__(self, session: ReviewStore) -> None:
        self.session = session
        self.path = session.path
        self.kind = "session"

    def __len__(self) -> int:
        return len(self.session)

    def case_ids(self) -> list[str]:
        return self.session.case_ids()

    def get(self, index: int) -> Case:
        return self.session.case_at(index)

    def index_of(self, case_id: str) -> int:
        return self.session.index_of(case_id)

    def ids_starting(self, prefix: str, limit: int) -> list[str]:
        return self.session.ids_starting(prefix, limit)

    def close(self) -> None:
        self.session.close()


__all__ = ["ReviewStore", "RowChange", "SessionBackend", "SessionDataset", "row_event"]

"""What the window and the commands need of a review session: :class:`ReviewStore`.

The SQLite file (:class:`citeview.session.store.Session`) is one implementation; the session
kept in memory (:class:`citeview.session.memory.MemorySession`) is another, and both pass the
same contract tests (``tests/session/test_contract.py``). A store on a database server is a third
implementation of this protocol: the GUI and the commands type against it, not against a class,
and open sessions through a :class:`SessionBackend` passed in at their entry point.

Every change is committed before its method returns and then announced to subscribers as a
typed event (:mod:`citeview.session.events`).

Beyond verdicts (issue 30) a store keeps, per case and annotator: the reasons of a verdict
(``Annotation.reasons``, names from :attr:`ReviewStore.reasons`), evidence spans
(:class:`~citeview.session.model.Evidence`, several per citation source) and corrections of the
citations (:class:`~citeview.core.corrections.Correction`). Each is one row kind of
:class:`RowChange` ("evidence", "correction": ``ident`` is the row's id), so an edit of them is
undone like a verdict (:mod:`citeview.session.edits`), and announced as
:class:`~citeview.session.events.EvidenceChanged` / ``CorrectionChanged``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, overload

from citeview.core.analysis import AnalysedCase, Analyser
from citeview.core.cases import Case
from citeview.core.corrections import Correction, CorrectionError
from citeview.core.datasets import Dataset
from citeview.core.policy import Policy
from citeview.session.errors import SessionError
from citeview.session.events import (
    AnnotationChanged,
    Change,
    CorrectionChanged,
    EvidenceChanged,
    Listener,
    ReviewChanged,
)
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    CaseReview,
    Evidence,
    Reattached,
    ReviewState,
    ReviewTally,
)

RowKind = Literal["annotation", "review", "evidence", "correction"]
Row = Annotation | CaseReview | Evidence | Correction


# One write of an edit: a row to set (or delete, when ``new`` is None). An annotation is found
# by (key, annotator, orphaned), a review by (case, annotator), evidence and a correction by
# (case, ``ident``: the row's id; evidence also gives its ``key``). ``op_id`` (a UUID the client
# made) names the write so that a store on a server keeps it once when it is sent again (an
# outbox replaying); a file or memory store has no use for it.
@dataclass(slots=True, frozen=True)
class RowChange:
    kind: RowKind
    case_id: str
    annotator: str
    key: AnnotationKey | None
    orphaned: bool
    new: Row | None
    ident: str = ""
    op_id: str | None = None


def row_event(change: RowChange) -> Change:
    """The event telling subscribers that ``change`` was written."""
    if change.kind == "annotation":
        return AnnotationChanged(change.case_id, change.key)
    if change.kind == "evidence":
        return EvidenceChanged(change.case_id, change.key)
    if change.kind == "correction":
        return CorrectionChanged(change.case_id)
    return ReviewChanged(change.case_id)


def check_row(change: RowChange) -> None:
    """:class:`SessionError` unless ``change`` is whole: its ``new`` row is of its kind and
    matches its case and id, and a correction makes sense (every store checks before
    writing)."""
    new = change.new
    kinds: dict[str, type] = {"annotation": Annotation, "review": CaseReview,
                              "evidence": Evidence, "correction": Correction}
    if change.kind in ("evidence", "correction") and not change.ident:
        raise SessionError(f"a {change.kind} change without the row's id")
    if new is None:
        return
    if not isinstance(new, kinds[change.kind]) or new.case_id != change.case_id:
        raise SessionError(f"a {change.kind} change holds another row")
    if isinstance(new, Evidence | Correction) and new.id != change.ident:
        raise SessionError(f"a {change.kind} change holds another row")
    if isinstance(new, Evidence) and not 0 <= new.start <= new.end:
        raise SessionError("evidence must be a span (start <= end)")
    if isinstance(new, Correction):
        try:
            new.check()
        except CorrectionError as err:
            raise SessionError(str(err)) from None


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
    @property
    def reasons(self) -> tuple[str, ...]: ...  # meta "reasons"; DEFAULT_REASONS if unset
    def set_reasons(self, reasons: Sequence[str]) -> None: ...

    # -- cases
    def case_ids(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def index_of(self, case_id: str) -> int: ...
    def ids_starting(self, prefix: str, limit: int) -> list[str]: ...
    def ids_between(self, start: int, stop: int) -> list[str]: ...
    def case_data(self, case_id: str) -> dict[str, Any]: ...
    def get_case(self, case_id: str) -> Case: ...
    def adopt_case(self, case: Case) -> None: ...
    def adopt_case_ids(self, ids: list[str], positions: dict[str, int]) -> None: ...
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
    # Per annotator (the reviews one may read: a lead, everyone's): cases done, in progress;
    # one query, what a team window shows after each burst of changes.
    def annotator_progress(self) -> dict[str, ReviewTally]: ...
    def first_not_done(self, annotator: str | None = None) -> int | None: ...
    def current_row(self, change: RowChange) -> Row | None: ...
    def apply(self, changes: Sequence[RowChange]) -> None: ...

    # -- evidence and corrections (issue 30); written through apply (edits) or these
    def evidence(self, case_id: str | None = None, *, key: AnnotationKey | None = None,
                 annotator: str | None = None) -> list[Evidence]: ...
    def put_evidence(self, evidence: Evidence) -> None: ...
    def delete_evidence(self, evidence: Evidence) -> None: ...
    def corrections(self, case_id: str | None = None, *,
                    annotator: str | None = None) -> list[Correction]: ...
    def put_correction(self, correction: Correction) -> None: ...
    def delete_correction(self, correction: Correction) -> None: ...


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

    def id_window(self) -> Sequence[str]:
        """The case ids as a sequence read a page at a time (the window's case list): a
        million-case session lists none of them to show some."""
        return PagedIds(self.session)

    def close(self) -> None:
        self.session.close()


class PagedIds(Sequence[str]):
    """A session's case ids by position, read :data:`ID_PAGE` at a time (the last few pages
    kept): a view painting rows asks for a few dozen."""

    def __init__(self, session: ReviewStore) -> None:
        self.session = session
        self._pages: dict[int, list[str]] = {}
        self._len = len(session)

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> list[str]: ...

    def __getitem__(self, index: int | slice) -> str | list[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._len))]
        if index < 0:
            index += self._len
        if not 0 <= index < self._len:
            raise IndexError(index)
        page, at = divmod(index, ID_PAGE)
        ids = self._pages.get(page)
        if ids is None:
            if len(self._pages) >= 16:
                self._pages.clear()
            ids = self._pages[page] = self.session.ids_between(page * ID_PAGE,
                                                               (page + 1) * ID_PAGE)
        return ids[at]


ID_PAGE = 256


__all__ = ["ID_PAGE", "PagedIds", "ReviewStore", "Row", "RowChange", "RowKind",
           "SessionBackend", "SessionDataset", "check_row", "row_event"]

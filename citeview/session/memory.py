"""A review session kept in memory: the second implementation of
:class:`~citeview.session.protocol.ReviewStore`.

It passes the same contract tests as the SQLite file and the review tests of the window run
against it too, which keeps the interface honest: what the window and the commands need of a
session is in the protocol, not in SQLite. Sessions live in a :class:`MemoryBackend` (a stand-in
for a server: every session opened at the same path shares its rows, one writer at a time).
A path the backend does not hold but where a session file exists is read from that file once
(e.g. a session made by ``citeview merge``); nothing is ever written back to disk.
"""

from __future__ import annotations

import bisect
import json
import os
import uuid
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from citeview.core.analysis import Analyser
from citeview.core.cases import Case
from citeview.core.corrections import Correction, ordered
from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.core.markers import DEFAULT_FAMILIES
from citeview.session.analysing import AnalysingStore
from citeview.session.errors import ReadOnlySession, SessionError, SessionInUse
from citeview.session.events import (
    CaseChanged,
    CasesAdded,
    Change,
    Listener,
    MetaChanged,
    SizesKnown,
    Subscribers,
)
from citeview.session.jsonio import dumps_json
from citeview.session.model import (
    DEFAULT_LABELS,
    Annotation,
    AnnotationKey,
    CaseReview,
    Evidence,
    Reattached,
    ReviewState,
    ReviewTally,
    index_not_done,
    now_iso,
    prefix_forms,
    tally_reviews,
)
from citeview.session.protocol import (
    ReviewStore,
    Row,
    RowChange,
    SessionDataset,
    check_row,
    row_event,
)
from citeview.session.row_access import RowReads, RowWrites
from citeview.session.rowfilter import RowFilter
from citeview.session.settings import DOCUMENT_EXTRA, StoredSettings
from citeview.session.updating import moved_rows, sync_cases

_M = TypeVar("_M", Evidence, Correction)


@dataclass(slots=True)
class _Rows:
    """What one session holds (the tables of the SQLite file)."""

    meta: dict[str, Any]
    cases: dict[str, str]  # id -> case JSON, in order
    annotations: list[tuple[int, Annotation]] = field(default_factory=list)  # (row id, row)
    reviews: dict[tuple[str, str], CaseReview] = field(default_factory=dict)
    stats: dict[str, tuple[int, ...]] = field(default_factory=dict)
    writer: str | None = None  # token of the session open for writing
    version: int = 0  # bumped by every committed change
    next_row: int = 1
    evidence: dict[str, Evidence] = field(default_factory=dict)  # by id
    corrections: dict[str, Correction] = field(default_factory=dict)  # by id


class MemoryBackend:
    """Sessions in memory, by path (:class:`~citeview.session.protocol.SessionBackend`)."""

    def __init__(self) -> None:
        self.held: dict[str, _Rows] = {}

    def _key(self, path: str) -> str:
        return os.path.abspath(path)

    def exists(self, path: str) -> bool:
        return self._key(path) in self.held or os.path.exists(path)

    def create(self, path: str, cases: Dataset | Iterable[Case], *, annotator: str = "",
               source: str | None = None, labels: Sequence[str] = DEFAULT_LABELS,
               families: Sequence[str] = DEFAULT_FAMILIES, name: str | None = None,
               overwrite: bool = False) -> MemorySession:
        self.create_file(path, cases, source=source, labels=labels, families=families,
                         name=name, overwrite=overwrite)
        return self.open(path, annotator=annotator)

    def create_file(self, path: str, cases: Dataset | Iterable[Case], *,
                    source: str | None = None, labels: Sequence[str] = DEFAULT_LABELS,
                    families: Sequence[str] = DEFAULT_FAMILIES, name: str | None = None,
                    overwrite: bool = False) -> None:
        if self.exists(path) and not overwrite:
            raise SessionError(f"{path}: already exists (choose another name, or --force to "
                               "replace it)")
        meta: dict[str, Any] = {
            "name": name or Path(path).stem, "labels": list(labels), "blind": False,
            "families": list(families), "created": now_iso(),
        }
        if source is not None:
            meta["source"] = source
        items: Iterable[Case] = cases.iter_cases() if isinstance(cases, Dataset) else cases
        rows: dict[str, str] = {}
        for case in items:
            if case.id in rows:
                raise SessionError(f"{path}: duplicate case ids in the input")
            rows[case.id] = dumps_json(case.to_dict())
        self.held[self._key(path)] = _Rows(json.loads(dumps_json(meta)), rows)

    def open(self, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> MemorySession:
        key = self._key(path)
        if key not in self.held:
            self.held[key] = _read_file(path)
        return MemorySession(self, path, self.held[key], annotator=annotator,
                             readonly=readonly, force=force)


def _read_file(path: str) -> _Rows:
    """The rows of the session file at ``path`` (read once, read-only)."""
    from citeview.session.store import Session

    with Session.open(path, readonly=True) as file:
        rows = _Rows(dict(file.meta), {cid: dumps_json(file.case_data(cid))
                                        for cid in file.case_ids()})
        extra = file.document_extra
        if extra:
            rows.meta[DOCUMENT_EXTRA] = extra
        for ann in file.iter_annotations():
            rows.annotations.append((rows.next_row, ann))
            rows.next_row += 1
        rows.reviews = {(r.case_id, r.annotator): r for r in file.reviews()}
        rows.stats = dict(file.sizes())
        rows.evidence = {e.id: e for e in file.evidence()}
        rows.corrections = {c.id: c for c in file.corrections()}
    return rows


class MemorySession(StoredSettings, AnalysingStore, RowWrites, RowReads):
    """An open session held by a :class:`MemoryBackend` (see :class:`ReviewStore`)."""

    def __init__(self, backend: MemoryBackend, path: str, rows: _Rows, *, annotator: str,
                 readonly: bool, force: bool) -> None:
        self.backend = backend
        self.path = path
        self.readonly = readonly
        self.message: str | None = None
        self.annotator = annotator
        self.closed = False
        self.unclean = False
        self._rows = rows
        self._token = uuid.uuid4().hex
        self._subscribers = Subscribers()
        self._analyser: Analyser | None = None
        self._seen = rows.version
        if not readonly:
            if rows.writer is not None and not force:
                raise SessionInUse(f"{path}: already open in another citeview; close it "
                                   "there, or open it read-only")
            rows.writer = self._token

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._rows.writer == self._token:
            self._rows.writer = None

    def __enter__(self) -> MemorySession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def changed_elsewhere(self) -> bool:
        seen, self._seen = self._seen, self._rows.version
        return seen != self._rows.version

    def integrity_check(self) -> str:
        return "ok"

    def save_as(self, path: str, *, switch: bool = True) -> None:
        if os.path.abspath(path) == os.path.abspath(self.path):
            return
        rows = self._rows
        copy = _Rows(json.loads(dumps_json(rows.meta)), dict(rows.cases), list(rows.annotations),
                     dict(rows.reviews), dict(rows.stats), None, 0, rows.next_row,
                     dict(rows.evidence), dict(rows.corrections))
        self.backend.held[self.backend._key(path)] = copy
        if switch:
            self.close()
            self._rows, self.path, self.closed = copy, path, False
            self._token = uuid.uuid4().hex
            copy.writer = self._token
            self.readonly, self.message = False, None
            self._seen = copy.version
            self._notify(MetaChanged())

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._subscribers.subscribe(listener)

    def _notify(self, *changes: Change) -> None:
        self._subscribers.notify(*changes)

    def _write(self) -> _Rows:
        """The rows, for a change (refused when read-only or closed)."""
        if self.readonly:
            raise ReadOnlySession(f"{self.path}: {self.message or 'opened read-only'}")
        if self.closed:
            raise SessionError(f"{self.path}: session is closed")
        return self._rows

    def _committed(self) -> None:
        self._rows.version += 1
        self._seen = self._rows.version

    # ------------------------------------------------------------------ meta

    def _meta_all(self) -> dict[str, Any]:
        return self._rows.meta

    @property
    def name(self) -> str:
        return str(self._rows.meta.get("name") or Path(self.path).stem)

    def set_meta(self, key: str, value: Any) -> None:
        rows = self._write()
        rows.meta[key] = json.loads(dumps_json(value))
        if key == "families":
            rows.stats.clear()
            self._analyser = None
        self._committed()
        self._notify(MetaChanged())

    # ------------------------------------------------------------------ cases

    def case_ids(self) -> list[str]:
        return list(self._rows.cases)

    def __len__(self) -> int:
        return len(self._rows.cases)

    def index_of(self, case_id: str) -> int:
        try:
            return list(self._rows.cases).index(case_id)
        except ValueError:
            raise KeyError(case_id) from None

    def adopt_case_ids(self, ids: list[str], positions: dict[str, int]) -> None:
        """Nothing to keep: the ids are in memory already."""

    def ids_starting(self, prefix: str, limit: int) -> list[str]:
        ordered = sorted(self._rows.cases)
        found: set[str] = set()
        for form in prefix_forms(prefix):
            at = bisect.bisect_left(ordered, form)
            found.update(cid for cid in ordered[at:at + limit] if cid.startswith(form))
        return sorted(found)[:limit]

    def ids_between(self, start: int, stop: int) -> list[str]:
        return self.case_ids()[max(0, start):max(0, stop)]

    def case_data(self, case_id: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self._rows.cases[case_id])
        return data

    def get_case(self, case_id: str) -> Case:
        try:
            return Case.from_dict(self.case_data(case_id), case_id)
        except InputError as err:
            raise SessionError(f"{self.path}: case {case_id!r}: {err}") from None

    def adopt_case(self, case: Case) -> None:
        """Nothing to keep: a case is parsed from its JSON on each use."""

    def case_at(self, index: int) -> Case:
        return self.get_case(self.case_ids()[index])

    def dataset(self) -> SessionDataset:
        return SessionDataset(self)

    def add_cases(self, cases: Iterable[Case]) -> list[str]:
        have = self._rows.cases
        new = [c for c in cases if c.id not in have]
        if not new:
            return []
        rows = self._write()
        for c in new:
            rows.cases[c.id] = dumps_json(c.to_dict())
        self._committed()
        self._notify(CasesAdded())
        return [c.id for c in new]

    def update_case(self, case: Case) -> Reattached:
        old = self.get_case(case.id)
        data = dumps_json(case.to_dict())
        if old.answer == case.answer:
            result = Reattached(self.annotations(case.id), [])
            if data != dumps_json(old.to_dict()):
                self._write().cases[case.id] = data
                self._committed()
        else:
            moved = moved_rows(self, old, case)
            result = moved.annotations
            rows = self._write()
            for ev in moved.evidence:
                rows.evidence[ev.id] = ev
            for fix in moved.corrections:
                rows.corrections[fix.id] = fix
            rows.cases[case.id] = data
            rows.annotations = [(n, a) for n, a in rows.annotations if a.case_id != case.id]
            rows.stats.pop(case.id, None)
            for ann in [*result.placed, *result.orphaned]:
                rows.annotations.append((rows.next_row, ann))
                rows.next_row += 1
            self._committed()
        self._notify(CaseChanged(case.id))
        return result

    def sync_from(self, dataset: Dataset) -> dict[str, Reattached]:
        return sync_cases(self, dataset, self._rows.cases.get)

    # ------------------------------------------------------------------ analysis


    def sizes(self) -> dict[str, tuple[int, ...]]:
        return self._rows.stats

    def record_sizes(self, case_id: str, sizes: Sequence[int]) -> None:
        self.record_sizes_many({case_id: tuple(sizes)}, store=False)

    def record_sizes_many(self, sizes: dict[str, tuple[int, ...]], store: bool = True) -> None:
        known = self._rows.stats
        new = {cid: tuple(v) for cid, v in sizes.items()
               if known.get(cid) != tuple(v) and cid in self._rows.cases}
        known.update(new)
        if new:
            self._notify(*[SizesKnown(cid) for cid in new])

    def flush_sizes(self) -> None:
        """Nothing kept back: counts are stored at once."""

    # ------------------------------------------------------------------ annotations

    def annotation(self, key: AnnotationKey, annotator: str | None = None) -> Annotation | None:
        who = self.annotator if annotator is None else annotator
        for _n, a in self._rows.annotations:
            if a.key == key and a.annotator == who and not a.orphaned:
                return a
        return None

    def iter_annotations(self, case_id: str | None = None, *, annotator: str | None = None,
                         orphaned: bool | None = None,
                         number: int | None = None) -> Iterator[Annotation]:
        pos = {cid: i for i, cid in enumerate(self._rows.cases)}
        asked = RowFilter(case_id, annotator, number, orphaned)
        found = [(pos[a.case_id], a.key.number, a.key.source_id, a.annotator, n, a)
                 for n, a in self._rows.annotations
                 if asked.matches(a.case_id, a.annotator, a.key, a.orphaned)
                 and a.case_id in pos]
        found.sort(key=lambda row: row[:5])
        for row in found:
            yield row[5]

    def review(self, case_id: str, annotator: str | None = None) -> CaseReview:
        who = self.annotator if annotator is None else annotator
        return self._rows.reviews.get((case_id, who)) or CaseReview(case_id, who)

    def reviews(self, case_id: str | None = None) -> list[CaseReview]:
        pos = {cid: i for i, cid in enumerate(self._rows.cases)}
        found = [r for r in self._rows.reviews.values()
                 if r.case_id in pos and (case_id is None or r.case_id == case_id)]
        return sorted(found, key=lambda r: (pos[r.case_id], r.annotator))

    def states(self, annotator: str | None = None) -> dict[str, ReviewState]:
        who = self.annotator if annotator is None else annotator
        return {cid: r.state for (cid, a), r in self._rows.reviews.items() if a == who}

    def annotator_progress(self) -> dict[str, ReviewTally]:
        cases = self._rows.cases
        return tally_reviews(r for r in self._rows.reviews.values() if r.case_id in cases)

    def first_not_done(self, annotator: str | None = None) -> int | None:
        return index_not_done(self.case_ids(), self.states(annotator))

    # ------------------------------------------------------------------ evidence, corrections

    def evidence(self, case_id: str | None = None, *, key: AnnotationKey | None = None,
                 annotator: str | None = None) -> list[Evidence]:
        pos = {cid: i for i, cid in enumerate(self._rows.cases)}
        asked = RowFilter(case_id, annotator, key=key)
        found = [e for e in self._rows.evidence.values()
                 if e.case_id in pos and asked.matches(e.case_id, e.annotator, e.key)]
        return sorted(found, key=lambda e: (pos[e.case_id], e.key.number, e.key.source_id,
                                            e.start, e.end, e.annotator, e.id))

    def corrections(self, case_id: str | None = None, *,
                    annotator: str | None = None) -> list[Correction]:
        by_case: dict[str, list[Correction]] = {}
        asked = RowFilter(case_id, annotator)
        for c in self._rows.corrections.values():
            if asked.matches(c.case_id, c.annotator):
                by_case.setdefault(c.case_id, []).append(c)
        return [c for cid in self._rows.cases for c in ordered(by_case.get(cid, []))]

    def current_row(self, change: RowChange) -> Row | None:
        if change.kind in ("evidence", "correction"):
            marks = self._rows.evidence if change.kind == "evidence" else self._rows.corrections
            found_m = marks.get(change.ident)
            return found_m if found_m is not None and found_m.case_id == change.case_id else None
        if change.kind == "annotation":
            return self.annotation_row(change)
        return self._rows.reviews.get((change.case_id, change.annotator))

    def apply(self, changes: Sequence[RowChange]) -> None:
        """All of ``changes`` or none (checked before any is made), then notify."""
        rows = self._write()
        annotations = list(rows.annotations)
        reviews = dict(rows.reviews)
        evidence = dict(rows.evidence)
        corrections = dict(rows.corrections)
        next_row = rows.next_row
        for ch in changes:
            check_row(ch)
            if ch.case_id not in rows.cases:
                raise SessionError(f"{self.path}: cannot store the change (no case "
                                   f"{ch.case_id!r})")
            if ch.kind == "evidence":
                self._put_mark(evidence, ch, Evidence)
            elif ch.kind == "correction":
                self._put_mark(corrections, ch, Correction)
            elif ch.kind == "annotation":
                at = next((i for i, (_n, a) in enumerate(annotations)
                           if a.key == ch.key and a.annotator == ch.annotator
                           and a.orphaned == ch.orphaned), None)
                if at is not None:
                    del annotations[at]
                if isinstance(ch.new, Annotation):
                    new = ch.new
                    if not new.orphaned and any(
                            a.key == new.key and a.annotator == new.annotator and not a.orphaned
                            for _n, a in annotations):
                        raise SessionError(f"{self.path}: cannot store the change (the "
                                           "annotation exists)")
                    annotations.append((next_row, replace(new)))
                    next_row += 1
            else:
                reviews.pop((ch.case_id, ch.annotator), None)
                if isinstance(ch.new, CaseReview):
                    reviews[(ch.case_id, ch.annotator)] = ch.new
        rows.annotations, rows.reviews, rows.next_row = annotations, reviews, next_row
        rows.evidence, rows.corrections = evidence, corrections
        self._committed()
        self._notify(*[row_event(ch) for ch in changes])


    def _put_mark(self, marks: dict[str, _M], ch: RowChange, kind: type[_M]) -> None:
        """Evidence or a correction (``marks``, by id) as ``ch`` writes it."""
        if ch.ident in marks and marks[ch.ident].case_id == ch.case_id:
            del marks[ch.ident]
        if isinstance(ch.new, kind):
            if ch.ident in marks:
                raise SessionError(f"{self.path}: cannot store the change ({ch.kind} "
                                   f"{ch.ident!r} exists)")
            marks[ch.ident] = ch.new


def _typed(session: MemorySession) -> ReviewStore:
    return session  # mypy checks that a MemorySession is a ReviewStore


__all__ = ["MemoryBackend", "MemorySession"]

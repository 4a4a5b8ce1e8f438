"""A reviewer's own cases in a routed team project (none overlap, or N reviewers per case).

In such a project the server hands out the cases (:mod:`citeview.session.pg.routing`), so a
reviewer's window lists only what is theirs: the cases handed to them (held now, or done) and
those they reviewed, in input order. :class:`RoutedStore` is the reviewer's
:class:`~citeview.session.outbox.OutboxStore` with that list as its cases: the window's list,
its navigation and its resume read it unchanged. :meth:`RoutedStore.take_next` asks the server
for the next hand-out once the held cases are done; a write to a case not handed to the
reviewer is refused here (the server would keep it only flagged late). A lead, and a project
of full overlap, use the plain :class:`OutboxStore` (every case).

The list is kept in the outbox file, so an offline start lists the same cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from citeview.core.cases import Case
from citeview.session.errors import SessionError
from citeview.session.events import CasesAdded
from citeview.session.model import ReviewState, index_not_done
from citeview.session.outbox import Outbox, OutboxStore
from citeview.session.protocol import ReviewStore, RowChange

_MINE = "own_cases"  # the outbox's key of the reviewer's list
ROUTING = "routing"  # the outbox's key of the project's overlap (None: full)

NO_MORE = ("No more cases for you: every case handed to you is done and the server has none "
           "left to hand out in this project")


class RoutedStore(OutboxStore):
    """:class:`OutboxStore` whose cases are the reviewer's own (see the module)."""

    def __init__(self, server: ReviewStore | None, outbox: Outbox, **kwargs: Any) -> None:
        kept = outbox.kept(_MINE)
        self._mine: list[str] = [str(c) for c in kept] if isinstance(kept, list) else []
        self.exhausted = False  # the server said it has nothing more to hand out
        super().__init__(server, outbox, **kwargs)
        self._read_mine()

    # ------------------------------------------------------------------ the list

    def _read_mine(self) -> None:
        """The reviewer's list as the server has it (kept for an offline start)."""
        own = getattr(self._server, "own_cases", None)
        if not self.online or own is None:
            return
        try:
            mine = [str(c) for c in own()]
        except self._offline_errors as err:
            self._went_offline(err)
            self._status_changed()
            return
        self._mine = mine
        self.outbox.keep(_MINE, mine)

    def _order(self, ids: Sequence[str]) -> list[str]:
        """``ids`` in input order (as far as the project's list is known)."""
        pos = {cid: i for i, cid in enumerate(super().case_ids())}
        return sorted(dict.fromkeys(ids), key=lambda c: pos.get(c, len(pos)))

    def next_cases(self, ahead: int = 3) -> list[str]:
        """Hand-outs topped up to ``ahead`` (:meth:`OutboxStore.next_cases`); new ones join
        the list (the window hears :class:`CasesAdded`)."""
        held = super().next_cases(ahead)
        self._join(held)
        return held

    def _join(self, held: Sequence[str]) -> bool:
        new = [cid for cid in held if cid not in self._mine]
        if not new:
            return False
        self._mine = self._order([*self._mine, *new])
        self.outbox.keep(_MINE, self._mine)
        self._subscribers.notify(CasesAdded())
        return True

    def take_next(self, ahead: int = 3) -> str | None:
        """The reviewer's next case not done: one of the list, else a new hand-out from the
        server (None, and :attr:`exhausted`, when there is none; offline: None)."""
        states = self.states()
        for cid in self._mine:
            if states.get(cid) is not ReviewState.DONE:
                return cid
        if not self.online:
            return None
        held = self.next_cases(ahead)
        states = self.states()
        fresh = [cid for cid in held if states.get(cid) is not ReviewState.DONE]
        self.exhausted = not fresh and self.online
        return fresh[0] if fresh else None

    def handed(self, case_id: str) -> bool:
        return case_id in self._mine

    def in_project(self, case_id: str) -> bool:
        """Whether ``case_id`` is a case of the project (handed to this reviewer or not)."""
        return case_id in super().case_ids()

    # ------------------------------------------------------------------ cases: the list

    def case_ids(self) -> list[str]:
        return list(self._mine)

    def __len__(self) -> int:
        return len(self._mine)

    def index_of(self, case_id: str) -> int:
        try:
            return self._mine.index(case_id)
        except ValueError:
            raise KeyError(case_id) from None

    def ids_between(self, start: int, stop: int) -> list[str]:
        return list(self._mine[max(0, start):max(0, stop)])

    def case_at(self, index: int) -> Case:
        return self.get_case(self._mine[index])

    def first_not_done(self, annotator: str | None = None) -> int | None:
        return index_not_done(self._mine, self.states(annotator))

    def apply(self, changes: Sequence[RowChange]) -> None:
        """Refused for a case not handed to this reviewer (say so, keep nothing)."""
        for ch in changes:
            if ch.annotator == self.annotator and ch.case_id not in self._mine:
                raise SessionError(f"case {ch.case_id!r} is not handed to you in this routed "
                                   "project: it cannot be reviewed here")
        super().apply(changes)


def _lead_on_routed(store: OutboxStore) -> bool:
    """Whether ``store`` is a lead's window on a routed project (as the outbox kept it)."""
    routing = store.outbox.kept(ROUTING) or {}
    return routing.get("overlap") is not None and bool(routing.get("privileged"))


def takes_handouts(store: OutboxStore) -> bool:
    """Whether the window leases cases for this member: not a lead's window on a routed
    project (a lead adjudicates; holding cases would take reviewers' places in N)."""
    return not _lead_on_routed(store)


def reviewer_counts(store: OutboxStore) -> dict[str, int] | None:
    """Per case, how many reviewers it has (held or done), for a lead's window on a routed
    project; None when the server does not say (offline, not a routed project, a reviewer)."""
    if not _lead_on_routed(store):
        return None

    def online(server: ReviewStore) -> dict[str, int] | None:
        counts = getattr(server, "reviewer_counts", None)
        return None if counts is None else dict(counts())
    return store.ask(online, lambda: None)


def routed(overlap: int | None, privileged: bool) -> bool:
    """Whether a reviewer's window follows routing: a project of N per case (or none), opened
    by an annotator (a lead sees every case)."""
    return overlap is not None and not privileged


__all__ = ["NO_MORE", "ROUTING", "RoutedStore", "reviewer_counts", "routed",
           "takes_handouts"]

"""Making projects: a new one from cases (:class:`PgBackend`), a copy of any session
(:func:`copy_session`: ``citeview import``/``merge`` into a project, ``team create`` from a
session), cases written in bulk (:func:`copy_cases`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from psycopg import errors as pgerrors

from citeview.core.cases import Case
from citeview.core.datasets import Dataset
from citeview.core.markers import DEFAULT_FAMILIES
from citeview.session.errors import SessionError
from citeview.session.jsonio import dumps_json
from citeview.session.model import DEFAULT_LABELS, now_iso
from citeview.session.pg.address import parse_address
from citeview.session.pg.connection import Conn, connect
from citeview.session.pg.connection import guard as _guard
from citeview.session.pg.schema import migrate, server_version
from citeview.session.protocol import ReviewStore
from citeview.session.settings import DOCUMENT_EXTRA

if TYPE_CHECKING:
    from citeview.session.pg.store import PgSession


class PgBackend:
    """Projects on PostgreSQL servers, by address (:mod:`.address`); a
    :class:`~citeview.session.protocol.SessionBackend`."""

    def exists(self, path: str) -> bool:
        address = parse_address(path)
        with _guard(path), connect(address, readonly=True) as conn:
            if server_version(conn) == 0:
                return False
            row = conn.execute("SELECT 1 FROM citeview.projects WHERE name = %s",
                               (address.project,)).fetchone()
            return row is not None

    def open(self, path: str, *, annotator: str = "", readonly: bool = False,
             force: bool = False) -> PgSession:
        from citeview.session.pg.store import PgSession

        return PgSession.open(path, annotator=annotator, readonly=readonly, force=force)

    def create(self, path: str, cases: Dataset | Iterable[Case], *, annotator: str = "",
               source: str | None = None, labels: Sequence[str] = DEFAULT_LABELS,
               families: Sequence[str] = DEFAULT_FAMILIES, name: str | None = None,
               overwrite: bool = False, blind: bool = False, overlap: int | None = None,
               lease_seconds: int = 600) -> PgSession:
        self.create_file(path, cases, source=source, labels=labels, families=families,
                         name=name, overwrite=overwrite, blind=blind, overlap=overlap,
                         lease_seconds=lease_seconds)
        return self.open(path, annotator=annotator)

    def create_file(self, path: str, cases: Dataset | Iterable[Case], *,
                    source: str | None = None, labels: Sequence[str] = DEFAULT_LABELS,
                    families: Sequence[str] = DEFAULT_FAMILIES, name: str | None = None,
                    overwrite: bool = False, blind: bool = False, overlap: int | None = None,
                    lease_seconds: int = 600, meta: dict[str, Any] | None = None) -> None:
        """A new project (the database's schema installed or migrated first: an admin's or a
        lead's job). The creator, unless a superuser, becomes its lead."""
        address = parse_address(path)
        if meta is None:
            meta = {"name": name or address.project, "labels": list(labels), "blind": blind,
                    "families": list(families), "created": now_iso()}
            if source is not None:
                meta["source"] = source
        else:
            blind = bool(meta.get("blind", False))
        items: Iterable[Case] = cases.iter_cases() if isinstance(cases, Dataset) else cases
        with _guard(path), connect(address) as conn:
            migrate(conn)
            with conn.transaction():
                try:
                    with conn.transaction():
                        conn.execute("SELECT citeview.create_project(%s, %s, %s, %s, %s, %s)",
                                     (address.project, dumps_json(meta), blind, overlap,
                                      lease_seconds, overwrite))
                except pgerrors.UniqueViolation:
                    raise SessionError(f"{path}: already exists (choose another name, or "
                                       "--force to replace it)") from None
                copy_cases(conn, path, address.project, items, 0)


def copy_session(source: ReviewStore, path: str, *, overwrite: bool = False,
                 overlap: int | None = None, lease_seconds: int = 600,
                 blind: bool | None = None) -> None:
    """A new project at ``path`` holding everything of ``source`` (a file, another project):
    settings, cases, counts, annotations and reviews (``citeview import``/``merge`` into a
    project, ``team create`` from a session)."""
    meta = dict(source.meta)
    extra = source.document_extra
    if extra:
        meta[DOCUMENT_EXTRA] = extra
    if blind is not None:
        meta["blind"] = blind
    cases = (Case.from_dict(source.case_data(cid), cid) for cid in source.case_ids())
    from citeview.session.pg.store import PgSession

    PgBackend().create_file(path, cases, overwrite=overwrite, overlap=overlap,
                            lease_seconds=lease_seconds, meta=meta)
    with PgSession.open(path) as target:
        target.fill_from(source)


def copy_cases(conn: Conn, path: str, project: str, cases: Iterable[Case], first: int,
               known: set[str] | None = None) -> list[str]:
    """Write ``cases`` (new ids only, in order from position ``first``); their ids. COPY into
    a temporary table, then one INSERT: COPY FROM does not take a table under row-level
    security, and a lead's rows must pass its policy (inside the caller's transaction)."""
    seen: set[str] = set() if known is None else known
    added: list[str] = []
    conn.execute("CREATE TEMPORARY TABLE IF NOT EXISTS citeview_new_cases "
                 "(pos integer, id text, data text) ON COMMIT DROP")
    with conn.cursor().copy("COPY citeview_new_cases (pos, id, data) FROM STDIN") as copy:
        for case in cases:
            if case.id in seen:
                if known is None:
                    raise SessionError(f"{path}: duplicate case ids in the input")
                continue
            seen.add(case.id)
            copy.write_row((first + len(added), case.id, dumps_json(case.to_dict())))
            added.append(case.id)
    conn.execute("INSERT INTO citeview.cases (project, pos, id, data) SELECT %s, pos, id, data "
                 "FROM citeview_new_cases ORDER BY pos", (project,))
    conn.execute("DROP TABLE citeview_new_cases")
    return added


__all__ = ["PgBackend", "copy_cases", "copy_session"]

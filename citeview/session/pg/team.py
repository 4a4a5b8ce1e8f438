"""What a lead does with a project: members (a PostgreSQL role each), and its status.

Adding a member who has no role yet creates it (``LOGIN``, no password: the database admin sets
one, or the server authenticates otherwise) and grants it ``citeview_annotator`` (or
``citeview_lead``); that needs a role allowed to create roles (the admin). Removing a member
takes them off the project and returns the cases they hold to the queue; the role stays (it may
belong to other projects, and its verdicts stay attributed to it).
"""

from __future__ import annotations

import json
import select
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import psycopg
from psycopg import sql

from citeview.session.errors import SessionError
from citeview.session.pg.address import parse_address
from citeview.session.pg.connection import Conn, connect, server_error
from citeview.session.pg.schema import ANNOTATOR, LEAD, migrate
from citeview.session.pg.store import PgSession

Kind = Literal["annotator", "lead"]


def _exists(conn: Conn, project: str, where: str) -> None:
    if conn.execute("SELECT 1 FROM citeview.projects WHERE name = %s",
                    (project,)).fetchone() is None:
        raise SessionError(f"{where}: no such project, or you are not its lead")


def add_member(address_text: str, role: str, kind: Kind = "annotator") -> bool:
    """Make ``role`` an annotator (or lead) of the project; True when the role was created."""
    address = parse_address(address_text)
    created = False
    with connect(address) as conn:
        try:
            migrate(conn)
            _exists(conn, address.project, address_text)
            with conn.transaction():
                have = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s",
                                    (role,)).fetchone()
                if have is None:
                    conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
                    created = True
                group = LEAD if kind == "lead" else ANNOTATOR
                granted = conn.execute("SELECT pg_has_role(%s, %s, 'MEMBER')",
                                       (role, group)).fetchone()
                if not (granted and granted[0]):  # (granting needs the admin)
                    conn.execute(sql.SQL("GRANT {} TO {}").format(sql.Identifier(group),
                                                                 sql.Identifier(role)))
                conn.execute(
                    "INSERT INTO citeview.members (project, role, kind) VALUES (%s, %s, %s) "
                    "ON CONFLICT (project, role) DO UPDATE SET kind = EXCLUDED.kind",
                    (address.project, role, kind))
        except psycopg.Error as err:
            raise server_error(address_text, err) from None
    return created


def remove_member(address_text: str, role: str) -> None:
    """Take ``role`` off the project; the cases it holds return to the queue."""
    address = parse_address(address_text)
    with connect(address) as conn:
        try:
            _exists(conn, address.project, address_text)
            with conn.transaction():
                gone = conn.execute("DELETE FROM citeview.members WHERE project = %s AND "
                                    "role = %s RETURNING 1", (address.project, role)).fetchone()
                if gone is None:
                    raise SessionError(f"{address_text}: {role} is not a member")
                conn.execute("SELECT citeview.release_leases(%s, %s)", (address.project, role))
        except psycopg.Error as err:
            raise server_error(address_text, err) from None


@dataclass(slots=True)
class Reviewer:
    """One member's progress: verdicts given, cases done, cases in progress or held."""

    name: str
    kind: str
    judged: int = 0
    done: int = 0
    in_progress: int = 0
    held: int = 0
    late: int = 0


@dataclass(slots=True)
class Status:
    project: str
    cases: int
    overlap: int | None
    blind: bool
    reviewers: list[Reviewer]
    per_case: dict[int, int]  # number of reviewers -> number of cases with that many
    complete: int  # cases with their N reviewers done (every member's, for full overlap)
    agreement: float | None  # percent agreement over items two reviewers judged
    agreement_items: int = 0
    pairs: list[tuple[str, str, float | None, int]] = field(default_factory=list)
    # case id -> reviewers (done or at work, late ones apart), when asked for
    cases_reviewers: dict[str, list[str]] | None = None


def status(session: PgSession, *, per_case: bool = False) -> Status:
    """The project's progress as the connected role may see it (a lead: everything);
    ``per_case``: each case's reviewers too."""
    conn, p = session.conn, session.project
    try:
        head = conn.execute("SELECT overlap, blind, (SELECT count(*) FROM citeview.cases WHERE "
                            "project = %s) FROM citeview.projects WHERE name = %s",
                            (p, p)).fetchone()
        if head is None:
            raise SessionError(f"{session.path}: the project is gone")
        reviewers: dict[str, Reviewer] = {
            str(r): Reviewer(str(r), str(k)) for r, k in conn.execute(
                "SELECT role, kind FROM citeview.members WHERE project = %s ORDER BY role",
                (p,))}

        def who(name: str) -> Reviewer:
            return reviewers.setdefault(name, Reviewer(name, ""))

        for name, judged, late in conn.execute(
                "SELECT annotator, count(*) FILTER (WHERE verdict IS NOT NULL), "
                "count(*) FILTER (WHERE late) FROM citeview.annotations WHERE project = %s "
                "GROUP BY annotator", (p,)):
            who(str(name)).judged, who(str(name)).late = int(judged), int(late)
        for name, done, busy in conn.execute(
                "SELECT annotator, count(*) FILTER (WHERE state = 'done'), "
                "count(*) FILTER (WHERE state = 'in progress') FROM citeview.reviews "
                "WHERE project = %s GROUP BY annotator", (p,)):
            who(str(name)).done, who(str(name)).in_progress = int(done), int(busy)
        for name, held in conn.execute(
                "SELECT reviewer, count(*) FROM citeview.assignments WHERE project = %s AND "
                "state = 'leased' AND lease_until >= now() GROUP BY reviewer", (p,)):
            who(str(name)).held = int(held)
        histogram: dict[int, int] = {}
        for n, count in conn.execute(  # one pass over each table (hash joins), not a case
                "SELECT n, count(*) FROM (SELECT c.id, count(DISTINCT x.annotator) AS n "
                "FROM citeview.cases c LEFT JOIN (SELECT case_id, annotator FROM "
                "citeview.reviews WHERE project = %s AND NOT late UNION SELECT case_id, "
                "annotator FROM citeview.annotations WHERE project = %s AND NOT late) x "
                "ON x.case_id = c.id WHERE c.project = %s GROUP BY c.id) t "
                "GROUP BY n ORDER BY n", (p, p, p)):
            histogram[int(n)] = int(count)
        overlap = head[0]
        need = overlap if overlap is not None else max(1, sum(
            1 for r in reviewers.values() if r.kind == "annotator"))
        row = conn.execute(
            "SELECT count(*) FROM (SELECT case_id FROM citeview.reviews WHERE project = %s AND "
            "state = 'done' AND NOT late GROUP BY case_id HAVING count(*) >= %s) t",
            (p, need)).fetchone()
        complete = int(row[0]) if row else 0
    except psycopg.Error as err:
        raise server_error(session.path, err) from None
    found = Status(p, int(head[2]), overlap, bool(head[1]), list(reviewers.values()),
                   histogram, complete, None)
    if per_case:
        found.cases_reviewers = _case_reviewers(session)
    _agreement(session, found)
    return found


def _case_reviewers(session: PgSession) -> dict[str, list[str]]:
    """Every case's reviewers in input order: who reviewed or judged it (not late)."""
    try:
        p = session.project
        rows = session.conn.execute(
            "SELECT c.id, coalesce(array_agg(DISTINCT x.annotator ORDER BY x.annotator) "
            "FILTER (WHERE x.annotator IS NOT NULL), '{}') FROM citeview.cases c LEFT JOIN "
            "(SELECT case_id, annotator FROM citeview.reviews WHERE project = %s AND NOT late "
            "UNION SELECT case_id, annotator FROM citeview.annotations WHERE project = %s AND "
            "NOT late) x ON x.case_id = c.id WHERE c.project = %s GROUP BY c.id, c.pos "
            "ORDER BY c.pos", (p, p, p)).fetchall()
    except psycopg.Error as err:
        raise server_error(session.path, err) from None
    return {str(cid): [str(n) for n in names] for cid, names in rows}


def _agreement(session: PgSession, found: Status) -> None:
    """Percent agreement so far: over every pair of reviewers, the items both judged."""
    verdicts: dict[str, dict[tuple[str, int, str, str], str]] = {}
    for ann in session.iter_annotations(orphaned=False):
        if ann.verdict is not None:
            k = ann.key
            verdicts.setdefault(ann.annotator, {})[(k.case_id, k.number, k.anchor,
                                                    k.source_id)] = ann.verdict
    names = sorted(verdicts)
    same = total = 0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            shared = verdicts[a].keys() & verdicts[b].keys()
            agree = sum(1 for item in shared if verdicts[a][item] == verdicts[b][item])
            if shared:
                found.pairs.append((a, b, 100.0 * agree / len(shared), len(shared)))
            same += agree
            total += len(shared)
    found.agreement_items = total
    found.agreement = 100.0 * same / total if total else None


def render_status(found: Status) -> str:
    overlap = ("every reviewer" if found.overlap is None else
               "no overlap" if found.overlap == 1 else f"{found.overlap} reviewers")
    lines = [f"project {found.project}: {found.cases} cases, {overlap} per case"
             f"{', blind' if found.blind else ''}; {found.complete} complete",
             f"{'reviewer':<20} {'kind':<10} {'judged':>7} {'done':>6} {'in progress':>12} "
             f"{'held':>5} {'late':>5}"]
    for r in found.reviewers:
        lines.append(f"{r.name:<20} {r.kind or '-':<10} {r.judged:>7} {r.done:>6} "
                     f"{r.in_progress:>12} {r.held:>5} {r.late:>5}")
    lines.append("cases by number of reviewers: " + ", ".join(
        f"{n}: {count}" for n, count in sorted(found.per_case.items())))
    if found.agreement is None:
        lines.append("agreement so far: no item judged by two reviewers yet")
    else:
        lines.append(f"agreement so far: {found.agreement:.1f}% over "
                     f"{found.agreement_items} items judged by two reviewers")
        for a, b, pct, n in found.pairs:
            lines.append(f"  {a} / {b}: {pct:.1f}% over {n}")
    if found.cases_reviewers is not None:
        lines.append("reviewers per case:")
        for cid, names in found.cases_reviewers.items():
            lines.append(f"  {cid}: {len(names)} ({', '.join(names) or '-'})")
    return "\n".join(lines) + "\n"


def status_json(found: Status) -> dict[str, Any]:
    return {
        "project": found.project, "cases": found.cases, "overlap": found.overlap,
        "blind": found.blind, "complete": found.complete,
        "reviewers": [{"name": r.name, "kind": r.kind, "judged": r.judged, "done": r.done,
                       "in_progress": r.in_progress, "held": r.held, "late": r.late}
                      for r in found.reviewers],
        "cases_by_reviewers": {str(n): c for n, c in sorted(found.per_case.items())},
        "agreement": found.agreement, "agreement_items": found.agreement_items,
        "pairs": [{"a": a, "b": b, "percent": pct, "items": n} for a, b, pct, n in found.pairs],
        **({} if found.cases_reviewers is None else {"case_reviewers": found.cases_reviewers}),
    }


def follow(session: PgSession, show: Callable[[Status], None], *,
           stop: Callable[[], bool] = lambda: False, quiet: float = 0.5,
           idle: float = 5.0, per_case: bool = False) -> None:
    """Call ``show`` with the status now, then again when it changed: looked at after each
    burst of changes other clients commit (``LISTEN citeview``; bursts within ``quiet``
    seconds are one) and every ``idle`` seconds (a lease expires without a notification),
    until ``stop()``."""
    listener = connect(session.address, readonly=True)
    try:
        listener.execute("LISTEN citeview")
        last = status(session, per_case=per_case)
        show(last)
        while not stop():
            _wait(listener, session.project, idle, quiet)
            now = status(session, per_case=per_case)
            if status_json(now) != status_json(last):
                show(now)
            last = now
    except psycopg.Error as err:
        raise server_error(session.path, err) from None
    finally:
        listener.close()


def _wait(listener: Conn, project: str, idle: float, quiet: float) -> bool:
    """Whether a change of ``project`` came within ``idle`` seconds (then the burst drained)."""
    seen = False
    for note in _notes(listener, idle):
        if _of(note, project):
            seen = True
            break
    if seen:
        for _note in _notes(listener, quiet):
            pass
    return seen


def _notes(listener: Conn, timeout: float) -> Iterator[str]:
    select.select([listener.fileno()], [], [], timeout)
    for note in listener.notifies(timeout=0.0):
        yield note.payload


def _of(payload: str, project: str) -> bool:
    try:
        return bool(json.loads(payload).get("project") == project)
    except (ValueError, AttributeError):
        return False


__all__ = ["Reviewer", "Status", "add_member", "follow", "remove_member", "render_status",
           "status", "status_json"]

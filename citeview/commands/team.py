"""citeview team: review as a team on a PostgreSQL server (a project per review).

``team create PROJECT INPUT`` (any input citeview reads; a session brings its verdicts),
``team add PROJECT ROLE...`` (``--lead``), ``team remove PROJECT ROLE...``, ``team status
PROJECT [--follow]``, ``team upgrade PROJECT`` (the server's schema). PROJECT is
``postgresql://[user@]host/db?project=NAME`` or ``pg:SERVICE/NAME``; the password comes from
libpq (PGPASSWORD, ~/.pgpass, a service file), never from the command line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from citeview.commands._inputs import load_path
from citeview.commands._sessions import SESSIONS
from citeview.core.errors import InputError
from citeview.session.backends import server_backend
from citeview.session.model import DEFAULT_LABELS, rubric_labels

HELP = "team review on a PostgreSQL server: create a project, add or remove members, status"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    create = sub.add_parser("create", help="a new project from any input citeview reads",
                            description="A new project from any input citeview reads (a "
                            "session brings its verdicts too).")
    create.add_argument("project", metavar="PROJECT", help="postgresql://...?project=NAME or "
                        "pg:SERVICE/NAME")
    create.add_argument("input", metavar="INPUT", help="cases: a dataset, case, transcript, "
                        "session ...")
    create.add_argument("--labels", metavar="A,B,...",
                        help=f"the rubric (default: {','.join(DEFAULT_LABELS)}; a session's "
                             "own otherwise)")
    create.add_argument("--blind", action="store_true",
                        help="annotators cannot see each other's verdicts (nor lint hints)")
    create.add_argument("--overlap", default="full", metavar="full|none|N",
                        help="reviewers per case: every reviewer (full, the default), one "
                             "(none), or exactly N")
    create.add_argument("--lease", type=int, default=600, metavar="SECONDS",
                        help="how long a handed-out case waits for a silent reviewer before "
                             "it goes to another (default 600; renewed while a window is open)")
    create.add_argument("--force", action="store_true", help="replace the project if it exists")
    for name, what in (("add", "make roles members (a role is created when missing)"),
                       ("remove", "take roles off the project (their cases return to the "
                                  "queue)")):
        p = sub.add_parser(name, help=what, description=what)
        p.add_argument("project", metavar="PROJECT")
        p.add_argument("roles", metavar="ROLE", nargs="+", help="PostgreSQL role names")
        if name == "add":
            p.add_argument("--lead", action="store_true",
                           help="as leads (read everything, adjudicate, manage members)")
    upgrade = sub.add_parser("upgrade", help="bring the server's citeview schema up to this "
                             "citeview's (the admin's job)")
    upgrade.add_argument("project", metavar="PROJECT", help="any project address on the server")
    status = sub.add_parser("status", help="progress per reviewer and per case, agreement",
                            description="Progress: per reviewer verdicts given, cases done and "
                            "in progress; cases by number of reviewers; agreement so far.")
    status.add_argument("project", metavar="PROJECT")
    status.add_argument("--follow", action="store_true",
                        help="show it again whenever reviewers change something (Ctrl+C ends)")
    status.add_argument("--cases", action="store_true",
                        help="list each case with its reviewers too")
    status.add_argument("--format", choices=("text", "json"), default="text")


def overlap_of(text: str) -> int | None:
    """``--overlap``: None for full, 1 for none, else N (positive)."""
    if text == "full":
        return None
    if text == "none":
        return 1
    if text.isdigit() and int(text) > 0:
        return int(text)
    raise InputError(f"--overlap {text}: give full, none or a number of reviewers (1 or more)")


def run(args: argparse.Namespace) -> int:
    server_backend(args.project)  # psycopg present, and an address (checked next)
    from citeview.session.pg.address import parse_address

    parse_address(args.project)
    if args.action == "create":
        return _create(args)
    if args.action == "add":
        from citeview.session.pg.team import add_member

        for role in args.roles:
            made = add_member(args.project, role, "lead" if args.lead else "annotator")
            print(f"{role}: {'created and ' if made else ''}added as "
                  f"{'lead' if args.lead else 'annotator'}", file=sys.stderr)
        return 0
    if args.action == "remove":
        from citeview.session.pg.team import remove_member

        for role in args.roles:
            remove_member(args.project, role)
            print(f"{role}: removed", file=sys.stderr)
        return 0
    if args.action == "upgrade":
        return _upgrade(args)
    return _status(args)


def _upgrade(args: argparse.Namespace) -> int:
    import psycopg

    from citeview.session.pg.address import parse_address
    from citeview.session.pg.schema import migrate, server_version
    from citeview.session.pg.store import connect, server_error

    address = parse_address(args.project)
    with connect(address) as conn:
        try:
            before = server_version(conn)
            after = migrate(conn)
        except psycopg.Error as err:
            raise server_error(args.project, err) from None
    print(f"server schema {before} -> {after}" if after != before
          else f"server schema {after}: up to date", file=sys.stderr)
    return 0


def _create(args: argparse.Namespace) -> int:
    from citeview.session.pg.store import PgBackend, copy_session

    overlap = overlap_of(args.overlap)
    if args.lease < 1:
        raise InputError(f"--lease {args.lease}: give a number of seconds (1 or more)")
    labels = rubric_labels(args.labels.split(",")) if args.labels else None
    dataset = load_path(args.input)
    try:
        session = getattr(dataset, "session", None)
        if session is not None:
            copy_session(session, args.project, overwrite=args.force, overlap=overlap,
                         lease_seconds=args.lease, blind=True if args.blind else None)
            count = len(session.case_ids())
        else:
            PgBackend().create_file(
                args.project, dataset, overwrite=args.force, overlap=overlap,
                lease_seconds=args.lease, blind=args.blind,
                labels=labels or DEFAULT_LABELS,
                source=None if args.input == "-" else os.path.abspath(args.input))
            count = len(dataset)
    finally:
        dataset.close()
    if labels and session is not None:
        with SESSIONS.open(args.project) as made:
            made.set_labels(labels)
    print(f"created {args.project}: {count} cases", file=sys.stderr)
    return 0


def _status(args: argparse.Namespace) -> int:
    from citeview.session.pg.store import PgSession
    from citeview.session.pg.team import Status, follow, render_status, status, status_json

    with PgSession.open(args.project, readonly=True) as session:
        def show(found: Status) -> None:
            if args.format == "json":
                sys.stdout.write(json.dumps(status_json(found), sort_keys=True) + "\n")
            else:
                sys.stdout.write(render_status(found))
                if args.follow:
                    sys.stdout.write("\n")
            sys.stdout.flush()
        if args.follow:
            follow(session, show, per_case=args.cases)
        else:
            show(status(session, per_case=args.cases))
    return 0

"""Session schema versions: ``PRAGMA user_version`` and the ordered migrations that reach it.

A migration is a function run inside one transaction together with the version bump, so a
session is always at some whole version. Add a migration by appending to :data:`MIGRATIONS`;
never edit a released one.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from citeview.core.analysis import analyse, numbering_policy
from citeview.core.cases import Case
from citeview.core.errors import InputError
from citeview.core.markers import DEFAULT_FAMILIES
from citeview.session.model import (
    Annotation,
    AnnotationKey,
    annotation_key,
    case_citations,
    reattach,
)

# "CTVW": marks an SQLite file as a citeview session (PRAGMA application_id).
APPLICATION_ID = 0x43545657


MIGRATION_1 = [
    # Session-wide settings: labels (rubric), blind flag, families, name, unknown keys (JSON).
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    # Cases copied in, in dataset order; ``data`` is the case JSON, parsed when a case is shown.
    "CREATE TABLE cases (pos INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, data TEXT NOT NULL)",
    # One row per (case, annotator): review state, overall verdict and note.
    """CREATE TABLE reviews (
        case_id TEXT NOT NULL REFERENCES cases(id) ON UPDATE CASCADE ON DELETE CASCADE,
        annotator TEXT NOT NULL,
        state TEXT NOT NULL,
        verdict TEXT,
        note TEXT NOT NULL DEFAULT '',
        timestamp TEXT NOT NULL DEFAULT '',
        extra TEXT NOT NULL DEFAULT '{}',
        PRIMARY KEY (case_id, annotator)
    )""",
    # One row per judged (case, citation number, raw marker, source id, annotator). Orphans
    # (citations no longer found after the answer changed) are kept and exempt from uniqueness.
    """CREATE TABLE annotations (
        rowid INTEGER PRIMARY KEY,
        case_id TEXT NOT NULL REFERENCES cases(id) ON UPDATE CASCADE ON DELETE CASCADE,
        number INTEGER NOT NULL,
        raw TEXT NOT NULL,
        source_id TEXT NOT NULL,
        annotator TEXT NOT NULL,
        verdict TEXT,
        note TEXT NOT NULL DEFAULT '',
        timestamp TEXT NOT NULL DEFAULT '',
        claim TEXT NOT NULL DEFAULT '',
        recovered INTEGER NOT NULL DEFAULT 0,
        orphaned INTEGER NOT NULL DEFAULT 0,
        extra TEXT NOT NULL DEFAULT '{}'
    )""",
    """CREATE UNIQUE INDEX annotations_key ON annotations
        (case_id, number, raw, source_id, annotator) WHERE orphaned = 0""",
    "CREATE INDEX annotations_case ON annotations (case_id, number)",
    # The process that has the session open for writing (one row at most).
    """CREATE TABLE lock (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        pid INTEGER NOT NULL, host TEXT NOT NULL, token TEXT NOT NULL, since TEXT NOT NULL,
        ident TEXT NOT NULL DEFAULT ''  -- boot id and process start time, to tell pid reuse
    )""",
]


def _statements(statements: list[str]) -> Callable[[sqlite3.Connection], None]:
    def run(conn: sqlite3.Connection) -> None:
        for sql in statements:
            conn.execute(sql)
    return run


MIGRATION_2 = [
    # Per case: how many judgements each citation takes (JSON list, numbering order), stored
    # when the case is first analysed, so progress never needs every case analysed again.
    # Deleted when the case's content or the session's families change.
    """CREATE TABLE case_stats (
        case_id TEXT PRIMARY KEY REFERENCES cases(id) ON UPDATE CASCADE ON DELETE CASCADE,
        sizes TEXT NOT NULL
    )""",
]


def _families(conn: sqlite3.Connection) -> tuple[str, ...]:
    """The session's families as its meta row holds them (the default when unreadable)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'families'").fetchone()
    try:
        fams = json.loads(row[0]) if row is not None else None
    except ValueError:
        fams = None
    return (tuple(fams) if isinstance(fams, list) and fams
            and all(isinstance(f, str) for f in fams) else DEFAULT_FAMILIES)


def _stored_case(conn: sqlite3.Connection, case_id: str) -> Case | None:
    data = conn.execute("SELECT data FROM cases WHERE id = ?", (case_id,)).fetchone()
    try:
        return Case.from_dict(json.loads(data[0]), case_id)
    except (InputError, ValueError, TypeError, RecursionError):
        return None  # unreadable: its annotations stay exactly as they are


def renumber_annotations(conn: sqlite3.Connection) -> None:
    """Version 1 numbered a citation one way in the window (scan with the material's ids) and
    another in the session (scan without them), so a verdict given after a degraded marker
    could sit under a number its citation does not have. Place every annotation on its
    citation as the analysed case numbers it (same anchor and source id, nearest number)."""
    families = _families(conn)
    # From version 5 a row also has its reasons: carried through as they are.
    has_reasons = any(r[1] == "reasons" for r in conn.execute("PRAGMA table_info(annotations)"))
    cols = ("rowid, case_id, number, raw, source_id, annotator, verdict, note, timestamp, "
            "claim, recovered, orphaned, extra" + (", reasons" if has_reasons else ""))
    judged = [r[0] for r in conn.execute("SELECT DISTINCT case_id FROM annotations")]
    for case_id in judged:
        case = _stored_case(conn, case_id)
        if case is None:
            continue
        rows = conn.execute(f"SELECT {cols} FROM annotations WHERE case_id = ?",
                            (case_id,)).fetchall()
        # ``extra`` carries the row id through re-attachment; the stored extra is put back.
        anns = [Annotation(AnnotationKey(r[1], _number(r), r[3], r[4]), r[5], r[6], r[7], r[8],
                           r[9], bool(r[10]), bool(r[11]), {"rowid": r[0]}) for r in rows]
        stored = {r[0]: r[12:] for r in rows}
        result = reattach(anns, case_citations(case, families), same_answer=True)
        new_rows = [(a, stored[a.extra["rowid"]]) for a in [*result.placed, *result.orphaned]]
        conn.execute("DELETE FROM annotations WHERE case_id = ?", (case_id,))
        for new, kept in new_rows:
            k = new.key
            conn.execute(
                "INSERT INTO annotations (case_id, number, raw, source_id, annotator, verdict, "
                "note, timestamp, claim, recovered, orphaned, extra"
                + (", reasons) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)" if has_reasons
                   else ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"),
                (k.case_id, k.number, k.anchor, k.source_id, new.annotator, new.verdict, new.note,
                 new.timestamp, new.claim, int(new.recovered), int(new.orphaned), *kept))


def _number(row: tuple[object, ...]) -> int:
    """An annotation row's citation number; a row holding anything else is damage (the
    caller reports it as a damaged session, in one line)."""
    number = row[2]
    if isinstance(number, int):
        return number
    try:
        if isinstance(number, str):
            return int(number)
    except ValueError:
        pass
    raise ValueError(f"annotation {row[0]} of case {row[1]!r}: the citation number is "
                     f"{str(number)[:40]!r}, not a number")


def _migration_2(conn: sqlite3.Connection) -> None:
    _statements(MIGRATION_2)(conn)
    renumber_annotations(conn)


def _migration_3(conn: sqlite3.Connection) -> None:
    """The wild-forms recoveries (Windows-1252 mojibake markers, ``core/wild.py``) add
    citations that an older scan did not number: place every verdict again on its citation."""
    renumber_annotations(conn)


def anchor_provider_annotations(conn: sqlite3.Connection) -> int:
    """Before issue 21 the window keyed a verdict on a citation without marker text (a
    provider's) by that empty text instead of its anchor (``KIND@START-END``), so export and
    report showed it orphaned. Give each such row its citation's key: the citation at its
    number when that one has no marker and names the source id, else the nearest such citation
    with the same claim text. A row whose place is taken, or that fits nowhere, is left as it is
    (nothing is dropped). Returns how many rows moved; safe to run again (an import does)."""
    moved = 0
    judged = [r[0] for r in conn.execute(
        "SELECT DISTINCT case_id FROM annotations WHERE raw = ''")]
    policy = numbering_policy(_families(conn))
    for case_id in judged:
        case = _stored_case(conn, case_id)
        if case is None:
            continue
        cits = [c for c in analyse(case, policy).citations if not c.has_marker]
        if not cits:
            continue
        rows = conn.execute(
            "SELECT rowid, number, source_id, annotator, claim, orphaned FROM annotations "
            "WHERE case_id = ? AND raw = '' ORDER BY orphaned, number, rowid",
            (case_id,)).fetchall()
        for rowid, number, source_id, annotator, claim, orphaned in rows:
            fits = [c for c in cits if source_id in c.source_ids]
            # Placed by the window at its number; one flagged orphaned since (its answer
            # changed) only where its claim is found again.
            same = [] if orphaned else [c for c in fits if c.number == number]
            if not same:
                want = " ".join(str(claim).split())
                same = sorted((c for c in fits if " ".join(c.claim_text.split()) == want),
                              key=lambda c: (abs(c.number - int(number)), c.number))
            for c in same[:1]:
                key = annotation_key(case_id, c, source_id)
                taken = conn.execute(
                    "SELECT 1 FROM annotations WHERE case_id = ? AND number = ? AND raw = ? "
                    "AND source_id = ? AND annotator = ? AND orphaned = 0",
                    (case_id, key.number, key.anchor, source_id, annotator)).fetchone()
                if taken is None:
                    conn.execute("UPDATE annotations SET number = ?, raw = ?, orphaned = 0 "
                                 "WHERE rowid = ?", (key.number, key.anchor, rowid))
                    moved += 1
    return moved


def _migration_4(conn: sqlite3.Connection) -> None:
    anchor_provider_annotations(conn)


MIGRATION_5 = [
    # Issue 30: why a verdict fails (a JSON list of names from the session's reason list).
    "ALTER TABLE annotations ADD COLUMN reasons TEXT NOT NULL DEFAULT '[]'",
    # Spans of a cited source marked as where the support is: one row each, several per
    # (case, citation, source, annotator). Offsets are code points in the source's text.
    """CREATE TABLE evidence (
        id TEXT PRIMARY KEY,
        case_id TEXT NOT NULL REFERENCES cases(id) ON UPDATE CASCADE ON DELETE CASCADE,
        number INTEGER NOT NULL,
        raw TEXT NOT NULL,
        source_id TEXT NOT NULL,
        annotator TEXT NOT NULL,
        start_offset INTEGER NOT NULL,
        end_offset INTEGER NOT NULL,
        first_line INTEGER NOT NULL DEFAULT 0,
        last_line INTEGER NOT NULL DEFAULT 0,
        text TEXT NOT NULL DEFAULT '',
        timestamp TEXT NOT NULL DEFAULT ''
    )""",
    "CREATE INDEX evidence_case ON evidence (case_id, number)",
    # Corrections of a case's citations, beside it (the answer is never changed): ``data`` is
    # the correction's export shape (core/corrections.py), so a new field needs no migration.
    """CREATE TABLE corrections (
        id TEXT PRIMARY KEY,
        case_id TEXT NOT NULL REFERENCES cases(id) ON UPDATE CASCADE ON DELETE CASCADE,
        annotator TEXT NOT NULL,
        timestamp TEXT NOT NULL DEFAULT '',
        data TEXT NOT NULL
    )""",
    "CREATE INDEX corrections_case ON corrections (case_id)",
]


MIGRATION_6 = [
    # Issue 26: per case, its export rows before any judgement (JSON lines, as ``citeview
    # export --format jsonl`` writes them), stored by the background pass (prefill) or
    # fill_rows, so an export reads them instead of analysing every case again. ``policy`` is
    # the digest of the analysis and lint policy they were made under: another one is stale
    # (made again).
    """CREATE TABLE case_rows (
        case_id TEXT PRIMARY KEY REFERENCES cases(id) ON UPDATE CASCADE ON DELETE CASCADE,
        policy TEXT NOT NULL,
        rows TEXT NOT NULL
    )""",
]


# MIGRATIONS[i] brings a session from version i to version i + 1.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _statements(MIGRATION_1), _migration_2, _migration_3, _migration_4,
    _statements(MIGRATION_5), _statements(MIGRATION_6)]
SCHEMA_VERSION = len(MIGRATIONS)


def user_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def application_id(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA application_id").fetchone()[0])


def migrate(conn: sqlite3.Connection) -> int:
    """Bring ``conn`` (autocommit mode) to :data:`SCHEMA_VERSION`, one transaction per step.
    Returns the version found. A newer version is left alone (the caller opens read-only)."""
    found = user_version(conn)
    for version in range(found, SCHEMA_VERSION):
        conn.execute("BEGIN IMMEDIATE")
        try:
            if version == 0:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            MIGRATIONS[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return found

"""Session schema versions: ``PRAGMA user_version`` and the ordered migrations that reach it.

A migration is a function run inside one transaction together with the version bump, so a
session is always at some whole version. Add a migration by appending to :data:`MIGRATIONS`;
never edit a released one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

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


# MIGRATIONS[i] brings a session from version i to version i + 1.
MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [_statements(MIGRATION_1)]
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

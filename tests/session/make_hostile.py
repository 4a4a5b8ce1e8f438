"""Crafted hostile session files (issue 31): a citeview session plus one object citeview never
creates. Tests build them into ``tmp_path``; run as a script to write them to a folder:

    python tests/session/make_hostile.py OUT_DIR
"""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path

from citeview.core.cases import Case
from citeview.session.model import Annotation, AnnotationKey
from citeview.session.store import Session

S, D, T = "\ue200", "\ue202", "\ue201"
RAW = f"{S}cite{D}f0{T}"
KEY = AnnotationKey("c", 1, RAW, "f0")
CASE = Case("c", f"A fact.{RAW}", "q?", tool_outputs=[
    f"Citation Marker: {S}cite{D}f0{T}\nTitle: t\n\n[L1] A fact."])

# kind -> SQL added to a good session. Each would act on citeview's own statements if run.
HOSTILE: dict[str, list[str]] = {
    # Every verdict written becomes "supported" (the window would show what it sent).
    "trigger": ["""CREATE TRIGGER flip AFTER INSERT ON annotations BEGIN
                   UPDATE annotations SET verdict = 'supported' WHERE rowid = NEW.rowid; END""",
                """CREATE TRIGGER flip_update AFTER UPDATE OF verdict ON annotations BEGIN
                   UPDATE annotations SET verdict = 'supported' WHERE rowid = NEW.rowid
                   AND verdict IS NOT 'supported'; END"""],
    # citeview's lock table replaced by a view whose recursive query never ends.
    "view": ["DROP TABLE lock",
             """CREATE VIEW lock (id, pid, host, token, since, ident) AS
                WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r)
                SELECT 1, x, 'h', 't', 's', '' FROM r WHERE x < 0"""],
    "virtual table": ["CREATE VIRTUAL TABLE search USING fts5(text)"],
    "extra table": ["CREATE TABLE exfil (what TEXT)"],
    "extra index": ["CREATE INDEX spy ON annotations (verdict, note)"],
}


def good_session(path: Path) -> Path:
    """A session with one case and one verdict ("unsupported") by ana."""
    with Session.create(str(path), [CASE], annotator="ana") as s:
        s.put_annotation(Annotation(KEY, "ana", "unsupported"))
    return path


def hostile_session(path: Path, kind: str) -> Path:
    """A good session at ``path`` with the ``kind`` objects of :data:`HOSTILE` added."""
    good_session(path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        for sql in HOSTILE[kind]:
            conn.execute(sql)
    finally:
        conn.close()
    return path


def verdicts_of(path: Path) -> list[tuple[str, str | None]]:
    """The verdicts as the file holds them, read without citeview (no trigger fires on a
    read)."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return list(conn.execute("SELECT annotator, verdict FROM annotations ORDER BY rowid"))
    finally:
        conn.close()


def main(out: str) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for kind in HOSTILE:
        hostile_session(folder / f"{kind.replace(' ', '-')}.citeview", kind)
    print(json.dumps(sorted(HOSTILE)))


if __name__ == "__main__":
    main(sys.argv[1])

"""A session judged before the wild-forms recoveries keeps every verdict on the citation it was
given to, although new recoveries add citations before it (fixture made by the code before the
change: ``tests/data/sessions/make_pre_wild.py.txt``)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from citeview.session import Session
from citeview.session.migrations import SCHEMA_VERSION, user_version
from citeview.session.rows import ORPHANED, iter_rows

DATA = Path(__file__).parent.parent / "data" / "sessions"
S, D, T = "\ue200", "\ue202", "\ue201"

EXPECTED = {
    # The mojibake marker is recovered now: the real marker is citation 2.
    ("mojibake", 2, f"{S}cite{D}turn0file0{D}L2{T}"): "supported",
    ("filecite", 1, f"{S}cite{D}turn0file0{D}L3{T}"): "unsupported",
    ("oaicite", 1, f"{S}cite{D}turn0file0{D}L2{T}"): "cannot tell",
}


def judged(s: Session) -> dict[tuple[str, int, str], str | None]:
    out = {}
    for r in iter_rows(s, jobs=1):
        assert r.status != ORPHANED, r
        if r.verdict is not None:
            out[(r.case_id, r.number, s.analysed(r.case_id).citation(r.number).anchor)] = r.verdict
    return out


@pytest.mark.parametrize("readonly", [False, True])
def test_pre_wild_session_keeps_verdicts_on_their_citations(tmp_path: Path,
                                                            readonly: bool) -> None:
    path = tmp_path / "s.citeview"
    shutil.copyfile(DATA / "pre-wild.citeview", path)
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    with Session.open(str(path), readonly=readonly, annotator="alice") as s:
        assert user_version(s.conn) == SCHEMA_VERSION
        assert [c.recovered for c in s.analysed("mojibake").citations][0] is not None
        assert judged(s) == EXPECTED
        for a in s.annotations():
            c = s.analysed(a.case_id).citation(a.key.number)
            assert c is not None and c.anchor == a.key.anchor and not a.orphaned
    if readonly:
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before
    else:
        with Session.open(str(path)) as again:
            assert judged(again) == EXPECTED

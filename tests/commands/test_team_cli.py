"""citeview team and every session command on a project on a PostgreSQL server (issue 29), on a
throwaway cluster: create from any input, members, status (and --follow through LISTEN/NOTIFY);
export, report, agree, merge and import take a project wherever they take a session; the window
entry opens one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from citeview.cli import main
from citeview.commands import open as open_cmd
from citeview.session.model import Annotation, CaseReview, ReviewState, citation_slots

DATA = Path(__file__).parent.parent / "data"
DATASET = str(DATA / "samples" / "policies.dataset.jsonl")
ROOT = str(Path(__file__).parents[2])


def judge(pg: Any, project: str, role: str, verdict: str, n: int = 2) -> None:
    from citeview.session.pg import PgBackend

    with PgBackend().open(pg.address(project, user=role)) as s:
        for cid in s.case_ids()[:n]:
            key = citation_slots(s.analysed(cid))[0].keys(cid)[0]
            s.put_annotation(Annotation(key, role, verdict))
            s.put_review(CaseReview(cid, role, ReviewState.DONE))


def status_of(pg: Any, project: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["team", "status", pg.address(project), "--format", "json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_a_lead_creates_a_project_adds_reviewers_and_follows_progress(
        pg: Any, capsys: pytest.CaptureFixture[str]) -> None:
    address = pg.address("qa")
    assert main(["team", "create", address, DATASET, "--overlap", "2", "--blind",
                 "--labels", "yes,no,unsure"]) == 0
    capsys.readouterr()
    assert main(["team", "add", address, "ana", "bob"]) == 0
    assert main(["team", "add", address, "lee", "--lead"]) == 0
    told = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in told] == ["ana", "bob", "lee"]
    assert told[2].endswith("added as lead") and told[0].endswith("added as annotator")
    found = status_of(pg, "qa", capsys)
    assert found["cases"] == 5 and found["overlap"] == 2 and found["blind"] is True
    assert {r["name"]: r["kind"] for r in found["reviewers"]} == {
        "ana": "annotator", "bob": "annotator", "lee": "lead"}
    judge(pg, "qa", "ana", "yes")
    judge(pg, "qa", "bob", "yes", 1)
    found = status_of(pg, "qa", capsys)
    by = {r["name"]: r for r in found["reviewers"]}
    assert (by["ana"]["judged"], by["ana"]["done"]) == (2, 2)
    assert (by["bob"]["judged"], by["bob"]["done"]) == (1, 1)
    assert found["cases_by_reviewers"] == {"0": 3, "1": 1, "2": 1}
    assert found["agreement"] == 100.0 and found["agreement_items"] == 1
    assert found["complete"] == 1
    assert main(["team", "status", address]) == 0
    text = capsys.readouterr().out
    assert "agreement so far: 100.0% over 1" in text and "ana" in text
    # a reviewer taken off: their membership goes, their verdicts stay
    assert main(["team", "remove", address, "bob"]) == 0
    found = status_of(pg, "qa", capsys)
    assert {r["name"]: r["kind"] for r in found["reviewers"]}["bob"] == ""
    with pytest.raises(Exception, match="no such project"):
        from citeview.session.pg import PgBackend

        PgBackend().open(pg.address("qa", user="bob"))
    from citeview.session.pg import PgBackend

    with PgBackend().open(address, readonly=True) as s:
        assert s.labels == ("yes", "no", "unsure") and s.blind


def test_status_follow_shows_each_change_as_reviewers_work(pg: Any) -> None:
    address = pg.address("live")
    assert main(["team", "create", address, DATASET]) == 0
    assert main(["team", "add", address, "ana"]) == 0
    with subprocess.Popen([sys.executable, "-m", "citeview", "team", "status", address,
                           "--follow", "--format", "json"], stdout=subprocess.PIPE, text=True,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": ROOT}) as follower:
        try:
            assert follower.stdout is not None
            first = json.loads(follower.stdout.readline())
            assert first["reviewers"][0]["judged"] == 0
            judge(pg, "live", "ana", "supported", 1)
            second = json.loads(follower.stdout.readline())  # at once, not after the idle time
            assert second["reviewers"][0]["judged"] == 1
        finally:
            follower.kill()
            follower.wait()


def test_export_report_agree_merge_import_and_open_take_a_project(
        pg: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = pg.address("a"), pg.address("b")
    for address in (a, b):
        assert main(["team", "create", address, DATASET]) == 0
    assert main(["team", "add", a, "ana"]) == 0
    assert main(["team", "add", b, "bob"]) == 0
    judge(pg, "a", "ana", "supported")
    judge(pg, "b", "bob", "unsupported")
    exported = tmp_path / "a.json"
    assert main(["export", a, "--format", "json", "-o", str(exported)]) == 0
    doc = json.loads(exported.read_text(encoding="utf-8"))
    assert [x["verdict"] for x in doc["annotations"]] == ["supported", "supported"]
    capsys.readouterr()
    assert main(["report", a]) == 0
    assert "supported" in capsys.readouterr().out
    assert main(["agree", a, b, "--format", "json"]) == 0
    agreement = json.loads(capsys.readouterr().out)
    assert agreement["items"] == 2 and agreement["percent_agreement"] == 0.0
    # merge two projects into a third, and into a file
    c = pg.address("c")
    assert main(["merge", a, b, "-o", c]) == 0
    assert main(["merge", a, b, "-o", str(tmp_path / "m.citeview")]) == 0
    from citeview.session.pg import PgBackend
    from citeview.session.store import Session

    with PgBackend().open(c, readonly=True) as merged, \
            Session.open(str(tmp_path / "m.citeview"), readonly=True) as file:
        got = {(x.annotator, x.verdict) for x in merged.annotations()}
        assert got == {("ana", "supported"), ("bob", "unsupported")}
        assert got == {(x.annotator, x.verdict) for x in file.annotations()}
        assert merged.case_ids() == file.case_ids()
    # an export imported into a new project holds the same rows
    d = pg.address("d")
    assert main(["import", str(exported), "-o", d]) == 0
    with PgBackend().open(d, readonly=True) as imported:
        assert [(x.case_id, x.key.number, x.annotator, x.verdict)
                for x in imported.annotations()] == [
            (x["case_id"], x["number"], x["annotator"], x["verdict"])
            for x in doc["annotations"]]
        assert imported.case_ids() == [c["id"] for c in doc["cases"]]
    # `citeview open PROJECT` (and `citeview PROJECT`) hand the window the project
    opened: list[Any] = []
    monkeypatch.setattr(open_cmd, "launch", lambda ds, case, advance=True: opened.append(ds) or 0)
    assert main([a]) == 0 and main(["open", a]) == 0
    assert [(ds.kind, ds.path, len(ds)) for ds in opened] == [("session", a, 5)] * 2
    for ds in opened:
        ds.close()


def test_a_password_in_the_address_is_refused_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    for address in ("postgresql://ana:secret@db.example/qa?project=x",
                    "postgresql://db.example/qa?password=secret&project=x"):
        assert main(["team", "status", address]) == 2
        err = capsys.readouterr().err
        assert "secret" not in err and "PGPASSWORD, ~/.pgpass" in err
        assert err.count("\n") == 1
    assert main(["report", "postgresql://db.example/qa"]) == 2
    assert "?project=NAME" in capsys.readouterr().err

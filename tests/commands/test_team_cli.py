"""citeview team and every session command on a project on a PostgreSQL server (issue 29), on a
throwaway cluster: create from any input, members, status (and --follow through LISTEN/NOTIFY);
export, report, agree, merge and import take a project wherever they take a session; the window
entry opens one."""

from __future__ import annotations

import json
import os
import select
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
        for _ in range(n):  # the cases the server hands out, done one by one
            cid = s.next_cases(1)[0]
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
    assert main(["team", "status", address, "--cases"]) == 0
    text = capsys.readouterr().out
    assert "agreement so far: 100.0% over 1" in text and "ana" in text
    assert "  handbook-line-level: 2 (ana, bob)\n" in text
    assert "  transit-multi-turn: 0 (-)\n" in text
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

            def line() -> dict[str, Any]:
                ready, _w, _x = select.select([follower.stdout], [], [], 30)
                assert ready, "team status --follow printed nothing"
                return dict(json.loads(follower.stdout.readline()))  # type: ignore[union-attr]
            assert line()["reviewers"][0]["judged"] == 0
            judge(pg, "live", "ana", "supported", 1)
            second = line()  # at once, not after the idle time
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


def test_upgrade_says_the_server_schema_is_up_to_date(
        pg: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from citeview.session.pg.schema import SCHEMA_VERSION

    assert main(["team", "create", pg.address("up"), DATASET]) == 0
    capsys.readouterr()
    assert main(["team", "upgrade", pg.address("up")]) == 0
    assert capsys.readouterr().err == f"server schema {SCHEMA_VERSION}: up to date\n"


def test_a_project_made_from_a_session_file_brings_its_verdicts_and_rubric(
        pg: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from citeview.core.inputs import load_input
    from citeview.session.pg import PgBackend
    from citeview.session.store import Session

    path = str(tmp_path / "mine.citeview")
    with Session.create(path, load_input(DATASET), annotator="ana") as file:
        file.set_labels(["ok", "wrong"])
        cid = file.case_ids()[1]
        key = citation_slots(file.analysed(cid))[0].keys(cid)[0]
        file.put_annotation(Annotation(key, "ana", "ok", "checked"))
        file.put_review(CaseReview(cid, "ana", ReviewState.DONE, "ok"))
    address = pg.address("fromfile")
    assert main(["team", "create", address, path, "--overlap", "none"]) == 0
    assert "created " + address + ": 5 cases" in capsys.readouterr().err
    with PgBackend().open(address, readonly=True) as s, \
            Session.open(path, readonly=True) as file:
        assert s.labels == ("ok", "wrong") and s.case_ids() == file.case_ids()
        assert s.annotations() == file.annotations() and s.reviews() == file.reviews()
        assert s.conn.execute("SELECT overlap FROM citeview.projects WHERE name = %s",
                              (s.project,)).fetchone()[0] == 1
    assert main(["team", "create", address, path]) == 2
    assert "already exists" in capsys.readouterr().err


def test_a_project_from_a_session_file_keeps_reasons_evidence_and_corrections_everywhere(
        pg: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 30's rows of a session file reach the project `team create` makes of it, and
    export, report, agree, import and merge of the project read them as of the file."""
    from citeview.core.inputs import load_input
    from citeview.session import edits
    from citeview.session.pg import PgBackend
    from citeview.session.store import Session

    path = str(tmp_path / "marks.citeview")
    with Session.create(path, load_input(DATASET), annotator="ana") as file:
        file.set_reasons(["wrong source", "stale"])
        cid = file.case_ids()[1]
        key = citation_slots(file.analysed(cid))[0].keys(cid)[0]
        edits.annotation_edit(file, key, verdict="unsupported", reasons=["stale"]).do()
        edits.evidence_edit(file, key, 0, 4, text="abcd").do()
        edits.remove_citation_edit(file, cid, file.analysed(cid).citations[0]).do()
    address = pg.address("withmarks")
    assert main(["team", "create", address, path]) == 0
    with PgBackend().open(address, readonly=True) as s, \
            Session.open(path, readonly=True) as file:
        assert s.reasons == ("wrong source", "stale")
        assert s.annotations() == file.annotations() and s.reviews() == file.reviews()
        assert s.evidence() == file.evidence() and len(s.evidence()) == 1
        assert s.corrections() == file.corrections() and len(s.corrections()) == 1
    docs = []
    for where in (address, path):
        out = tmp_path / f"{len(docs)}.json"
        assert main(["export", where, "--format", "json", "-o", str(out)]) == 0
        docs.append(json.loads(out.read_text(encoding="utf-8")))
    assert docs[0]["evidence"] == docs[1]["evidence"] and docs[0]["evidence"][0]["text"] == "abcd"
    assert docs[0]["corrections"] == docs[1]["corrections"]
    assert docs[0]["annotations"] == docs[1]["annotations"]
    assert docs[0]["annotations"][0]["reasons"] == ["stale"]
    capsys.readouterr()
    reports = []
    for where in (address, path):
        assert main(["report", "--format", "json", where]) == 0
        reports.append(json.loads(capsys.readouterr().out))
    assert reports[0]["reasons"] == reports[1]["reasons"]
    assert reports[0]["reasons"]["stale"]["count"] == 1
    assert main(["agree", address, path, "--format", "json"]) == 0
    agreement = json.loads(capsys.readouterr().out)
    assert agreement["items"] == 1 and agreement["percent_agreement"] == 1.0
    assert agreement["reasons"]["stale"]["both"] == 1
    # an export imported into a project, and a merge into one, keep them too
    assert main(["import", str(tmp_path / "0.json"), "-o", pg.address("imported")]) == 0
    assert main(["merge", address, path, "-o", pg.address("merged")]) == 0
    with PgBackend().open(pg.address("imported"), readonly=True) as imported, \
            PgBackend().open(pg.address("merged"), readonly=True) as merged:
        assert [e.text for e in imported.evidence()] == ["abcd"]
        assert [c.kind.value for c in imported.corrections()] == ["remove"]
        assert imported.annotations()[0].reasons == ("stale",)
        assert sorted(e.annotator for e in merged.evidence()) == ["ana (A)", "ana (B)"]
        assert len(merged.corrections()) == 2 and merged.reasons == ("wrong source", "stale")


def test_a_lead_makes_and_runs_a_project_without_the_admin_and_an_annotator_cannot(
        pg: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from citeview.core.cases import Case
    from citeview.session.pg import PgBackend

    seed = pg.address("seed")  # the admin provisions the roles once
    assert main(["team", "create", seed, DATASET]) == 0
    assert main(["team", "add", seed, "lee", "--lead"]) == 0
    assert main(["team", "add", seed, "ana"]) == 0
    mine = pg.address("lees", user="lee")
    capsys.readouterr()
    assert main(["team", "create", mine, DATASET, "--overlap", "2"]) == 0
    assert main(["team", "add", mine, "ana"]) == 0
    assert main(["team", "add", mine, "stranger"]) == 2  # making a role is the admin's
    assert "refused by the server" in capsys.readouterr().err
    with PgBackend().open(mine) as lead:
        assert lead.add_cases([Case("extra", "More.")]) == ["extra"]
        lead.set_labels(["yes", "no"])
    found = status_of(pg, "lees", capsys)
    assert {r["name"]: r["kind"] for r in found["reviewers"]} == {"ana": "annotator",
                                                                 "lee": "lead"}
    assert found["cases"] == 6
    assert main(["team", "create", mine, DATASET, "--force"]) == 0  # a lead replaces their own
    assert status_of(pg, "lees", capsys)["cases"] == 5  # members went with the old one
    assert main(["team", "add", mine, "ana"]) == 0
    assert main(["team", "create", pg.address("anas", user="ana"), DATASET]) == 2
    assert "ana is not a lead" in capsys.readouterr().err
    with PgBackend().open(pg.address("lees", user="ana")) as s:
        with pytest.raises(Exception, match="refused by the server"):
            s.add_cases([Case("sneaky", "Claim.")])
        with pytest.raises(Exception, match="refused by the server"):
            s.set_labels(["mine"])

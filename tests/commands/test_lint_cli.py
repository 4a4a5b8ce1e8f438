"""citeview lint: inputs, formats, rule switches, exit codes and parallel runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from citeview.cli import main
from citeview.core.markers import DELIMITER, START, STOP

DATA = Path(__file__).parent.parent / "data"
SAMPLES = DATA / "samples"
BREAKING = str(SAMPLES / "handbook-rule-breaking.case.json")
CLEAN = str(SAMPLES / "handbook-line-level.case.json")


def M(*parts: str) -> str:
    return START + "cite" + "".join(DELIMITER + p for p in parts) + STOP


TOOL = f"Citation Marker: {M('turn0file0')}\n[L1] Remote work: three days.\n[L2] More.\n"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # no configuration file is found from here


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["lint", *args])
    out, err = capsys.readouterr()
    return code, out, err


def case(cid: str, answer: str) -> dict:
    return {"id": cid, "tool_outputs": [TOOL], "answer": answer}


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows),
                    encoding="utf-8")
    return path


def test_breaking_sample_fails_with_compiler_style_lines(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    code, out, err = run(capsys, BREAKING)
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert f"{BREAKING}:handbook-rule-breaking:27:4: CV303 citation-on-fence-line " \
           "citation on the closing line of a code fence: in the raw answer it breaks the " \
           "fence and the rest of the answer renders as code" in lines
    assert lines[-11].startswith("11 findings (7 error, 2 warning, 2 info) in 1 of 1 case")


def test_clean_sample_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, CLEAN)
    assert code == 0
    assert out == "0 findings (0 error, 0 warning, 0 info) in 0 of 1 case\n"


def test_fail_on_sets_the_threshold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "w.case.json"
    f.write_text(json.dumps(case("w", "Remote work is allowed" + M("turn0file0", "L1") + ".")))
    assert run(capsys, str(f))[0] == 0  # only a warning (CV304)
    assert run(capsys, str(f), "--fail-on", "warning")[0] == 1
    assert run(capsys, str(f), "--fail-on", "info")[0] == 1


def test_select_and_ignore(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, BREAKING, "--select", "CV2", "--format", "jsonl")
    assert {json.loads(ln)["code"] for ln in out.splitlines()} == {"CV201", "CV202", "CV203"}
    code, out, _ = run(capsys, BREAKING, "--ignore", "CV1,CV2", "--ignore",
                       "CV301,CV302,CV303,CV304,CV305", "--format", "jsonl")
    assert {json.loads(ln)["code"] for ln in out.splitlines()} == {"CV308"}
    assert code == 0  # only info left
    code, _, err = run(capsys, BREAKING, "--select", "CV999")
    assert code == 2 and err.strip() == ("citeview: error: --select: unknown rule 'CV999' "
                                         "(rules are CV101-CV504, a prefix such as CV3, or a "
                                         "name such as unknown-source)")


def test_require_locators_and_multi_source_options(capsys: pytest.CaptureFixture[str]) -> None:
    transit = str(SAMPLES / "transit-multi-turn.case.json")
    assert run(capsys, transit)[0] == 0
    _, out, _ = run(capsys, transit, "--require-locators", "--format", "jsonl")
    assert [json.loads(ln)["code"] for ln in out.splitlines()] == ["CV205", "CV205"]
    _, out, _ = run(capsys, transit, "--multi-source", "per-marker", "--format", "jsonl")
    assert [json.loads(ln)["code"] for ln in out.splitlines()] == ["CV307"]


def test_weak_support_rule_and_threshold_options(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # "Remote work is allowed three days" shares 4 of its 5 content words with L1.
    path = tmp_path / "c.json"
    path.write_text(json.dumps(case("c", "Remote work is allowed three days."
                                    + M("turn0file0", "L1") + "\n")), encoding="utf-8")
    assert run(capsys, str(path), "--extend-select", "CV401", "--format", "jsonl")[1] == ""
    code, out, _ = run(capsys, str(path), "--extend-select", "CV401",
                       "--weak-support-threshold", "0.9", "--format", "jsonl")
    assert code == 0  # info does not fail the run
    assert [json.loads(ln)["code"] for ln in out.splitlines()] == ["CV401"]
    # Without the rule selected, the threshold alone changes nothing.
    assert run(capsys, str(path), "--weak-support-threshold", "0.9", "--format", "jsonl")[1] == ""
    code, _, err = run(capsys, str(path), "--weak-support-threshold", "2")
    assert code == 2 and "--weak-support-threshold: must be a number from 0 to 1" in err


def test_weak_support_threshold_from_the_configuration(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "citeview.toml").write_text(
        'extend-select = ["weak-support"]\nweak-support-threshold = 0.9\n', encoding="utf-8")
    path = tmp_path / "c.json"
    path.write_text(json.dumps(case("c", "Remote work is allowed three days."
                                    + M("turn0file0", "L1") + "\n")), encoding="utf-8")
    _, out, _ = run(capsys, str(path), "--format", "jsonl")
    assert [json.loads(ln)["code"] for ln in out.splitlines()] == ["CV401"]
    assert run(capsys, str(path), "--weak-support-threshold", "0.5", "--format", "jsonl")[1] == ""


def test_jsonl_records_are_line_numbers_and_bad_records_are_findings(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = write_jsonl(tmp_path / "set.jsonl", [
        case("a", "Fine claim here." + M("turn0file0", "L1")),
        "",
        case("b", "Bad claim." + M("turn9file9")),
        "{not json",
        {"id": "c"},
        case("d", "Also bad." + M("turn0file0", "L9")),
    ])
    code, out, err = run(capsys, str(f))
    assert code == 1 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"{f}:3:b:1:11: CV201 unknown-source ")
    assert lines[1] == (f"{f}:4:set#4:1:1: CV504 unreadable-input invalid JSON at column 2: "
                        "Expecting property name enclosed in double quotes [in input]")
    assert lines[2] == (f"{f}:5:set#5:1:1: CV504 unreadable-input unknown format: an object "
                        "with keys 'id' [in input]")
    assert lines[3].startswith(f"{f}:6:d:1:10: CV202 line-out-of-range ")
    assert lines[4] == ("4 findings (4 error, 0 warning, 0 info) in 2 of 3 cases; "
                        "2 unreadable inputs or records")


def test_missing_ids_default_to_file_and_record(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    f = write_jsonl(tmp_path / "anon.jsonl", [{"answer": "x" + M("turn1file1")}] * 2)
    _, out, _ = run(capsys, str(f), "--format", "jsonl")
    assert [json.loads(ln)["case_id"] for ln in out.splitlines()] == ["anon#1", "anon#2"]


def test_pretty_case_json_and_json_arrays(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps(case("p", "Bad." + M("turn9file9")), indent=2))
    arr = tmp_path / "arr.json"
    arr.write_text(json.dumps([case("x", "ok.")] + [case("y", "Bad." + M("turn9file9"))]))
    single = tmp_path / "single.json"
    single.write_text(json.dumps(case("s", "Bad." + M("turn9file9"))))
    _, out, _ = run(capsys, str(one), str(arr), str(single), "--format", "jsonl")
    rows = [json.loads(ln) for ln in out.splitlines()]
    assert [(r["path"], r["record"], r["case_id"]) for r in rows] == [
        (str(one), None, "p"), (str(arr), 2, "y"), (str(single), None, "s")]


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: p.write_text("\n\n"), "empty file, no case to lint"),
    (lambda p: p.write_text("[1, 2"), "truncated JSON"),
    (lambda p: p.write_bytes(b"\x00\x01binary"), "binary file"),
    (lambda p: p.write_text("42"), "unknown format"),
    (lambda p: p.write_text('{"question": "q"}'), "unknown format: an object with keys"),
    (lambda p: p.write_text('{\n"question": "q"}'), "not a case, transcript or dataset"),
])
def test_an_unreadable_input_is_a_finding_and_the_run_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, message: str) -> None:
    p = tmp_path / "input.json"
    make(p)  # type: ignore[operator]
    code, out, err = run(capsys, str(p), CLEAN, "--format", "json")
    assert code == 1 and err == ""
    doc = json.loads(out)  # a complete document
    assert [c["path"] for c in doc["cases"]] == [str(p), CLEAN]
    [finding] = doc["cases"][0]["diagnostics"]
    assert (finding["code"], finding["name"], finding["severity"]) == (
        "CV504", "unreadable-input", "error")
    assert message in finding["message"] and doc["cases"][1]["diagnostics"] == []
    assert doc["summary"]["invalid_records"] == 1 and doc["summary"]["cases"] == 1
    # --fail-on decides the exit status; CV504 is an error, so every threshold fails.
    assert run(capsys, str(p), "--fail-on", "info")[0] == 1


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: None, "no such file"),
    (lambda p: p.mkdir(), "a folder with no .json, .jsonl, .ndjson file to lint"),
])
def test_a_missing_path_exits_2_before_any_output(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, message: str) -> None:
    p = tmp_path / "input.json"
    make(p)  # type: ignore[operator]
    code, out, err = run(capsys, CLEAN, str(p), "--format", "json")
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["lint", CLEAN, "--format", "xml"])
    assert exc.value.code == 2
    assert run(capsys, CLEAN, "--jobs", "0")[0] == 2


def test_json_and_sarif_formats(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, BREAKING, CLEAN, "--format", "json")
    doc = json.loads(out)
    assert doc["version"] == 1 and len(doc["cases"]) == 2
    assert doc["summary"]["counts"]["CV201"] == 1
    _, out, _ = run(capsys, BREAKING, "--format", "sarif")
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    sarif = json.loads(out)
    jsonschema.Draft4Validator(schema).validate(sarif)
    assert len(sarif["runs"][0]["results"]) == 11


def test_configuration_file_is_found_and_can_be_ignored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "citeview.toml").write_text('ignore = ["CV3"]\nfail-on = "info"\n')
    _, out, _ = run(capsys, BREAKING, "--format", "jsonl")
    codes = {json.loads(ln)["code"] for ln in out.splitlines()}
    assert codes == {"CV109", "CV201", "CV202", "CV203"}
    _, out, _ = run(capsys, BREAKING, "--format", "jsonl", "--no-config")
    assert "CV301" in {json.loads(ln)["code"] for ln in out.splitlines()}
    cfg = tmp_path / "other.toml"
    cfg.write_text('[tool.citeview]\nselect = ["CV109"]\n')
    _, out, _ = run(capsys, BREAKING, "--format", "jsonl", "--config", str(cfg))
    assert {json.loads(ln)["code"] for ln in out.splitlines()} == {"CV109"}
    # fail-on from the file: an info-only result fails.
    (tmp_path / "citeview.toml").write_text('select = ["CV308"]\nfail-on = "info"\n')
    assert run(capsys, BREAKING)[0] == 1


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    data = (json.dumps(case("a", "x" + M("turn9file9"))) + "\n"
            + json.dumps(case("b", "y" + M("turn9file9"))) + "\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, out, _ = run(capsys, "-", "--format", "jsonl")
    assert code == 1
    assert [(json.loads(ln)["path"], json.loads(ln)["record"]) for ln in out.splitlines()] == [
        ("-", 1), ("-", 2)]


@pytest.mark.slow
def test_jobs_keep_the_input_order(tmp_path: Path) -> None:
    rows = []
    for i in range(300):
        kind = i % 3
        answer = [f"Claim {i} is here." + M("turn0file0", "L1"),
                  f"Claim {i}" + M(f"turn{i}file9") + ".",
                  f"**Claim {i} {M('turn0file0', 'L2')}**"][kind]
        rows.append(case(f"c{i}", answer))
    f = write_jsonl(tmp_path / "big.jsonl", rows)

    def lint(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "citeview", "lint", str(f), "--format",
                               "jsonl", "--no-config", *extra], capture_output=True, text=True,
                              cwd=tmp_path, check=False, timeout=120)

    one, two = lint("--jobs", "1"), lint("--jobs", "2")
    assert one.returncode == two.returncode == 1
    assert two.stderr == ""
    assert one.stdout == two.stdout
    records = [json.loads(ln)["record"] for ln in two.stdout.splitlines()]
    assert records == sorted(records) and len(set(records)) == 200


def test_other_input_formats_lint_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A chat transcript: tool messages are the material.
    chat = SAMPLES / "handbook.chat.json"
    code, out, _ = run(capsys, str(chat))
    assert code == 0 and out.startswith("0 findings (0 error, 0 warning, 0 info) in 0 of 1 case")
    # The same transcript as a JSONL record, with a broken citation in the answer.
    doc = json.loads(chat.read_text(encoding="utf-8"))
    final = doc["messages"][-1]
    final["content"] = final["content"].replace("turn0file0", "turn0file9", 1)
    f = write_jsonl(tmp_path / "chats.jsonl", [doc, case("k", "Fine." + M("turn0file0", "L1"))])
    _, out, _ = run(capsys, str(f), "--format", "jsonl")
    rows = [json.loads(ln) for ln in out.splitlines()]
    assert [(r["record"], r["code"]) for r in rows] == [(1, "CV201")]
    # A plain text answer has no material: every citation is unknown.
    txt = tmp_path / "answer.txt"
    txt.write_text("Remote work is allowed." + M("turn0file0") + "\n", encoding="utf-8")
    code, out, _ = run(capsys, str(txt))
    assert code == 1 and out.splitlines()[0].startswith(f"{txt}:answer:1:24: CV201 ")


@pytest.mark.parametrize("data", [
    b"[tool.citeview]\n# caf\xe9\n",
    b"[tool.citeview]\nx = " + b"9" * 5000 + b"\n",
    b"[tool.citeview]\nx = " + b"[" * 5000 + b"]" * 5000 + b"\n",
], ids=["not-utf8", "huge-int", "deep"])
def test_a_hostile_pyproject_found_upward_is_a_one_line_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        data: bytes) -> None:
    (tmp_path / "pyproject.toml").write_bytes(data)
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    answer = deep / "answer.txt"
    answer.write_text("Plain text.\n", encoding="utf-8")
    monkeypatch.chdir(deep)
    code, out, err = run(capsys, str(answer))
    assert (code, out) == (2, "")
    assert err.startswith(f"citeview: error: {tmp_path / 'pyproject.toml'}: ")
    assert err.count("\n") == 1 and "Traceback" not in err


def test_config_option_naming_a_directory(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, "--config", str(tmp_path), str(tmp_path / "x.txt"))
    assert code == 2 and "is a directory" in err and "no such file" not in err


# --------------------------------------------------------------------------- plain files, folders


def test_lint_plain_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    material = tmp_path / "m.txt"
    material.write_text(TOOL, encoding="utf-8")
    answer = tmp_path / "a.txt"
    answer.write_text("Remote work is allowed." + M("turn0file0", "L1") + " And more."
                      + M("turn0file0", "L9") + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "--material", str(material), "--answer", str(answer),
                       "--format", "jsonl")
    rows = [json.loads(x) for x in out.splitlines()]
    assert code == 1 and [(r["path"], r["case_id"], r["code"]) for r in rows] == [
        (str(answer), "a", "CV202")]
    doc = tmp_path / "d.txt"
    doc.write_text("[L1] A line.\n", encoding="utf-8")
    answer.write_text("A line." + M("doc1", "L1") + "\n", encoding="utf-8")
    assert run(capsys, "--document", f"doc1={doc}", "--answer", str(answer))[0] == 0
    for args, message in ((["--material", str(material)], "plain files need --answer"),
                          ([CLEAN, "--answer", str(answer)], "either PATH or plain files"),
                          ([], "nothing to lint")):
        code, out, err = run(capsys, *args)
        assert code == 2 and out == "" and message in err


def test_lint_a_folder_recursively(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "runs"
    (root / "b" / "deeper").mkdir(parents=True)
    (root / ".hidden").mkdir()
    (root / "a.json").write_text(json.dumps(case("a", "Bad." + M("turn9file9"))))
    write_jsonl(root / "b" / "set.jsonl", [case("b1", "Fine." + M("turn0file0", "L1")),
                                           case("b2", "Bad." + M("turn9file9"))])
    (root / "b" / "deeper" / "c.ndjson").write_text(json.dumps(case("c", "x")) + "\n")
    (root / "b" / "notes.txt").write_text("not linted")
    (root / ".hidden" / "h.json").write_text("{}")
    (root / "b" / "set.citeview").write_bytes(b"SQLite format 3\x00")  # a review session
    code, out, err = run(capsys, str(root), "--format", "json")
    doc = json.loads(out)
    assert code == 1 and err == ""
    assert [(c["path"], c["case_id"]) for c in doc["cases"]] == [
        (str(root / "a.json"), "a"), (str(root / "b" / "deeper" / "c.ndjson"), "c"),
        (str(root / "b" / "set.jsonl"), "b1"), (str(root / "b" / "set.jsonl"), "b2")]

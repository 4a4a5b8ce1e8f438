"""Bad input on the command line: a clear one-line message and exit 2 (lint: a CV504 finding in
a complete output), never a traceback, a window that never closes or a wrong answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.commands import open as open_cmd
from citeview.core.markers import DELIMITER, START, STOP
from citeview.gui import launch

ROOT = Path(__file__).parent.parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8",
       "QT_QPA_PLATFORM": "offscreen"}  # this citeview, wherever the test runs from

Pipe = Callable[[bytes], str]
SAMPLES = Path(__file__).parent.parent / "data" / "samples"
CLEAN = str(SAMPLES / "handbook-line-level.case.json")


def M(*parts: str) -> str:
    return START + "cite" + "".join(DELIMITER + p for p in parts) + STOP


TOOL = f"Citation Marker: {M('turn0file0')}\n[L1] Remote work: three days.\n[L2] More.\n"


def case(cid: str, answer: str) -> dict:
    return {"id": cid, "tool_outputs": [TOOL], "answer": answer}


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(code: int, err: str, message: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("citeview: error: "), err
    assert message in err and "Traceback" not in err


@pytest.fixture(autouse=True)
def _no_window(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list:
    """No test here opens a window: `open` (and `citeview FILE`) hand their dataset to a
    recorder, and a window started without reading the input first fails the test."""
    monkeypatch.chdir(tmp_path)  # no lint configuration is found from here
    calls: list = []

    def no_window(*args: object) -> int:
        raise AssertionError("the window opened before its input was read")
    monkeypatch.setattr(open_cmd, "launch",
                        lambda dataset, case_id, advance=True: calls.append(dataset) or 0)
    monkeypatch.setattr(launch, "run_gui", no_window)
    return calls


BAD_JSON = {
    "deep": "[" * 100000,
    "deep-closed": "[" * 100000 + "]" * 100000,
    "deep-in-a-case": json.dumps({"answer": "x", "meta": json.loads("[" * 300 + "]" * 300)}),
    "huge-integer": '{"answer": "x", "n": ' + "9" * 5000 + "}",
    "annotations-5": json.dumps({"output": [{"type": "message", "content": [
        {"type": "output_text", "text": "x", "annotations": 5}]}]}),
    "type-list": '[{"type": [1]}]',
}
MESSAGES = {
    "deep": "nested too deeply", "deep-closed": "nested too deeply",
    "deep-in-a-case": "nested too deeply", "huge-integer": "more than 4300 digits",
    "annotations-5": "annotations must be a list", "type-list": "an object with keys 'type'",
}


@pytest.mark.parametrize("kind", list(BAD_JSON))
@pytest.mark.parametrize("command", ["resolve", "open", "bare", "import", "parse", "strip"])
def test_bad_json_is_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     command: str, kind: str) -> None:
    f = tmp_path / "bad.json"
    f.write_text(BAD_JSON[kind])
    args = {"bare": [str(f)], "import": ["import", str(f), "-o", str(tmp_path / "s.citeview")]
            }.get(command, [command, str(f)])
    code, _, err = run(capsys, *args)
    message = MESSAGES[kind]
    if command == "import" and kind in ("annotations-5", "type-list"):
        message = "not a citeview session export"  # valid JSON, not an export
    one_line_error(code, err, message)


@pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")
@pytest.mark.parametrize("kind", ["deep", "huge-integer", "annotations-5"])
def test_bad_json_in_screenshot(qapp, tmp_path: Path,  # type: ignore[no-untyped-def]
                                capsys: pytest.CaptureFixture[str], kind: str) -> None:
    f = tmp_path / "bad.json"
    f.write_text(BAD_JSON[kind])
    code, _, err = run(capsys, "screenshot", str(f), "--out", str(tmp_path / "x.png"))
    one_line_error(code, err, MESSAGES[kind])


def test_an_import_nested_too_deeply_is_one_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"format": "citeview-session", "version": 2, "meta": {},
           "cases": [{"id": "a", "answer": "x", "deep": json.loads("[" * 300 + "]" * 300)}]}
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc))
    code, _, err = run(capsys, "import", str(f), "-o", str(tmp_path / "s.citeview"))
    one_line_error(code, err, "nested too deeply")
    assert not (tmp_path / "s.citeview").exists()


# --------------------------------------------------------------------------- lint (#5, #6, #9)


@pytest.mark.parametrize("kind", list(BAD_JSON))
def test_lint_bad_json_is_a_finding_in_a_complete_document(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    f = tmp_path / "bad.json"
    f.write_text(BAD_JSON[kind])
    code, out, err = run(capsys, "lint", "--format", "json", CLEAN, str(f), CLEAN)
    assert code == 1 and err == ""
    doc = json.loads(out)
    assert [c["path"] for c in doc["cases"]] == [CLEAN, str(f), CLEAN]
    codes = [[d["code"] for d in c["diagnostics"]] for c in doc["cases"]]
    assert codes[1] == ["CV504"] and MESSAGES[kind] in doc["cases"][1]["diagnostics"][0][
        "message"]
    assert doc["summary"]["invalid_records"] == 1 and doc["summary"]["cases"] == 2


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_lint_a_deep_record_in_a_dataset_is_a_finding_and_the_run_goes_on(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], jobs: str) -> None:
    rows = [json.dumps(case("a", "Fine." + M("turn0file0", "L1"))),
            "[" * 100000,
            '{"id": "deep", "answer": "x", "m": ' + "[" * 300 + "]" * 300 + "}",
            '{"id": "n", "answer": "x", "n": ' + "1" * 5000 + "}",
            json.dumps(case("b", "Bad." + M("turn9file9")))]
    f = tmp_path / "set.jsonl"
    f.write_text("\n".join(rows) + "\n")
    for fmt in ("json", "sarif", "jsonl", "text"):
        code, out, err = run(capsys, "lint", "--format", fmt, "--jobs", jobs, str(f))
        assert code == 1 and err == ""
        if fmt == "json":
            doc = json.loads(out)
            got = [(c["record"], [d["code"] for d in c["diagnostics"]]) for c in doc["cases"]]
            assert got == [(1, []), (2, ["CV504"]), (3, ["CV504"]), (4, ["CV504"]),
                           (5, ["CV201"])]
            assert doc["summary"]["invalid_records"] == 3 and doc["summary"]["cases"] == 2
        elif fmt == "sarif":
            results = json.loads(out)["runs"][0]["results"]
            assert [r["ruleId"] for r in results] == ["CV504"] * 3 + ["CV201"]
        elif fmt == "jsonl":
            assert [json.loads(x)["code"] for x in out.splitlines()] == ["CV504"] * 3 + [
                "CV201"]
        else:
            assert f"{f}:2:set#2:1:1: CV504 unreadable-input JSON nested too deeply" in out
    # --fail-on: an unreadable record is an error, so it fails at every threshold; clean
    # records alone pass.
    good = tmp_path / "good.jsonl"
    good.write_text(rows[0] + "\n")
    assert run(capsys, "lint", str(good), "--fail-on", "error")[0] == 0


def test_lint_json_with_an_unreadable_document_among_cases_is_complete(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Not a case, transcript or any provider's response (a Chat Completions response reads as
    # a case since providers are read): what lint cannot read is a finding, the run goes on.
    response = {"id": "list-1", "object": "list", "data": [{"embedding": [0.1, 0.2]}]}
    r = tmp_path / "response.json"
    r.write_text(json.dumps(response, indent=2))
    for fmt in ("json", "sarif"):
        code, out, err = run(capsys, "lint", "--format", fmt, CLEAN, str(r), CLEAN)
        assert code == 1 and err == ""
        doc = json.loads(out)  # the whole document, not its start
        if fmt == "json":
            assert len(doc["cases"]) == 3
            assert doc["cases"][1]["diagnostics"][0]["message"].startswith(
                "not a case, transcript or dataset (an object with keys 'id'")


# --------------------------------------------------------------------------- /dev/zero, limits


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("args", [
    ["resolve", "/dev/zero"], ["parse", "/dev/zero"], ["strip", "/dev/zero"],
    ["open", "/dev/zero"], ["/dev/zero"], ["prepare", "/dev/zero"],
    ["import", "/dev/zero", "-o", "s.citeview"],
    ["resolve", "--material", "/dev/zero", "--answer", "/dev/zero"],
])
def test_dev_zero_is_refused_at_once(capsys: pytest.CaptureFixture[str],
                                     args: list[str]) -> None:
    code, _, err = run(capsys, *args)
    one_line_error(code, err, "/dev/zero: binary file (contains NUL bytes), not text")


@pytest.mark.parametrize("command", ["resolve", "parse", "strip", "open", "prepare", "import",
                                     "lint"])
def test_an_endless_stream_stops_at_the_size_limit(pipe_of: Pipe, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   command: str) -> None:
    endless = b"y\n" * (4 << 20)  # what `yes | citeview ...` gives, as far as 64K can tell
    extra = ["-o", str(tmp_path / "s.citeview")] if command == "import" else []
    code, out, err = run(capsys, command, "--max-input-size", "64K", pipe_of(endless), *extra)
    if command == "lint":
        assert code == 1 and "CV504 unreadable-input input too large" in out
        return
    one_line_error(code, err, "input too large (more than 65536 bytes; raise the limit with "
                   "--max-input-size or CITEVIEW_MAX_INPUT)")


def test_the_limit_can_be_raised(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "answer.txt"
    f.write_text("word " * 30000)  # 150,000 bytes
    monkeypatch.setenv("CITEVIEW_MAX_INPUT", "100K")
    one_line_error(*run(capsys, "parse", str(f))[::2], "input too large")
    assert run(capsys, "parse", "--max-input-size", "1M", str(f))[0] == 0
    monkeypatch.setenv("CITEVIEW_MAX_INPUT", "1M")
    assert run(capsys, "parse", str(f))[0] == 0
    with pytest.raises(SystemExit) as exc:
        main(["parse", "--max-input-size", "lots", str(f)])
    assert exc.value.code == 2


# --------------------------------------------------------------------------- non-UTF-8 names


@pytest.mark.skipif(sys.platform == "win32" or sys.platform == "darwin",
                    reason="file names must be allowed to be any bytes")
def test_a_file_name_that_is_not_utf8(tmp_path: Path) -> None:
    name = os.fsdecode(b"h\xe9")
    (tmp_path / f"{name}.md").write_text("Hello world.\n", encoding="utf-8")
    case_file = tmp_path / f"{name}.case.json"
    case_file.write_bytes((SAMPLES / "handbook-rule-breaking.case.json").read_bytes())

    def cli(*args: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "citeview", *args], cwd=tmp_path,
                              capture_output=True, timeout=60, check=False, env=ENV)

    proc = cli("prepare", f"{name}.md")
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr
    assert "Title: h\ufffd.md" in proc.stdout.decode("utf-8")
    for fmt in ("sarif", "json", "jsonl", "text"):
        proc = cli("lint", "--format", fmt, f"{name}.case.json")
        assert proc.returncode == 1 and proc.stderr == b"", proc.stderr
        text = proc.stdout.decode("utf-8")
        if fmt == "sarif":
            uri = json.loads(text)["runs"][0]["results"][0]["locations"][0][
                "physicalLocation"]["artifactLocation"]["uri"]
            assert uri == "h%E9.case.json"
        elif fmt == "json":
            assert json.loads(text)["cases"][0]["path"] == "h\ufffd.case.json"
    proc = cli("resolve", "--json", f"{name}.md")
    assert proc.returncode == 0 and proc.stdout.strip() == b"[]"


# --------------------------------------------------------------------------- #8: citeview FILE


@pytest.mark.parametrize(("make", "message"), [
    (lambda p: None, "no such file"),
    (lambda p: p.mkdir(), "is a directory, not a file"),
    (lambda p: p.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "binary file"),
    (lambda p: p.write_bytes(b"text\n" * 3000 + b"\x00"), "binary file"),
])
def test_citeview_file_checks_the_input_before_the_window(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], _no_window: list,
        make: Callable[[Path], None], message: str) -> None:
    p = tmp_path / "input.json"
    make(p)
    for args in ([str(p)], ["open", str(p)], [str(p), "--case", "x"]):
        code, _, err = run(capsys, *args)
        one_line_error(code, err, message)
    assert _no_window == []
    # A good file opens the same way through both entries.
    assert run(capsys, CLEAN)[0] == 0 and run(capsys, "open", CLEAN)[0] == 0
    assert [d.case_ids() for d in _no_window] == [["handbook-line-level"]] * 2
    one_line_error(*run(capsys, CLEAN, "--case", "zz")[::2], "--case zz: no such case")


def test_citeview_missing_file_exits_in_a_real_process(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "citeview", str(tmp_path / "missing.json")],
                          capture_output=True, text=True, timeout=60, check=False, env=ENV)
    assert proc.returncode == 2
    assert proc.stderr == f"citeview: error: {tmp_path / 'missing.json'}: no such file\n"


# --------------------------------------------------------------------------- #11: NUL anywhere


@pytest.mark.parametrize("command", ["resolve", "parse", "strip", "open", "prepare"])
def test_a_nul_byte_after_the_first_8_kib_is_binary(tmp_path: Path, command: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "answer.txt"
    f.write_bytes(b"A clean first part of the answer.\n" * 300 + b"then \x00 a NUL\n")
    code, _, err = run(capsys, command, str(f))
    one_line_error(code, err, "binary file (contains NUL bytes), not text")
    code, out, _ = run(capsys, "lint", str(f))
    assert code == 1 and "CV504 unreadable-input binary file" in out


# --------------------------------------------------------------------------- issue 25 #9


def test_demo_with_an_unknown_case_is_the_line_a_file_gives(
        capsys: pytest.CaptureFixture[str], _no_window: list) -> None:
    demo = str(ROOT / "resources" / "demo" / "demo.jsonl")
    code, _, from_file = run(capsys, demo, "--case", "nope")
    one_line_error(code, from_file, f"--case nope: no such case in {demo}")
    code, _, from_demo = run(capsys, "--demo", "--case", "nope")
    assert code == 2 and from_demo == from_file
    assert _no_window == []  # no window, empty or not, for either


def test_an_unknown_option_shows_the_subcommands_usage(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as ex:
        main(["resolve", "--jsno"])
    assert ex.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: citeview resolve ") and "--json" in err
    assert err.rstrip().endswith("citeview resolve: error: unrecognized arguments: --jsno")


def test_citeview_help_lists_the_commands_and_helps_with_each(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: citeview ")
    assert "  resolve " in out and "  report " in out and "no such file" not in out
    assert main(["help", "export"]) == 0
    assert capsys.readouterr().out.startswith("usage: citeview export ")
    one_line_error(*run(capsys, "help", "exprot")[::2], "help exprot: no such command")


def test_prompt_offers_no_input_size_limit(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["prompt", "--help"])
    assert "--max-input-size" not in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["lint", "--help"])  # a command that reads input keeps it
    assert "--max-input-size" in capsys.readouterr().out
    assert main(["prompt"]) == 0 and "cite" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["report", "export"])
def test_report_and_export_on_a_dataset_point_to_its_session(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str) -> None:
    data = tmp_path / "cases.jsonl"
    data.write_text(json.dumps(case("c1", "Remote." + M("turn0file0", "L1"))) + "\n",
                    encoding="utf-8")
    session = tmp_path / "cases.citeview"
    code, _, err = run(capsys, command, str(data))
    one_line_error(code, err, "not a citeview session")
    assert f"no review session yet: review it (citeview {data}) and its verdicts are kept " \
           f"in {session}" in err
    from citeview.core.inputs import load_input
    from citeview.session import Session

    ds = load_input(str(data))
    Session.create(str(session), ds).close()
    ds.close()
    code, _, err = run(capsys, command, str(data))
    one_line_error(code, err, f"its review session is {session}: citeview {command} {session}")
    assert run(capsys, command, str(session))[0] == 0  # and that command works

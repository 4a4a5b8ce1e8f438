"""Inputs read once: every command that takes an input path reads a pipe, a FIFO, a process
substitution (``<(cat case.json)``, a ``/dev/fd/N`` path) and ``-`` (standard input) exactly as
it reads the file, for inputs larger than the 8 KiB a first look used to swallow."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.commands import open as open_cmd
from citeview.core.datasets import Dataset
from citeview.core.errors import InputError
from citeview.core.inputs import load_input
from citeview.core.markers import DELIMITER, START, STOP
from citeview.gui import launch
from citeview.session.loader import SESSION_LOADERS

Pipe = Callable[[bytes], str]


def M(*parts: str) -> str:
    return START + "cite" + "".join(DELIMITER + p for p in parts) + STOP


LINES = "".join(f"[L{i}] Line {i} of the handbook says something about policy {i}.\n"
                for i in range(1, 301))
TOOL = f"Citation Marker: {M('turn0file0')}\n{LINES}"
ANSWER = (f"Remote work is allowed.{M('turn0file0', 'L1-L2')} Policy 300 ends it."
          f"{M('turn0file0', 'L300')}\n")


def big_case(cid: str = "big") -> dict:
    return {"id": cid, "tool_outputs": [TOOL], "answer": ANSWER}


CASE_BYTES = json.dumps(big_case(), indent=2).encode()
JSONL_BYTES = "".join(json.dumps(big_case(f"c{i}")) + "\n" for i in range(3)).encode()
assert len(CASE_BYTES) > 8192 and len(TOOL.encode()) > 8192


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def statuses(out: str) -> list[tuple[str, str]]:
    return [(r["targets"][0]["source_id"], r["targets"][0]["status"]) for r in json.loads(out)]


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Callable[[bytes], None]:
    def feed(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    return feed


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Dataset, str | None]]:
    calls: list[tuple[Dataset, str | None]] = []

    def fake(dataset: Dataset, case_id: str | None, advance: bool = True) -> int:
        calls.append((dataset, case_id))
        return 0

    def no_window(*args: object) -> int:
        raise AssertionError("the window opened without its input read first")
    monkeypatch.setattr(open_cmd, "launch", fake)
    monkeypatch.setattr(launch, "run_gui", no_window)
    return calls


# --------------------------------------------------------------------------- resolve


def test_resolve_reads_a_case_through_a_pipe(pipe_of: Pipe, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "case.json"
    f.write_bytes(CASE_BYTES)
    code, from_file, _ = run(capsys, "resolve", "--json", str(f))
    assert code == 0 and statuses(from_file) == [("turn0file0", "ok")] * 2
    code, from_pipe, err = run(capsys, "resolve", "--json", pipe_of(CASE_BYTES))
    assert (code, err) == (0, "") and from_pipe == from_file


def test_resolve_plain_material_through_a_pipe_is_not_unknown_source(
        pipe_of: Pipe, fifo_of: Pipe, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    answer = tmp_path / "a.txt"
    answer.write_text(ANSWER, encoding="utf-8")
    for make in (pipe_of, fifo_of):
        code, out, _ = run(capsys, "resolve", "--json", "--material", make(TOOL.encode()),
                           "--answer", str(answer))
        assert code == 0 and statuses(out) == [("turn0file0", "ok")] * 2
    # The answer through a pipe too, and a document given with FILE.
    code, out, _ = run(capsys, "resolve", "--json", "--material", pipe_of(TOOL.encode()),
                       "--answer", pipe_of(ANSWER.encode()))
    assert code == 0 and statuses(out) == [("turn0file0", "ok")] * 2
    case = tmp_path / "c.json"
    case.write_text(json.dumps({"id": "c", "answer": f"Yes.{M('doc1', 'L300')}"}))
    code, out, _ = run(capsys, "resolve", "--json", str(case), "--document",
                       f"doc1={pipe_of(LINES.encode())}")
    assert code == 0 and statuses(out) == [("doc1", "ok")]


def test_resolve_stdin_reads_what_a_file_holds(stdin: Callable[[bytes], None], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    # Plain text: `resolve FILE` accepts it, so `resolve -` does too.
    text = f"An answer citing nothing known.{M('turn0file0')}\n"
    f = tmp_path / "answer.txt"
    f.write_text(text, encoding="utf-8")
    code, from_file, _ = run(capsys, "resolve", "--json", str(f))
    stdin(text.encode())
    code2, from_stdin, err = run(capsys, "resolve", "--json", "-")
    assert code == code2 == 0 and err == ""
    assert statuses(from_stdin) == statuses(from_file) == [("turn0file0", "unknown-source")]
    # A JSONL dataset on stdin.
    stdin(JSONL_BYTES)
    code, out, _ = run(capsys, "resolve", "--json", "-")
    assert code == 0 and [r["case"] for r in json.loads(out)] == ["c0", "c0", "c1", "c1",
                                                                  "c2", "c2"]


def test_resolve_process_substitution_in_a_shell(tmp_path: Path) -> None:
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash")
    f = tmp_path / "case.json"
    f.write_bytes(CASE_BYTES)
    proc = subprocess.run([bash, "-c", f'"{sys.executable}" -m citeview resolve --json '
                           f'<(cat "{f}")'], capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    assert statuses(proc.stdout) == [("turn0file0", "ok")] * 2


# --------------------------------------------------------------------------- lint


def test_lint_reads_pipes_fifos_and_stdin(pipe_of: Pipe, fifo_of: Pipe, tmp_path: Path,
                                          stdin: Callable[[bytes], None],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "set.jsonl"
    f.write_bytes(JSONL_BYTES)
    code, from_file, _ = run(capsys, "lint", "--no-config", "--format", "json", str(f))
    expected = [(c["record"], c["case_id"], c["diagnostics"])
                for c in json.loads(from_file)["cases"]]
    assert code == 0 and len(expected) == 3
    for make in (pipe_of, fifo_of):
        code, out, err = run(capsys, "lint", "--no-config", "--format", "json",
                             make(JSONL_BYTES))
        assert (code, err) == (0, "")
        assert [(c["record"], c["case_id"], c["diagnostics"])
                for c in json.loads(out)["cases"]] == expected
    stdin(JSONL_BYTES)
    code, out, _ = run(capsys, "lint", "--no-config", "--format", "json", "-")
    assert code == 0 and len(json.loads(out)["cases"]) == 3
    # A pretty-printed case (one document) through a pipe.
    code, out, _ = run(capsys, "lint", "--no-config", "--format", "json", pipe_of(CASE_BYTES))
    doc = json.loads(out)
    assert code == 0 and [c["case_id"] for c in doc["cases"]] == ["big"]


# --------------------------------------------------------------------------- parse, strip


def test_parse_and_strip_read_pipes_like_files(pipe_of: Pipe, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    text = ("Some filler text. " * 600) + ANSWER  # the markers after the first 8 KiB
    f = tmp_path / "answer.txt"
    f.write_text(text, encoding="utf-8")
    for command in ("parse", "strip"):
        code, from_file, _ = run(capsys, command, str(f))
        code2, from_pipe, err = run(capsys, command, pipe_of(text.encode()))
        assert code == code2 == 0 and err == "" and from_pipe == from_file
    code, out, _ = run(capsys, "parse", pipe_of(text.encode()))
    assert [c["locator"] for c in json.loads(out)] == ["L1-L2", "L300"]


# --------------------------------------------------------------------------- open, citeview FILE


def test_open_and_the_bare_command_read_a_pipe(pipe_of: Pipe, opened: list,
                                               stdin: Callable[[bytes], None]) -> None:
    assert main(["open", pipe_of(CASE_BYTES)]) == 0
    assert main([pipe_of(JSONL_BYTES), "--case", "c1"]) == 0
    stdin(CASE_BYTES)
    assert main(["open", "-"]) == 0
    (one, _), (many, case_id), (piped, _) = opened
    assert one.case_ids() == ["big"] and one.get(0).tool_outputs == [TOOL]
    assert many.case_ids() == ["c0", "c1", "c2"] and case_id == "c1"
    assert many.get(2).answer == ANSWER and piped.get(0).answer == ANSWER
    # Read from a pipe: nothing to watch or read again, no file to keep a session beside.
    for dataset in (one, many, piped):
        assert dataset.path is None and dataset.watch_paths() == []
        with pytest.raises(InputError):
            dataset.reload()


# --------------------------------------------------------------------------- import, prepare


def _export(cases: list[dict]) -> bytes:
    return json.dumps({"format": "citeview-session", "version": 2, "meta": {},
                       "cases": cases, "reviews": [], "annotations": []}).encode()


def test_import_reads_a_pipe_and_stdin(pipe_of: Pipe, stdin: Callable[[bytes], None],
                                       tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    data = _export([big_case("a"), big_case("b")])
    out = tmp_path / "a.citeview"
    code, _, err = run(capsys, "import", pipe_of(data), "-o", str(out))
    assert code == 0 and "imported 2 cases" in err
    assert load_input(str(out), SESSION_LOADERS).case_ids() == ["a", "b"]
    stdin(data)
    code, _, err = run(capsys, "import", "-", "-o", str(tmp_path / "b.citeview"))
    assert code == 0 and "imported 2 cases" in err
    # Without -o there is no file name to put the session beside.
    stdin(data)
    code, _, err = run(capsys, "import", "-")
    assert code == 2 and "give the new session with -o" in err
    code, _, err = run(capsys, "import", pipe_of(data))
    assert code == 2 and "give the new session with -o" in err


def test_prepare_reads_a_pipe(pipe_of: Pipe, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    doc = "".join(f"Paragraph {i} of a long document, with enough words to be long.\n\n"
                  for i in range(300)).encode()
    f = tmp_path / "doc.txt"
    f.write_bytes(doc)
    code, from_file, _ = run(capsys, "prepare", str(f), "--unit", "line")
    code2, from_pipe, err = run(capsys, "prepare", pipe_of(doc), "--unit", "line")
    assert code == code2 == 0 and err == ""
    body = from_file.split("\n", 2)[2]  # after the header naming the file
    assert from_pipe.endswith(body) and "[L599] Paragraph 299" in from_pipe


# --------------------------------------------------------------------------- screenshot


@pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")
def test_screenshot_reads_a_pipe_and_stdin(qapp, pipe_of: Pipe,  # type: ignore[no-untyped-def]
                                           stdin: Callable[[bytes], None], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    for source in ("pipe", "stdin"):
        if source == "stdin":
            stdin(CASE_BYTES)
        path = pipe_of(CASE_BYTES) if source == "pipe" else "-"
        out = tmp_path / f"{source}.png"
        code, text, err = run(capsys, "screenshot", path, "--click", "2", "--size", "800x600",
                              "--out", str(out), "--json")
        assert code == 0, err
        state = json.loads(text)
        assert (state["case"], state["source_id"], state["first_line"]) == (
            "big", "turn0file0", "L300")
        assert out.stat().st_size > 0


# --------------------------------------------------------------------------- one read


def test_stdin_can_be_given_once(stdin: Callable[[bytes], None],
                                 capsys: pytest.CaptureFixture[str]) -> None:
    stdin(TOOL.encode())
    code, _, err = run(capsys, "resolve", "--material", "-", "--answer", "-")
    assert code == 2 and "standard input (-) can be given only once" in err
    code, _, err = run(capsys, "lint", "-", "-")
    assert code == 2 and "standard input (-) can be given only once" in err


# --------------------------------------------------------------------------- sessions


def test_a_session_through_a_pipe_or_stdin_is_refused_clearly(
        pipe_of: Pipe, stdin: Callable[[bytes], None], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    session = tmp_path / "s.citeview"
    assert main(["import", pipe_of(_export([big_case("a")])), "-o", str(session)]) == 0
    data = session.read_bytes()
    capsys.readouterr()
    for command in (["export"], ["report"], ["agree", str(session)],
                    ["merge", str(session), "-o", str(tmp_path / "m.citeview")],
                    ["resolve"], ["open"], ["parse"]):
        code, _, err = run(capsys, *command, pipe_of(data))
        assert code == 2 and err.count("\n") == 1, err
        assert "a citeview session cannot be read from a pipe" in err and "damaged" not in err
        stdin(data)
        code, _, err = run(capsys, *command, "-")
        assert code == 2 and "citeview session cannot be read from" in err, err
        assert "standard input" in err and "no such file" not in err

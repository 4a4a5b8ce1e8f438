"""``citeview parse`` and ``citeview strip`` on files and stdin, and their bad-input messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.core.markers import DELIMITER as D
from citeview.core.markers import START as S
from citeview.core.markers import STOP as E

ANSWER = f"Remote work is allowed.{S}cite{D}turn0file0{D}L1{E} Travel too.citeturn0file1\n"


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "citeview", *args], input=stdin,
                          capture_output=True, timeout=60)


def test_parse_file_prints_reference_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "a.txt"
    f.write_text(ANSWER, encoding="utf-8")
    assert main(["parse", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == [{"raw": f"{S}cite{D}turn0file0{D}L1{E}", "family": "cite",
                    "source_ids": ["turn0file0"], "locator": "L1", "start": 23, "end": 43}]


def test_parse_scan_reports_recovered_and_diagnostics(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "a.txt"
    f.write_text(ANSWER, encoding="utf-8")
    assert main(["parse", "--scan", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c.get("recovered") for c in out["citations"]] == [None, "degraded"]
    assert [d["code"] for d in out["diagnostics"]] == ["CV107"]


def test_families_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "a.txt"
    f.write_text(f"x{S}navlist{D}turn0file0{E} y{S}cite{D}turn0file1{E}", encoding="utf-8")
    assert main(["parse", "--families", "cite,navlist", str(f)]) == 0
    assert [c["family"] for c in json.loads(capsys.readouterr().out)] == ["navlist", "cite"]
    assert main(["parse", str(f)]) == 0
    assert [c["family"] for c in json.loads(capsys.readouterr().out)] == ["cite"]


def test_parse_and_strip_read_stdin() -> None:
    proc = run_cli("parse", "-", stdin=ANSWER.encode())
    assert proc.returncode == 0
    assert json.loads(proc.stdout)[0]["source_ids"] == ["turn0file0"]
    proc = run_cli("strip", stdin=ANSWER.encode())
    assert proc.returncode == 0
    assert proc.stdout.decode() == "Remote work is allowed. Travel too.citeturn0file1\n"
    proc = run_cli("strip", "--all", "-", stdin=ANSWER.encode())
    assert proc.stdout.decode() == "Remote work is allowed. Travel too.\n"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p / "missing.txt", "no such file"),
        (lambda p: p, "is a directory"),
        (lambda p: (p / "bad.txt").write_bytes(b"caf\xe9 \xff") and p / "bad.txt", "invalid UTF-8"),
        (lambda p: (p / "bin.dat").write_bytes(b"\x7fELF\x00\x01\x02") and p / "bin.dat",
         "binary file"),
    ],
    ids=["missing", "directory", "invalid-utf8", "binary"],
)
@pytest.mark.parametrize("command", ["parse", "strip"])
def test_bad_input_is_one_line_exit_2(tmp_path: Path, make, message: str, command: str) -> None:
    path = make(tmp_path)
    proc = run_cli(command, str(path))
    assert proc.returncode == 2
    err = proc.stderr.decode()
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert proc.stdout == b""

"""Plain answers that start with ``[`` or ``{`` (issue 28): every command reads them as the
plain answer they are, with an info line; a ``.json`` file that does not parse stays CV504.
Fixtures: ``tests/data/plain-brackets`` (README there)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.core.inputs import load_input

DATA = Path(__file__).parent.parent / "data" / "plain-brackets"
PLAIN = ["link.md", "numbered.txt", "cite-start.txt", "curly.txt"]

pytestmark = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    rc = main(list(args))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.mark.parametrize("name", PLAIN)
def test_every_reader_gets_the_plain_answer(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    for plain_text in (False, True):
        dataset = load_input(str(DATA / name), plain_text=plain_text)
        assert (dataset.kind, len(dataset)) == ("plain", 1)
        assert dataset.get(0).answer == text
        assert dataset.notes == (f"{DATA / name}: info: starts with {text[0]!r} but is not "
                                 "JSON: read as a plain answer",)


@pytest.mark.parametrize("name", PLAIN)
def test_lint_and_resolve_read_it_and_say_so(capsys, name: str) -> None:
    rc, out, err = cli(capsys, "lint", "--format", "json", str(DATA / name))
    report = json.loads(out)
    codes = [f["code"] for case in report["cases"] for f in case["diagnostics"]]
    assert rc == 0 and "CV504" not in codes and len(report["cases"]) == 1
    assert err.count("info: starts with") == 1 and "read as a plain answer" in err
    rc, out, err = cli(capsys, "resolve", "--json", str(DATA / name))
    assert rc == 0 and json.loads(out) == [] and "read as a plain answer" in err


def test_the_answer_from_stdin_reads_the_same(capsys, monkeypatch) -> None:
    import io
    import sys

    data = (DATA / "numbered.txt").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    rc, out, err = cli(capsys, "lint", "--format", "json", "-")
    assert rc == 0 and "<stdin>: info: starts with '['" in err


def test_a_json_file_that_does_not_parse_keeps_cv504(capsys) -> None:
    rc, out, err = cli(capsys, "lint", "--format", "json", str(DATA / "named.json"))
    codes = [f["code"] for case in json.loads(out)["cases"] for f in case["diagnostics"]]
    assert rc == 1 and codes == ["CV504"] and "plain answer" not in err
    rc, _, err = cli(capsys, "resolve", str(DATA / "named.json"))
    assert rc == 2 and "invalid JSON" in err


def test_broken_json_without_a_json_name_is_still_an_error(tmp_path, capsys) -> None:
    # Text that can only be meant as JSON (an object with a key) is not an answer.
    broken = tmp_path / "case.txt"
    broken.write_text('{"answer": "cut off', encoding="utf-8")
    rc, _, err = cli(capsys, "resolve", str(broken))
    assert rc == 2 and "truncated JSON" in err and "plain answer" not in err


def test_screenshot_renders_the_plain_answer(qapp, capsys, tmp_path) -> None:
    out = tmp_path / "shot.png"
    rc = main(["screenshot", str(DATA / "link.md"), "--out", str(out), "--raw", "--json"])
    captured = capsys.readouterr()
    assert rc == 0 and out.stat().st_size > 0
    assert "read as a plain answer" in captured.err
    state = json.loads(captured.out)
    assert state["case"] == "link"

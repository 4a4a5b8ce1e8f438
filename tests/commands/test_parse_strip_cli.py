"""``citeview parse`` and ``citeview strip`` on files and stdin, and their bad-input messages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# --------------------------------------------------------------------------- structured inputs


def test_parse_and_strip_read_a_case_json_as_its_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "x.case.json"
    f.write_text(json.dumps({"id": "x", "question": "Q?", "answer": ANSWER}, indent=2))
    assert main(["parse", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    # Offsets count in the answer, not in the JSON text around it.
    assert [(c["start"], c["end"]) for c in out] == [(23, 43)]
    assert main(["strip", str(f)]) == 0
    assert capsys.readouterr().out == "Remote work is allowed. Travel too.citeturn0file1\n"
    # A chat transcript: its answer is the last assistant message.
    chat = tmp_path / "t.chat.json"
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "Q?"},
                                             {"role": "assistant", "content": ANSWER}]}))
    assert main(["parse", "--scan", str(chat)]) == 0
    assert [d["code"] for d in json.loads(capsys.readouterr().out)["diagnostics"]] == ["CV107"]


def test_parse_and_strip_of_a_dataset_name_each_case(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "set.jsonl"
    f.write_text(json.dumps({"id": "a", "answer": ANSWER}) + "\n"
                 + json.dumps({"id": "b", "answer": "No citation."}) + "\n")
    assert main(["parse", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(x["case"], [c["start"] for c in x["citations"]]) for x in out] == [
        ("a", [23]), ("b", [])]
    assert main(["parse", "--scan", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(x["case"], len(x["citations"]), len(x["diagnostics"])) for x in out] == [
        ("a", 2, 1), ("b", 0, 0)]
    assert main(["strip", "--all", str(f)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows == [{"case": "a", "answer": "Remote work is allowed. Travel too.\n"},
                    {"case": "b", "answer": "No citation."}]


@pytest.mark.parametrize("text", ["[1] A bracketed note." + ANSWER, "[1]", "{curly} text",
                                  "<p>markup</p>", "", "   \n"])
def test_plain_text_stays_as_it_is(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   text: str) -> None:
    f = tmp_path / "a.txt"
    f.write_text(text, encoding="utf-8")
    assert main(["strip", str(f)]) == 0
    out = capsys.readouterr().out
    assert out == text.replace(f"{S}cite{D}turn0file0{D}L1{E}", "")


def test_text_that_is_meant_as_json_must_be_valid(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "a.txt"
    f.write_text('{"answer": "x"', encoding="utf-8")  # truncated: not an answer to parse
    assert main(["parse", str(f)]) == 2
    assert "truncated JSON" in capsys.readouterr().err


_ODD = st.sampled_from([" ", "\n", "é", "😀", '"', "\\", "\t", "\x01", "\u2028", "x", ""])
_MARKER = st.builds(
    lambda fam, pad, ids, loc: S + fam + D + D.join(pad + i + pad for i in ids) + loc + E,
    st.sampled_from(["cite", "navlist"]), _ODD,
    st.lists(st.sampled_from(["turn0file0", "turn1news2", "a-b_9"]), min_size=1, max_size=3),
    st.sampled_from(["", D + "L3", D + "L2-L9", D + " L4\t"]))
_PARTS = st.one_of(_MARKER, _ODD, st.sampled_from([S, E, D, "cite"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_PARTS, max_size=30).map("".join), st.integers(1, 12))
def test_streamed_parse_output_is_the_citations_json_in_any_pieces(text: str, piece: int) -> None:
    """``citeview parse`` of one answer writes piece by piece with json's own string encoder:
    its output reads back as the reference parser's citations, whatever is quoted and wherever
    the pieces are cut."""
    import io

    from citeview.commands import parse as parse_cmd
    from citeview.core.markers import extract_citations

    out = io.StringIO()
    old = parse_cmd.PIECE
    parse_cmd.PIECE = piece
    try:
        parse_cmd.write_citations(text, ["cite", "navlist"], out)
    finally:
        parse_cmd.PIECE = old
    assert json.loads(out.getvalue()) == [
        c.to_dict() for c in extract_citations(text, ["cite", "navlist"])]

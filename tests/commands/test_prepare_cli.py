"""citeview prepare / citeview prompt, and the acceptance round trip through citeview lint."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.core.markers import DELIMITER, START, STOP
from citeview.core.material import parse_context, parse_tool_output
from citeview.core.prepare import Document, marker, prepare_material
from citeview.core.prompts import instructions

DATA = Path(__file__).parent.parent / "data" / "prepare"
PROSE, GUIDE, CODE = (str(DATA / n) for n in ("prose.txt", "guide.md", "retry.py"))


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def prepare_bytes(args: list[str], tmp_path: Path, name: str = "m.txt") -> bytes:
    out = tmp_path / name
    assert main(["prepare", *args, "-o", str(out)]) == 0
    return out.read_bytes()


# ----------------------------------------------------------------------------- prepare


def test_prepare_writes_the_material_and_is_byte_identical_across_runs(tmp_path):
    args = [PROSE, GUIDE, CODE, "--unit", "line", "--meta", "Updated=2026-03-01"]
    first = prepare_bytes(args, tmp_path, "a.txt")
    # A separate process gives the same bytes (no dependence on process state or hashing).
    proc = subprocess.run([sys.executable, "-m", "citeview", "prepare", *args],
                          capture_output=True, check=True)
    assert proc.stdout == first
    text = first.decode("utf-8")
    assert text.startswith(f"Citation Marker: {START}cite{DELIMITER}turn0file0{STOP}\n"
                           "Title: prose.txt\nUpdated: 2026-03-01\n\n[L1] Employees")
    sources = parse_tool_output(text).sources
    assert [(s.id, s.title) for s in sources] == [("turn0file0", "prose.txt"),
                                                 ("turn0file1", "Deployment Guide"),
                                                 ("turn0file2", "retry.py")]
    assert [s.meta("Updated") for s in sources] == ["2026-03-01"] * 3


def test_prepare_cli_matches_the_python_api(tmp_path):
    docs = [Document(p, Path(p).read_text(encoding="utf-8")) for p in (PROSE, GUIDE, CODE)]
    for unit in ("line", "block", "context", "document"):
        cli = prepare_bytes([PROSE, GUIDE, CODE, "--unit", unit, "--turn", "2"], tmp_path)
        assert cli.decode("utf-8") == prepare_material(docs, unit, turn=2).text


def test_prepare_options(tmp_path):
    ctx = prepare_bytes([GUIDE, "--unit", "context", "--block-lines", "2"], tmp_path)
    units = parse_context(ctx.decode("utf-8")).sources
    assert [u.id for u in units] == ["block1", "block2", "block3", "block4", "block5"]
    sent = prepare_bytes([PROSE, "--unit", "line", "--split", "sentences"], tmp_path)
    (src,) = parse_tool_output(sent.decode("utf-8")).sources
    assert src.line_text(src.lines[1]) == ("Additional remote days require written approval "
                                           "from their manager.")


def test_prepare_reads_stdin_and_warns_per_document(tmp_path, monkeypatch, capsys):
    tricky = tmp_path / "tricky.txt"
    tricky.write_text("[L5] not a label\nplain\n", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(
        f"# From stdin\n\nhas a {START} marker char\n".encode())))
    code, out, err = run(["prepare", str(tricky), "-", "--unit", "document"], capsys)
    assert code == 0
    assert err.splitlines() == [
        f"citeview: warning: {tricky}: 1 line(s) that would read as marker headers or line "
        "labels escaped with a leading backslash",
        "citeview: warning: stdin: 1 citation marker character(s) (U+E200-U+E202) replaced by "
        "U+FFFD",
    ]


@pytest.mark.parametrize("args", [
    ["prepare", "/nonexistent/doc.txt"],
    ["prepare", PROSE, "--unit", "block", "--split", "sentences"],
    ["prepare", PROSE, "--unit", "line", "--block-lines", "3"],
    ["prepare", PROSE, "--meta", "bad:key=1"],
    ["prepare", PROSE, "--meta", "novalue"],
    ["prepare", PROSE, "--turn", "-1"],
    ["prepare", "-", "-"],
    ["prompt", "--unit", "block", "--require-locators"],
])
def test_bad_input_exits_2_with_one_line(args, capsys):
    code = None
    try:
        code = main(args)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    _out, err = capsys.readouterr()
    assert code == 2
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith(("citeview: error:", "citeview prepare: error",
                                                    "citeview prompt: error"))


# ----------------------------------------------------------------------------- prompt


def test_prompt_prints_the_instructions(capsys):
    code, out, _err = run(["prompt", "--unit", "line", "--require-locators", "--multi-source",
                           "per-marker", "--extra-considerations"], capsys)
    assert code == 0
    assert out == instructions("line", True, "per-marker", True)
    assert f"{START}cite{DELIMITER}<source id>{DELIMITER}L<first>-L<last>{STOP}" in out


# ----------------------------------------------------------------------------- acceptance

# One answer per unit, citing all three documents (prose, Markdown with headings, code) by the
# ids and lines `citeview prepare` gave them.
CLAIMS = [
    "Employees may work from home up to three days a week, and extra days need their "
    "manager's written approval.",
    "Home-office equipment is reimbursed up to 500 euros a year.",
    "The build script must run before every release.",
    "A release that fails its health checks is rolled back to the previous artifact, and the "
    "rollback is announced in the operations channel.",
    "The `retry` helper makes three attempts by default and doubles its delay after each "
    "failure.",
]
CITES = {
    "line": [marker("turn0file0", "L1-L2"), marker("turn0file0", "L4"),
             marker("turn0file1", "L5"), marker("turn0file1", "L10-L11"),
             marker("turn0file2", "L6-L14")],
    "block": [marker(f"turn0file{i}") for i in (0, 1, 2, 3, 6)],
    "context": [marker(f"block{i}") for i in (1, 2, 3, 4, 7)],
    "document": [marker(f"turn0file{i}") for i in (0, 0, 1, 1, 2)],
}


def answer_for(unit: str) -> str:
    c = [claim + cite for claim, cite in zip(CLAIMS, CITES[unit], strict=True)]
    return f"{c[0]} {c[1]}\n\n{c[2]} {c[3]}\n\n{c[4]}\n"


@pytest.mark.parametrize("unit", ["line", "block", "context", "document"])
def test_acceptance_prepared_documents_cited_by_an_answer_lint_clean(unit, tmp_path, capsys):
    material = prepare_bytes([PROSE, GUIDE, CODE, "--unit", unit], tmp_path).decode("utf-8")
    case = {"id": f"prepared-{unit}", "answer": answer_for(unit)}
    if unit == "context":
        case["context"] = material
    else:
        case["tool_outputs"] = [material]
    path = tmp_path / "case.json"
    path.write_text(json.dumps(case, ensure_ascii=False), encoding="utf-8")
    policy = ["--require-locators"] if unit == "line" else []
    for style in ("per-marker", None):
        extra = ["--multi-source", style] if style else []
        code, out, err = run(["lint", "--no-config", "--fail-on", "info", *policy, *extra,
                              str(path)], capsys)
        assert (code, err) == (0, ""), out
        assert re.search(r"CV\d{3}", out) is None  # no finding of any rule
    # And the same answer with one citation broken is caught.
    broken = dict(case, answer=case["answer"].replace(CITES[unit][2], "【turn0file1】"))
    path.write_text(json.dumps(broken, ensure_ascii=False), encoding="utf-8")
    code, out, _err = run(["lint", "--no-config", str(path)], capsys)
    assert "CV108" in out


def test_a_citation_of_a_blank_line_number_is_in_range(tmp_path, capsys):
    """The labels are the file's own line numbers: L2 of a file whose line 2 is blank exists
    (it was unlabelled, so lint said line-out-of-range)."""
    doc = tmp_path / "notes.txt"
    doc.write_text("Remote work is capped at three days.\n\nExtra days need approval.\n",
                   encoding="utf-8")
    material = prepare_bytes([str(doc), "--unit", "line"], tmp_path).decode("utf-8")
    assert "\n[L2]\n[L3] Extra days" in material
    answer = (f"Remote work is capped.{marker('turn0file0', 'L1-L2')} "
              f"Extra days need approval.{marker('turn0file0', 'L2-L3')}\n")
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"id": "c", "answer": answer, "tool_outputs": [material]},
                               ensure_ascii=False), encoding="utf-8")
    code, out, err = run(["lint", "--no-config", "--fail-on", "info", str(path)], capsys)
    assert (code, err) == (0, ""), out

"""An output never replaces an input (issue 31, item 1): any ``-o``/``--out`` naming an input of
the same command (also through a symbolic or a hard link), an input session's ``-wal``, or, for
a command that does not make sessions, any session, is refused in one line with exit 2 and
nothing in the folder changes. The check is the CLI's, for every subcommand."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from citeview.cli import COMMANDS, build_parser, main
from citeview.commands.outputs import OUTPUT_DESTS
from citeview.core.cases import Case
from citeview.session.store import Session

SAMPLE = Path(__file__).parents[1] / "data" / "samples" / "handbook-line-level.case.json"

# name -> argv given an input path ``i`` (the one the output may collide with), another input
# ``j`` and the output ``o``. Every subcommand with an output option must be here.
ARGV: dict[str, list[Callable[[str, str, str], list[str]]]] = {
    "agree": [lambda i, j, o: ["agree", i, j, "-o", o],
              lambda i, j, o: ["agree", j, i, "-o", o]],
    "convert": [lambda i, j, o: ["convert", i, "--to", "markers", "-o", o]],
    "export": [lambda i, j, o: ["export", i, "-o", o],
               lambda i, j, o: ["export", j, "--config", i, "-o", o]],
    "import": [lambda i, j, o: ["import", i, "-o", o]],
    "merge": [lambda i, j, o: ["merge", i, j, "-o", o],
              lambda i, j, o: ["merge", j, i, "--force", "-o", o]],
    "page": [lambda i, j, o: ["page", i, "-o", o],
             lambda i, j, o: ["page", "--answer", j, "--material", i, "-o", o],
             lambda i, j, o: ["page", "--answer", j, "--document", f"d={i}", "-o", o]],
    "prepare": [lambda i, j, o: ["prepare", j, i, "-o", o]],
    "report": [lambda i, j, o: ["report", i, "-o", o],
               lambda i, j, o: ["report", "--format", "html", j, "--config", i, "-o", o]],
    "screenshot": [lambda i, j, o: ["screenshot", i, "--out", o]],
}
MAKES_SESSIONS = {"import", "merge"}
CASES = [(name, k) for name, builders in ARGV.items() for k in range(len(builders))]


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())
            if p.is_file() and not p.is_symlink()}


def refused(argv: list[str], folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    before = snapshot(folder)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("citeview: error: "), err
    assert "Traceback" not in err
    assert snapshot(folder) == before  # nothing written, replaced or left behind
    return err


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    """A session and another input: any command reads them only after the output check."""
    session = tmp_path / "s.citeview"
    Session.create(str(session), [Case.from_dict(__import__("json").loads(
        SAMPLE.read_text(encoding="utf-8")))]).close()
    other = tmp_path / "other.json"
    other.write_bytes(SAMPLE.read_bytes())
    return str(session), str(other)


def test_every_subcommand_with_an_output_option_is_checked() -> None:
    """A new command with ``-o`` cannot be forgotten: its output option is one the check reads,
    and it is in this test's table."""
    with_output = set()
    for name in COMMANDS:
        parser = build_parser(name)
        sub = parser._subparsers._group_actions[0].choices[name]  # type: ignore[union-attr]
        for action in sub._actions:
            if {"-o", "--output", "--out"} & set(action.option_strings):
                assert action.dest in OUTPUT_DESTS, (name, action.dest)
                with_output.add(name)
    assert with_output == set(ARGV)


@pytest.mark.parametrize(("name", "k"), CASES)
def test_an_output_naming_an_input_is_refused(name: str, k: int, tmp_path: Path,
                                              files: tuple[str, str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    session, other = files
    plain = tmp_path / "input.json"
    plain.write_bytes(SAMPLE.read_bytes())
    for target in (session, str(plain)):
        err = refused(ARGV[name][k](target, other, target), tmp_path, capsys)
        assert "input" in err or "session" in err


@pytest.mark.parametrize(("name", "k"), CASES)
@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_an_output_linked_to_an_input_is_refused(name: str, k: int, link: str, tmp_path: Path,
                                                 files: tuple[str, str],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _, other = files
    plain = tmp_path / "input.md"
    plain.write_bytes(SAMPLE.read_bytes())
    alias = tmp_path / "alias.html"
    (os.symlink if link == "symlink" else os.link)(plain, alias)
    err = refused(ARGV[name][k](str(plain), other, str(alias)), tmp_path, capsys)
    assert "is an input of this command" in err


@pytest.mark.parametrize("name", sorted(set(ARGV) - MAKES_SESSIONS))
@pytest.mark.parametrize("form", ["existing", "renamed", "new"])
def test_no_command_but_import_and_merge_writes_a_session(
        name: str, form: str, tmp_path: Path, files: tuple[str, str],
        capsys: pytest.CaptureFixture[str]) -> None:
    """Not an input, but a session: by its ``.citeview`` name, or by its content under any
    name (a session renamed ``x.json``), or a new ``.citeview`` name."""
    session, other = files
    victim = tmp_path / {"existing": "victim.citeview", "renamed": "victim.json",
                         "new": "new.citeview"}[form]
    if form != "new":
        victim.write_bytes(Path(session).read_bytes())
    err = refused(ARGV[name][0](session if name in ("agree", "export", "report") else other,
                                session, str(victim)), tmp_path, capsys)
    assert "is a citeview session" in err
    assert form != "new" or not victim.exists()


@pytest.mark.parametrize("name", ["export", "report", "merge"])
def test_an_output_over_an_input_sessions_log_is_refused(
        name: str, tmp_path: Path, files: tuple[str, str],
        capsys: pytest.CaptureFixture[str]) -> None:
    session, other = files
    wal = Path(session + "-wal")
    wal.write_bytes(b"")
    refused(ARGV[name][0](session, session, str(wal)), tmp_path, capsys)


def test_import_and_merge_still_make_new_sessions(tmp_path: Path, files: tuple[str, str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    session, _ = files
    exported = tmp_path / "e.json"
    assert main(["export", session, "-o", str(exported)]) == 0
    assert main(["import", str(exported), "-o", str(tmp_path / "i.citeview")]) == 0
    assert main(["merge", session, str(tmp_path / "i.citeview"), "-o",
                 str(tmp_path / "m.citeview")]) == 0
    assert (tmp_path / "m.citeview").is_file()

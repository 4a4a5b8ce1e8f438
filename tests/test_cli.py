"""``citeview FILE`` and ``citeview open FILE``: which door a file takes into the window (issue
26). A big JSONL file opens as File > Open opens it (its first case at once, its session made
or reopened in the background); reading a million cases whole first kept the window away for
seconds and then copied them into the session on the window's own worker thread. Anything
else, and a big file with ``--case``, is read and checked first, so a bad file is one line
before any window."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from citeview import cli
from citeview.commands import open as open_cmd
from citeview.core import datasets
from citeview.gui import launch


@pytest.fixture
def doors(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[object]]:
    """Where ``citeview FILE`` went: ``window`` (File > Open's path, the file not read whole)
    or ``read first`` (the dataset read and checked, then handed to the window)."""
    went: dict[str, list[object]] = {"window": [], "read first": []}

    def window(args: argparse.Namespace) -> int:
        went["window"].append(args.file)
        return 0

    def read_first(dataset: object, case_id: object, advance: bool = True) -> int:
        went["read first"].append(dataset)
        return 0

    monkeypatch.setattr(launch, "run_gui", window)
    monkeypatch.setattr(open_cmd, "launch", read_first)
    monkeypatch.setattr(datasets, "FIRST_RECORD_BYTES", 1)  # every JSONL file counts as big
    return went


def write_cases(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps({"id": f"c{i}", "answer": f"a {i}"}) + "\n"
                            for i in range(n)), encoding="utf-8")
    return path


def test_a_big_jsonl_file_opens_in_the_window_without_being_read_first(
        tmp_path: Path, doors: dict[str, list[object]], monkeypatch: pytest.MonkeyPatch) -> None:
    data = write_cases(tmp_path / "big.jsonl", 50)

    def read_whole(*args: object, **kwargs: object) -> object:
        raise AssertionError("the whole file was read before the window")

    monkeypatch.setattr(datasets.JsonlDataset, "_indexed", read_whole)
    assert cli.main([str(data)]) == 0
    assert cli.main(["open", str(data)]) == 0  # the command says the same
    assert doors == {"window": [str(data), str(data)], "read first": []}


def test_a_big_file_with_case_and_other_files_are_read_and_checked_first(
        tmp_path: Path, doors: dict[str, list[object]], capsys: pytest.CaptureFixture[str]
) -> None:
    data = write_cases(tmp_path / "big.jsonl", 50)
    assert cli.main([str(data), "--case", "c7"]) == 0  # the id is checked in the index
    assert cli.main(["open", str(data), "--case", "c7"]) == 0
    assert cli.main([str(data), "--case", "nope"]) == 2
    assert "nope" in capsys.readouterr().err
    case = tmp_path / "one.json"
    case.write_text(json.dumps({"id": "x", "answer": "y"}), encoding="utf-8")
    assert cli.main([str(case)]) == 0
    assert doors["window"] == [] and len(doors["read first"]) == 3


@pytest.mark.parametrize(("name", "content", "said"), [
    ("missing.jsonl", None, "no such file"),
    ("binary.jsonl", b"\x00\x01\x02" * 100, ""),
    ("text.jsonl", b"not json at all\n" * 10, ""),
])
def test_a_file_the_window_cannot_start_from_is_one_line_before_any_window(
        tmp_path: Path, doors: dict[str, list[object]], capsys: pytest.CaptureFixture[str],
        name: str, content: bytes | None, said: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    assert cli.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("citeview: error: ") and err.count("\n") == 1 and said in err
    assert doors == {"window": [], "read first": []}

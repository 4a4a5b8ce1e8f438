"""``citeview lint`` on a folder of mixed inputs gives the findings recorded before the input
readers were given one owner (issue 23): a case JSON, a JSONL dataset (with a broken line), a
chat transcript, a Responses output, a provider response, a plain answer and a review session.

The expected outputs in ``tests/data/lint-folder-expected/`` were written by the code of the
time (``python -m tests.commands.test_lint_folder`` writes them again, for a deliberate change).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from citeview.cli import main

DATA = Path(__file__).parent.parent / "data"
FOLDER = "lint-folder"
EXPECTED = DATA / "lint-folder-expected"
# The session holds these cases (made at test time: a session file is not committed text).
SESSION_CASES = ("handbook-rule-breaking", "contract-block-level")
RUNS = {
    "text": ("--format", "text"),
    "jsonl": ("--format", "jsonl"),
    "text-jobs2": ("--format", "text", "--jobs", "2"),
}


def make_session(path: Path) -> None:
    from citeview.core.inputs import load_input
    from citeview.session.store import Session

    cases = [load_input(str(DATA / "samples" / f"{n}.case.json")).get(0) for n in SESSION_CASES]
    Session.create(str(path), cases).close()


def lint_output(capsys: pytest.CaptureFixture[str], tmp: Path, *options: str) -> tuple[int, str]:
    """Lint the folder, a plain answer in it and a session (cwd: tests/data; the session's
    folder is written ``<tmp>``)."""
    session = tmp / "review.citeview"
    if not session.exists():
        make_session(session)
    code = main(["lint", "--no-config", *options, FOLDER,
                 f"{FOLDER}/handbook-rule-breaking.answer.txt", str(session)])
    out, err = capsys.readouterr()
    assert err == ""
    return code, out.replace(str(tmp), "<tmp>")


@pytest.mark.parametrize("run", sorted(RUNS))
def test_a_folder_of_mixed_inputs_lints_as_recorded(
        run: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(DATA)
    code, out = lint_output(capsys, tmp_path, *RUNS[run])
    assert code == 1
    expected = (EXPECTED / f"{run.removesuffix('-jobs2')}.out").read_text(encoding="utf-8")
    assert out == expected


def _record() -> None:  # pragma: no cover - run by hand
    import os
    import tempfile

    class Capture:
        def readouterr(self) -> tuple[str, str]:
            out, err = buf.getvalue(), ""
            buf.seek(0)
            buf.truncate()
            return out, err

    import io
    buf = io.StringIO()
    os.chdir(DATA)
    with tempfile.TemporaryDirectory() as tmp:
        for run in ("text", "jsonl"):
            real = sys.stdout
            sys.stdout = buf
            try:
                _, out = lint_output(Capture(), Path(tmp), *RUNS[run])  # type: ignore[arg-type]
            finally:
                sys.stdout = real
            (EXPECTED / f"{run}.out").write_text(out, encoding="utf-8")


if __name__ == "__main__":
    _record()


def test_a_session_lints_the_same_in_a_fresh_process(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Whether a .citeview file loads does not depend on what was imported before: a fresh
    ``citeview lint`` reads it as this process (which imported everything) does."""
    import subprocess

    session = tmp_path / "review.citeview"
    make_session(session)
    code = main(["lint", "--no-config", "--format", "jsonl", str(session)])
    here = capsys.readouterr().out
    fresh = subprocess.run([sys.executable, "-m", "citeview", "lint", "--no-config", "--format",
                            "jsonl", str(session)], capture_output=True, text=True,
                           cwd=tmp_path, check=False, timeout=120)
    assert (fresh.returncode, fresh.stderr, fresh.stdout) == (code, "", here)
    assert here.count('"path"') > 5  # the session's cases were linted, not refused

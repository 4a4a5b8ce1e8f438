"""Output files are written all or nothing: a full disk leaves no partial file (and an existing
file as it was), with a one-line message and exit status 2."""

from __future__ import annotations

import errno
import multiprocessing.connection  # noqa: F401  (see full_disk)
import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeview.cli import main
from citeview.commands._atomic import write_atomically, write_text_atomically
from citeview.core.errors import InputError

DATA = Path(__file__).parent.parent / "data"
PROSE = str(DATA / "prepare" / "prose.txt")
TRANSIT = str(DATA / "samples" / "transit-multi-turn.case.json")
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every os.write to a file other than stdin/stdout/stderr writes a few bytes, then fails
    with ENOSPC, as on a full disk. (multiprocessing.connection is imported above: a module
    first imported while the fake is in place keeps it as a default argument, and a later
    ``--jobs`` run in the same test process failed on a full disk that was never there.)"""
    real = os.write

    def write(fd: int, data: bytes) -> int:
        if fd <= 2:
            return real(fd, data)
        real(fd, bytes(data[:7]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("citeview: error: ")
    return err


def test_prepare_on_a_full_disk_leaves_no_file(tmp_path: Path, full_disk: None,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "material.txt"
    assert main(["prepare", PROSE, "-o", str(out)]) == 2
    assert "No space left on device" in one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []  # neither the file nor a temporary one


def test_prepare_on_a_full_disk_keeps_the_old_file(tmp_path: Path, full_disk: None,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "material.txt"
    out.write_bytes(b"the previous material\n")
    assert main(["prepare", PROSE, "-o", str(out)]) == 2
    one_line_error(capsys)
    assert out.read_bytes() == b"the previous material\n"
    assert [p.name for p in tmp_path.iterdir()] == ["material.txt"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE and SIGXFSZ")
def test_prepare_that_really_fails_to_write_leaves_no_file(tmp_path: Path) -> None:
    """No mock: the process may not write files past 1,000 bytes (EFBIG, like a quota)."""
    code = ("import resource, signal, sys\n"
            "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))\n"
            "from citeview.cli import main\n"
            "sys.exit(main(sys.argv[1:]))\n")
    big = tmp_path / "big.txt"
    big.write_text("A line of text to cite.\n" * 500, encoding="utf-8")
    out = tmp_path / "out" / "material.txt"
    out.parent.mkdir()
    proc = subprocess.run([sys.executable, "-c", code, "prepare", str(big), "--unit", "line",
                           "-o", str(out)], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"citeview: error: {out}: cannot write (")
    assert proc.stderr.count("\n") == 1
    assert list(out.parent.iterdir()) == []


def test_prepare_output_keeps_the_permissions_of_the_file_it_replaces(tmp_path: Path) -> None:
    out = tmp_path / "material.txt"
    out.write_bytes(b"old")
    out.chmod(0o600)
    assert main(["prepare", PROSE, "-o", str(out)]) == 0
    assert out.stat().st_mode & 0o777 == 0o600 and out.read_bytes().startswith(b"Citation")


def test_text_output_on_a_full_disk_leaves_no_file(tmp_path: Path) -> None:
    out = tmp_path / "rows.csv"

    def write(stream) -> None:  # type: ignore[no-untyped-def]
        stream.write("a,b\r\n" * 10)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(InputError, match="No space left on device"):
        write_text_atomically(str(out), write)
    assert list(tmp_path.iterdir()) == []


def test_a_bug_while_writing_propagates_and_leaves_no_file(tmp_path: Path) -> None:
    def write(stream) -> None:  # type: ignore[no-untyped-def]
        stream.write("partial")
        raise KeyError("a bug, not a message")

    with pytest.raises(KeyError):
        write_text_atomically(str(tmp_path / "x.txt"), write)
    assert list(tmp_path.iterdir()) == []


def test_writing_through_a_symlink_replaces_the_file_it_names(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_bytes(b"old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomically(str(link), b"new")
    assert link.is_symlink() and real.read_bytes() == b"new"
    with pytest.raises(InputError, match="is a directory"):
        write_atomically(str(tmp_path), b"x")


# ----------------------------------------------------------------------------- screenshot

qt_quiet = pytest.mark.qt_log_ignore(r"This plugin does not support propagateSizeHints")


@qt_quiet
def test_screenshot_on_a_full_disk_leaves_no_file(qapp, tmp_path: Path, full_disk: None,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "shot.png"
    assert main(["screenshot", TRANSIT, "--out", str(out)]) == 2
    assert "No space left on device" in one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


@qt_quiet
@pytest.mark.parametrize(("suffix", "magic"), [
    (".png", b"\x89PNG\r\n\x1a\n"), (".jpg", b"\xff\xd8\xff"), (".JPEG", b"\xff\xd8\xff"),
    (".bmp", b"BM"),
])
def test_screenshot_writes_the_format_its_suffix_names(qapp, tmp_path: Path, suffix: str,
                                                       magic: bytes, capsys) -> None:
    out = tmp_path / f"shot{suffix}"
    assert main(["screenshot", TRANSIT, "--size", "400x300", "--out", str(out)]) == 0
    assert out.read_bytes().startswith(magic)  # was PNG data under every name


@qt_quiet
@pytest.mark.parametrize("name", ["shot.txt", "shot"])
def test_screenshot_with_an_unknown_suffix_is_a_one_line_error(qapp, tmp_path: Path, name: str,
                                                               capsys) -> None:
    assert main(["screenshot", TRANSIT, "--out", str(tmp_path / name)]) == 2
    assert ".png" in one_line_error(capsys)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize(("fmt", "unbuffered"), [("jsonl", "1"), ("jsonl", ""), ("csv", ""),
                                                  ("json", "")])
def test_export_to_a_full_stdout_is_a_one_line_error(tmp_path: Path, fmt: str,
                                                     unbuffered: str) -> None:
    """``citeview export S > file-on-a-full-disk``: one line and exit 2, not a traceback (the
    rows as bytes to stdout's buffer, or as text where stdout is unbuffered)."""
    session = tmp_path / "s.citeview"
    import json

    from citeview.core.cases import Case
    from citeview.session import Session

    with open(TRANSIT, encoding="utf-8") as f:
        Session.create(str(session), [Case.from_dict(json.load(f), "transit")]).close()
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered,
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                         if p)}
    with open("/dev/full", "wb") as full:
        done = subprocess.run([sys.executable, "-m", "citeview", "export", str(session),
                               "--format", fmt], stdout=full, stderr=subprocess.PIPE,
                              text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr == ("citeview: error: standard output: cannot write (No space left on "
                           "device)\n")


def test_bytes_output_on_a_full_disk_leaves_no_file(tmp_path: Path) -> None:
    from citeview.commands._atomic import write_bytes_atomically

    def write(stream) -> None:  # type: ignore[no-untyped-def]
        stream.write(b"a,b\r\n" * 10)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(InputError, match="No space left on device"):
        write_bytes_atomically(str(tmp_path / "rows.csv"), write)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("unbuffered", ["1", ""])
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_export_to_a_pipe_writes_the_bytes_it_writes_to_a_file(tmp_path: Path, fmt: str,
                                                               unbuffered: str) -> None:
    """A real pipe as standard output, buffered (the rows' bytes to its buffer) or not
    (``PYTHONUNBUFFERED``: handed the text): the bytes ``-o FILE`` gets, BOM and CRLF too."""
    import json

    from citeview.core.cases import Case
    from citeview.session import Session

    session = tmp_path / "s.citeview"
    with open(TRANSIT, encoding="utf-8") as f:
        Session.create(str(session), [Case.from_dict(json.load(f), "transit")]).close()
    out = tmp_path / f"rows.{fmt}"
    assert main(["export", str(session), "--format", fmt, "-o", str(out)]) == 0
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered,
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                         if p)}
    done = subprocess.run([sys.executable, "-m", "citeview", "export", str(session),
                           "--format", fmt], capture_output=True, env=env, timeout=120)
    assert done.returncode == 0 and done.stderr == b""
    assert done.stdout == out.read_bytes() and b"\n" in done.stdout

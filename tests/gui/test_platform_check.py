"""When Qt's platform cannot start (no display, a missing xcb library), citeview says what is
missing in one line and exits 2, never Qt's abort (exit 134)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from citeview.core.errors import InputError
from citeview.gui.platform_check import (
    XCB_LIBRARIES,
    SystemLibrary,
    check_platform,
    import_failure,
    missing_libraries,
    platform_plugin,
)

ROOT = Path(__file__).parents[2]
NOPE = SystemLibrary("libciteview-nope.so.9", "libciteview-nope9", "citeview-nope")
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 platform: Linux")


def citeview(env: dict[str, str], *args: str, code: str | None = None
             ) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    full = {**base, "PYTHONPATH": str(ROOT), "CITEVIEW_DATA_DIR": "/nonexistent", **env}
    argv = ["-c", code] if code is not None else ["-m", "citeview", *args]
    return subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=60,
                          env=full, check=False)


def one_line(proc: subprocess.CompletedProcess[str], message: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("citeview: error: ")
    assert message in proc.stderr and "Traceback" not in proc.stderr


@linux
@pytest.mark.parametrize("args", [["--demo"], [str(ROOT / "resources" / "demo" / "demo.jsonl")]])
def test_no_display_is_one_line_and_exit_2(args: list[str]) -> None:
    proc = citeview({"QT_QPA_PLATFORM": "xcb"}, *args)
    one_line(proc, "no display to show the window on: DISPLAY (X11) and WAYLAND_DISPLAY")


@linux
def test_a_display_that_does_not_answer_is_named() -> None:
    n = next(n for n in range(187, 400) if not os.path.exists(f"/tmp/.X11-unix/X{n}"))
    proc = citeview({"QT_QPA_PLATFORM": "xcb", "DISPLAY": f":{n}"}, "--demo")
    one_line(proc, f"the X display :{n} does not answer")


@linux
def test_a_missing_qt_library_is_named_with_its_packages() -> None:
    env = {"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}
    assert missing_libraries([NOPE]) == [NOPE]
    with pytest.raises(InputError) as err:
        check_platform(env, [*XCB_LIBRARIES[:3], NOPE])
    text = str(err.value)
    assert "\n" not in text
    assert "missing system library libciteview-nope.so.9;" in text  # only the missing one
    assert "apt install libciteview-nope9" in text and "dnf install citeview-nope" in text


@linux
def test_the_window_never_starts_without_a_library_the_check_names() -> None:
    """The whole path (``citeview --demo``) with the check's list pointed at a library that
    does not exist: the one line, before any QApplication (Qt would abort)."""
    code = ("import citeview.gui.platform_check as pc\n"
            f"pc.XCB_LIBRARIES = (*pc.XCB_LIBRARIES, pc.SystemLibrary({NOPE.soname!r}, "
            f"{NOPE.debian!r}, {NOPE.fedora!r}))\n"
            "check = pc.check_platform\n"
            "pc.check_platform = lambda env=None, libraries=None: check(env, pc.XCB_LIBRARIES)\n"
            "from citeview.cli import main\n"
            "raise SystemExit(main(['--demo']))\n")
    proc = citeview({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}, code=code)
    one_line(proc, "missing system library libciteview-nope.so.9; install (Debian/Ubuntu) "
                   "apt install libciteview-nope9, (Fedora) dnf install citeview-nope")


@linux
def test_the_platform_qt_would_start() -> None:
    assert platform_plugin({"QT_QPA_PLATFORM": "offscreen"}) == "offscreen"
    assert platform_plugin({"QT_QPA_PLATFORM": "xcb:dpi=96"}) == "xcb"
    assert platform_plugin({"DISPLAY": ":1"}) == "xcb"
    assert platform_plugin({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}) \
        == "wayland"
    assert platform_plugin({"QT_QPA_PLATFORM": "wayland;xcb", "DISPLAY": ":1"}) == "xcb"
    check_platform({"QT_QPA_PLATFORM": "offscreen"}, [NOPE])  # nothing to check offscreen
    with pytest.raises(InputError, match="no display"):
        check_platform({"QT_QPA_PLATFORM": "wayland"})


def test_a_qt_library_that_fails_to_load_is_named() -> None:
    err = import_failure(ImportError(
        "libEGL.so.1: cannot open shared object file: No such file or directory"))
    assert str(err).startswith("Qt cannot start: missing system library libEGL.so.1;")
    assert "apt install libegl1" in str(err) and "dnf install libglvnd-egl" in str(err)

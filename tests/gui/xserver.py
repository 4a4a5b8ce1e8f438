"""A real X server for tests: Xvfb on a free display, citeview started on it as a user would,
real key presses and clicks sent with xdotool, screenshots with ImageMagick's ``import``.

Skipped where Xvfb or xdotool is missing (``.ci/run`` installs both). pytest-qt's key clicks go
straight to a widget and skip X's focus routing; these go through the X server.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

NEEDED = ("Xvfb", "xdotool")


def skip_without_x() -> None:
    missing = [tool for tool in NEEDED if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (Debian: xvfb, xdotool)")


def _free_display() -> int:
    """A display number no X server holds (lock files), away from the usual :0 and :99."""
    import random

    for n in random.sample(range(200, 1000), 800):
        if not os.path.exists(f"/tmp/.X{n}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{n}"):
            return n
    pytest.skip("no free X display number")


@contextmanager
def xvfb(size: str = "1280x800") -> Iterator[str]:
    """A fresh Xvfb of our own; yields its DISPLAY (":N") once it answers. Another test run
    may pick the same free number at the same moment: a server that does not stay up (its
    display was taken) is given up for the next number."""
    skip_without_x()
    env = {k: v for k, v in os.environ.items() if k != "XAUTHORITY"}
    for _attempt in range(8):
        display = f":{_free_display()}"
        proc = subprocess.Popen(["Xvfb", display, "-screen", "0", f"{size}x24", "-nolisten",
                                 "tcp", "-ac"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while (proc.poll() is None and time.monotonic() < deadline
               and subprocess.run(["xdotool", "getmouselocation"],
                                  env={**env, "DISPLAY": display},
                                  capture_output=True).returncode != 0):
            time.sleep(0.05)
        time.sleep(0.3)
        if proc.poll() is None:  # ours, and still up
            break
        proc.wait()
    else:
        pytest.fail("no Xvfb of our own could start")
    try:
        yield display
    finally:
        proc.terminate()
        proc.wait(10)


class App:
    """citeview running on ``display`` with a fresh home (settings, data folder)."""

    def __init__(self, display: str, home: Path, *args: str) -> None:
        self.display = display
        # This server takes any client (-ac): an XAUTHORITY of another server is not asked for.
        base = {k: v for k, v in os.environ.items() if k != "XAUTHORITY"}
        self.env = {**base, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb",
                    "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                    "XDG_DATA_HOME": str(home / ".local" / "share"),
                    "CITEVIEW_DATA_DIR": str(home / "data"),
                    "PYTHONPATH": os.pathsep.join(sys.path)}
        self.proc = subprocess.Popen([sys.executable, "-m", "citeview", *args], env=self.env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.keys = 0  # key presses sent, as a reviewer would count them

    def xdotool(self, *args: str) -> str:
        out = subprocess.run(["xdotool", *args], env=self.env, capture_output=True, text=True,
                             timeout=20)
        return out.stdout.strip()

    def windows(self, name: str = "citeview") -> list[str]:
        return [w for w in self.xdotool("search", "--onlyvisible", "--name", name).split() if w]

    def title(self) -> str:
        wins = self.windows()
        return self.xdotool("getwindowname", wins[-1]) if wins else ""

    def wait(self, predicate, timeout: float = 20.0, what: str = "") -> None:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return
            if self.proc.poll() is not None:
                raise AssertionError(f"citeview exited: {self.proc.stdout.read()}")  # type: ignore[union-attr]
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; title {self.title()!r}")

    def key(self, *keys: str, count: bool = True) -> None:
        """Press keys (xdotool names, e.g. ``1``, ``ctrl+Return``), one press each."""
        self.xdotool("key", "--delay", "30", *keys)
        if count:
            self.keys += len(keys)

    def type(self, text: str) -> None:
        self.xdotool("type", "--delay", "30", text)
        self.keys += len(text)

    def click(self, x: int, y: int) -> None:
        self.xdotool("mousemove", str(x), str(y), "click", "1")

    def screenshot(self, path: Path) -> None:
        subprocess.run(["import", "-window", "root", str(path)], env=self.env, check=True,
                       timeout=30)

    def quit(self) -> str:
        """Quit with Ctrl+Q (killed if it hangs); what it printed."""
        if self.proc.poll() is None:
            self.key("ctrl+q", count=False)
        try:
            out, _ = self.proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, _ = self.proc.communicate(timeout=5)
        return out or ""

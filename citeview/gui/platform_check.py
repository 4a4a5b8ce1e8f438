"""Before Qt starts a window: is there a display, and are the system libraries of Qt's X11
platform (xcb) installed? Qt itself aborts the process (exit 134, a core dump) when its platform
plugin cannot start, and its message names one library of several; this check names what is
missing in one line (an :class:`InputError`: exit 2) before the QApplication is made.

Qt-free (ctypes only): it runs before Qt loads anything.
"""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from citeview.core.errors import InputError


@dataclass(slots=True, frozen=True)
class SystemLibrary:
    """A shared library Qt's xcb platform loads, and the packages that install it."""

    soname: str
    debian: str  # Debian / Ubuntu package
    fedora: str  # Fedora / RHEL package


# What libqxcb.so and libQt6XcbQpa.so.6 of PySide6 6.11 need (readelf -d ... | grep NEEDED),
# beside what Qt's own libraries need (those fail the import: see :func:`import_failure`).
XCB_LIBRARIES: tuple[SystemLibrary, ...] = (
    SystemLibrary("libxcb.so.1", "libxcb1", "libxcb"),
    SystemLibrary("libX11.so.6", "libx11-6", "libX11"),
    SystemLibrary("libX11-xcb.so.1", "libx11-xcb1", "libX11-xcb"),
    SystemLibrary("libxkbcommon.so.0", "libxkbcommon0", "libxkbcommon"),
    SystemLibrary("libxkbcommon-x11.so.0", "libxkbcommon-x11-0", "libxkbcommon-x11"),
    SystemLibrary("libxcb-cursor.so.0", "libxcb-cursor0", "xcb-util-cursor"),
    SystemLibrary("libxcb-icccm.so.4", "libxcb-icccm4", "xcb-util-wm"),
    SystemLibrary("libxcb-image.so.0", "libxcb-image0", "xcb-util-image"),
    SystemLibrary("libxcb-keysyms.so.1", "libxcb-keysyms1", "xcb-util-keysyms"),
    SystemLibrary("libxcb-render-util.so.0", "libxcb-render-util0", "xcb-util-renderutil"),
    SystemLibrary("libxcb-util.so.1", "libxcb-util1", "xcb-util"),
    SystemLibrary("libxcb-randr.so.0", "libxcb-randr0", "libxcb"),
    SystemLibrary("libxcb-render.so.0", "libxcb-render0", "libxcb"),
    SystemLibrary("libxcb-shape.so.0", "libxcb-shape0", "libxcb"),
    SystemLibrary("libxcb-shm.so.0", "libxcb-shm0", "libxcb"),
    SystemLibrary("libxcb-sync.so.1", "libxcb-sync1", "libxcb"),
    SystemLibrary("libxcb-xfixes.so.0", "libxcb-xfixes0", "libxcb"),
    SystemLibrary("libxcb-xkb.so.1", "libxcb-xkb1", "libxcb"),
    SystemLibrary("libGL.so.1", "libgl1", "libglvnd-glx"),
    SystemLibrary("libEGL.so.1", "libegl1", "libglvnd-egl"),
    SystemLibrary("libfontconfig.so.1", "libfontconfig1", "fontconfig"),
    SystemLibrary("libglib-2.0.so.0", "libglib2.0-0", "glib2"),
)

# Platforms that need no display server (or that this check knows nothing about).
_NO_CHECK = frozenset({"offscreen", "minimal", "minimalegl", "vnc", "eglfs", "linuxfb",
                       "vkkhrdisplay", "cocoa", "windows", "direct2d", "ios", "android"})


def platform_plugin(env: Mapping[str, str] | None = None) -> str | None:
    """The platform Qt will start on Linux and the BSDs (``xcb``, ``wayland``, ``offscreen``
    ...), None when there is nothing to check (another OS, or a platform Qt picks among several
    that this check does not know)."""
    env = os.environ if env is None else env
    if not sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        return None
    asked = [p.split(":", 1)[0].strip() for p in env.get("QT_QPA_PLATFORM", "").split(";")]
    asked = [p for p in asked if p]
    wayland = bool(env.get("WAYLAND_DISPLAY"))
    if not asked:  # Qt's own choice: Wayland in a Wayland session, else X11
        return "wayland" if wayland and env.get("XDG_SESSION_TYPE") == "wayland" else "xcb"
    if asked[0] == "wayland" and (wayland or "xcb" not in asked):
        return "wayland"
    if asked[0] == "wayland":
        return "xcb"  # no Wayland display: Qt falls back to the next one asked for
    return asked[0]


def missing_libraries(libraries: Sequence[SystemLibrary] = XCB_LIBRARIES
                      ) -> list[SystemLibrary]:
    """The ``libraries`` the dynamic loader cannot load, in order."""
    missing = []
    for lib in libraries:
        try:
            ctypes.CDLL(lib.soname)
        except OSError:
            missing.append(lib)
    return missing


def missing_message(missing: Sequence[SystemLibrary],
                    what: str = "Qt cannot start its X11 (xcb) platform") -> str:
    """One line: the missing libraries and the packages to install (Debian/Ubuntu, Fedora)."""
    names = ", ".join(lib.soname for lib in missing)
    debian = " ".join(dict.fromkeys(lib.debian for lib in missing))
    fedora = " ".join(dict.fromkeys(lib.fedora for lib in missing))
    return (f"{what}: missing system {'library' if len(missing) == 1 else 'libraries'} "
            f"{names}; install (Debian/Ubuntu) apt install {debian}, (Fedora) dnf install "
            f"{fedora}")


class DisplayConnection:
    """A connection to the X display, held until Qt has made its own: when the only client of
    a bare X server (Xvfb) goes, the server resets, and a client connecting during the reset
    (Qt, a moment later) is refused ("could not connect to display")."""

    def __init__(self, display: str) -> None:
        xcb = ctypes.CDLL("libxcb.so.1")  # the xcb platform loads it anyway
        xcb.xcb_connect.restype = ctypes.c_void_p
        xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
        xcb.xcb_connection_has_error.restype = ctypes.c_int
        xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
        self._xcb = xcb
        self._conn: int | None = xcb.xcb_connect(display.encode("utf-8", "surrogateescape"),
                                                 None)

    @property
    def answered(self) -> bool:
        return self._conn is not None and self._xcb.xcb_connection_has_error(self._conn) == 0

    def close(self) -> None:
        if self._conn is not None:
            self._xcb.xcb_disconnect(self._conn)
            self._conn = None


NO_DISPLAY = ("no display to show the window on: DISPLAY (X11) and WAYLAND_DISPLAY are not set "
              "(on a server, run it under Xvfb: xvfb-run citeview ...; citeview screenshot "
              "needs no display)")


def check_platform(env: Mapping[str, str] | None = None,
                   libraries: Sequence[SystemLibrary] = XCB_LIBRARIES
                   ) -> DisplayConnection | None:
    """:class:`InputError` naming what is missing (the display, or system libraries) when
    Qt's platform could not start. When it can: the X display's connection, for the caller to
    close once the QApplication is made (see :class:`DisplayConnection`), or None."""
    env = os.environ if env is None else env
    platform = platform_plugin(env)
    if platform is None or platform in _NO_CHECK:
        return None
    if platform == "wayland":
        if not env.get("WAYLAND_DISPLAY"):
            raise InputError(NO_DISPLAY)
        return None
    if platform != "xcb":
        return None  # a platform plugin this check does not know: Qt says what it needs
    display = env.get("DISPLAY", "")
    if not display:
        raise InputError(NO_DISPLAY)
    missing = missing_libraries(libraries)
    if missing:
        raise InputError(missing_message(missing))
    conn = DisplayConnection(display)
    if conn.answered:
        return conn
    conn.close()
    raise InputError(f"the X display {display} does not answer (DISPLAY={display}): is "
                         "the X server running, and may this user connect to it?")


def import_failure(err: ImportError) -> InputError:
    """A Qt library that failed to load (``libEGL.so.1: cannot open shared object file``) as
    one line naming it."""
    text = " ".join(str(err).split())
    soname = text.split(":", 1)[0]
    known = [lib for lib in XCB_LIBRARIES if lib.soname == soname]
    if known:
        return InputError(missing_message(known, "Qt cannot start"))
    return InputError(f"Qt cannot start: {text[:300]}")

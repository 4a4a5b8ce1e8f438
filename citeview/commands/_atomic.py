"""Writing output files all or nothing: a failed write (a full disk, a quota, a vanished
folder) leaves no partial file and an existing file untouched.

The data go to a new temporary file in the target's folder, are flushed to the disk, and the
temporary file is renamed over the target (``os.replace``, atomic on POSIX and Windows). On any
failure the temporary file is removed; an :class:`OSError` becomes a one-line
:class:`InputError` (exit status 2).
"""

from __future__ import annotations

import codecs
import contextlib
import io
import os
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import IO

from citeview.core.errors import InputError

_CHUNK = 1 << 20


def _target(path: str) -> str:
    """Where the data go: through a symbolic link to the file it names."""
    if os.path.isdir(path):
        raise InputError(f"{path}: is a directory")
    return os.path.realpath(path) if os.path.islink(path) else path


def _create_temp(target: str) -> tuple[str, int]:
    """A new file beside ``target`` and its fd, with the mode the target will have from the
    start: the replaced file's, or 0666 less the umask (like ``open``) for a new one. Never
    more open first: a 0600 file's new content is never readable by others, even a moment."""
    folder, name = os.path.split(os.path.abspath(target))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    while True:
        tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
        try:
            # Created with at most the final mode (the umask can only take bits away) ...
            fd = os.open(tmp, flags, 0o666 if mode is None else mode)
        except FileExistsError:
            continue
        if mode is not None and hasattr(os, "fchmod"):
            try:  # ... then exactly it (bits the umask took), still before any data
                os.fchmod(fd, mode)
            except BaseException:
                os.close(fd)
                _discard(tmp)
                raise
        return tmp, fd


def _write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view[:_CHUNK])
        view = view[n:]


def write_atomically(path: str, data: bytes) -> None:
    """Replace (or create) ``path`` with ``data``, all or nothing."""
    write_stream_atomically(path, lambda fd: _write_all(fd, data))


def write_stream_atomically(path: str, fill: Callable[[int], None]) -> None:
    """Replace (or create) ``path`` with what ``fill(fd)`` writes to the file descriptor
    ``fd``, all or nothing. Exceptions of ``fill`` other than :class:`OSError` propagate
    unchanged (after the temporary file is removed)."""
    target = _target(path)
    try:
        tmp, fd = _create_temp(target)
    except OSError as err:
        raise InputError(f"{path}: cannot write ({err.strerror or err})") from None
    try:
        try:
            fill(fd)
            os.fsync(fd)  # a full disk can first show here, on delayed allocation
        finally:
            os.close(fd)
        os.replace(tmp, target)
    except OSError as err:
        _discard(tmp)
        raise InputError(f"{path}: cannot write ({err.strerror or err})") from None
    except BaseException:  # a bug in fill, ^C: no partial file either, and it goes on
        _discard(tmp)
        raise


def _discard(tmp: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.remove(tmp)


def write_text_atomically(path: str, write: Callable[[IO[str]], None]) -> None:
    """Replace (or create) ``path`` with the UTF-8 text ``write(stream)`` writes (``\\n`` line
    ends), all or nothing."""
    def fill(fd: int) -> None:
        # The descriptor stays ours (closefd=False): fsync and close are done above.
        with open(fd, "w", encoding="utf-8", newline="\n", closefd=False,
                  buffering=_CHUNK) as out:
            write(out)
            out.flush()

    write_stream_atomically(path, fill)


def write_bytes_atomically(path: str, write: Callable[[IO[bytes]], None]) -> None:
    """Replace (or create) ``path`` with the bytes ``write(stream)`` writes, all or nothing."""
    def fill(fd: int) -> None:
        with open(fd, "wb", closefd=False, buffering=_CHUNK) as out:
            write(out)
            out.flush()

    write_stream_atomically(path, fill)


def write_output(path: str, write: Callable[[IO[str]], None]) -> None:
    """Write to stdout (``-``) or to ``path`` atomically (a temp file renamed into place)."""
    if path == "-":
        # Whole or nothing on stdout too: a damaged row found half-way must not leave half a
        # document in a pipe. Kept in memory up to 8 MiB, beyond that in a temporary file.
        with tempfile.SpooledTemporaryFile(8 << 20, mode="w+", encoding="utf-8",
                                           newline="") as held:
            write(held)
            held.seek(0)
            with _stdout_errors():
                shutil.copyfileobj(held, sys.stdout)
                sys.stdout.flush()
        return
    write_text_atomically(path, write)


def write_output_bytes(path: str, write: Callable[[IO[bytes]], None]) -> None:
    """:func:`write_output` of UTF-8 text ``write`` writes already encoded: a file gets the
    bytes as they are; standard output too where it is UTF-8 and writes line ends as they
    come, else it is handed the text (its encoding and line ends apply, as for
    :func:`write_output`)."""
    if path != "-":
        write_bytes_atomically(path, write)
        return
    with tempfile.SpooledTemporaryFile(8 << 20, mode="w+b") as held:
        write(held)
        held.seek(0)
        raw = _utf8_stdout()
        with _stdout_errors():
            if raw is not None:
                sys.stdout.flush()
                if isinstance(raw, io.RawIOBase):  # unbuffered (python -u): a write may
                    fd = raw.fileno()  # write part of it, so each piece is written whole
                    while piece := held.read(_CHUNK):
                        _write_all(fd, piece)
                    return
                shutil.copyfileobj(held, raw)
                raw.flush()
                return
            decoder = codecs.getincrementaldecoder("utf-8")()
            while chunk := held.read(_CHUNK):
                sys.stdout.write(decoder.decode(chunk))
            sys.stdout.write(decoder.decode(b"", final=True))
            sys.stdout.flush()


@contextlib.contextmanager
def _stdout_errors() -> Iterator[None]:
    """A failed write to standard output (a full disk it is redirected to, a quota) as a
    one-line :class:`InputError` (exit status 2), not a traceback. A reader gone away
    (:class:`BrokenPipeError`) stays as it is: the CLI ends quietly then."""
    try:
        yield
    except BrokenPipeError:
        raise
    except OSError as err:
        # What stdout still holds cannot go out either: the interpreter's last flush must not
        # fail again (exit status 120 and a second message), so it goes to the null device.
        with contextlib.suppress(OSError, ValueError, AttributeError):
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, sys.stdout.fileno())
            finally:
                os.close(null)
        raise InputError(f"standard output: cannot write ({err.strerror or err})") from None


def _utf8_stdout() -> io.BufferedIOBase | io.RawIOBase | None:
    """Standard output's byte stream when text written to it would go out as the same UTF-8
    bytes (a UTF-8 text stream that leaves line ends alone: POSIX's), else None. Its raw file
    where it is unbuffered (``python -u``, ``PYTHONUNBUFFERED``)."""
    out = sys.stdout
    if os.linesep != "\n" or not isinstance(out, io.TextIOWrapper):
        return None
    try:
        utf8 = codecs.lookup(out.encoding).name == "utf-8"
    except LookupError:
        return None
    raw = getattr(out, "buffer", None)
    return raw if utf8 and isinstance(raw, io.BufferedIOBase | io.RawIOBase) else None


__all__ = ["write_atomically", "write_bytes_atomically", "write_output", "write_output_bytes",
           "write_stream_atomically", "write_text_atomically"]

"""Reading an input the user gave: existence and permission checks, the size limit, the UTF-8 and
binary rules, and JSON parsing with one-line messages. Every failure is an :class:`InputError`
with one line naming the input (and the line).

An input is read once, from start to end: a pipe, a FIFO, a process substitution
(``<(cat case.json)``, a ``/dev/fd/N`` path) or standard input (``-``) cannot be read again, so
nothing here reopens or seeks a file that is not a regular file. :class:`InputSource` reads the
first bytes (to tell the format), then the rest, or its lines one at a time.

The size limit (:func:`max_input_bytes`: :data:`DEFAULT_MAX_INPUT_BYTES`, the environment
variable ``CITEVIEW_MAX_INPUT``, or :func:`input_limit` as the CLI's ``--max-input-size`` sets it)
is enforced while reading, so a device or a pipe that never ends (``/dev/zero``) is refused
after that many bytes instead of filling the memory.

The bottom of the input modules: :mod:`citeview.core.datasets` and :mod:`citeview.core.inputs`
read through these functions.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from citeview.core.errors import InputError
from citeview.core.text import may_hold_surrogates, scrub_surrogates

#: Inputs larger than this are refused unless the limit is raised (512 MiB).
DEFAULT_MAX_INPUT_BYTES = 512 * 1024 * 1024
#: Kept for library users of :mod:`citeview.core.formats`: the default limit.
MAX_DOCUMENT_BYTES = DEFAULT_MAX_INPUT_BYTES
#: The environment variable that sets the limit (``512M``, ``2G``, ``100000``).
MAX_INPUT_ENV = "CITEVIEW_MAX_INPUT"
#: JSON nested deeper than this (arrays and objects) is refused: it is never a real case, and
#: every reader after the parser (scrubbing, writing a session, the window) stays far from
#: Python's recursion limit.
MAX_JSON_DEPTH = 200
#: The path that means standard input.
STDIN = "-"
STDIN_NAME = "<stdin>"

_HEAD = 64  # bytes read to tell a format by its first bytes
_CHUNK = 1 << 20
_SIZE_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_NON_SPACE_RE = re.compile(r"\S")
_limit_override: int | None = None
#: Makes the message of a JSON syntax error (when the default one does not fit).
SyntaxMessage = Callable[[json.JSONDecodeError], str]


# --------------------------------------------------------------------------- the size limit


def parse_size(text: str, where: str = "size") -> int:
    """A byte count: ``1000``, ``64K``, ``512M``, ``2G``, ``1.5GiB`` (binary units)."""
    m = _SIZE_RE.fullmatch(text)
    if m is None:
        raise InputError(f"{where}: expected a size such as 512M, 2G or 100000, not {text!r}")
    size = int(float(m.group(1)) * _UNITS[m.group(2).lower()])
    if size < 1:
        raise InputError(f"{where}: the size must be at least 1 byte, not {text!r}")
    return size


def max_input_bytes() -> int:
    """The size limit of one input: :func:`input_limit`'s, else ``CITEVIEW_MAX_INPUT``'s, else
    :data:`DEFAULT_MAX_INPUT_BYTES`."""
    if _limit_override is not None:
        return _limit_override
    env = os.environ.get(MAX_INPUT_ENV)
    if env:
        return parse_size(env, MAX_INPUT_ENV)
    return DEFAULT_MAX_INPUT_BYTES


@contextmanager
def input_limit(size: int | None) -> Iterator[None]:
    """Inputs read inside the block may have up to ``size`` bytes (None: no change)."""
    global _limit_override
    old = _limit_override
    if size is not None:
        _limit_override = size
    try:
        yield
    finally:
        _limit_override = old


def binary_file(name: str) -> InputError:
    return InputError(f"{name}: binary file (contains NUL bytes), not text")


def too_large(name: str, limit: int) -> InputError:
    return InputError(f"{name}: input too large (more than {limit} bytes; raise the limit with "
                      f"--max-input-size or {MAX_INPUT_ENV})")


# --------------------------------------------------------------------------- reading


def input_name(path: str) -> str:
    """How messages name the input ``path``: ``<stdin>`` for ``-``."""
    return STDIN_NAME if path == STDIN else path


def printable(text: str) -> str:
    """``text`` (a path or an id made from one) safe to print and write as UTF-8: bytes of a
    file name that are not UTF-8 (kept by Python as lone surrogates) become U+FFFD."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        pass
    else:
        return text
    try:
        raw = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that is no escaped byte
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)
    return raw.decode("utf-8", "replace")


def is_regular_file(path: str) -> bool:
    """True for a regular file that can be read again (not ``-``, a pipe or a device)."""
    if path == STDIN:
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


class InputSource:
    """One input opened for reading once: ``path`` (``-`` for standard input).

    :meth:`head` is its first bytes (not lost: :meth:`read_all` and :meth:`lines` start from
    the beginning); ``regular`` says whether it is a regular file that a loader may open again
    by its path. Missing files, directories and unreadable files fail when it is made."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.name = input_name(path)
        self.limit = max_input_bytes()
        self._pending = b""  # bytes read from the file but not handed out yet
        self._given = 0  # bytes handed out by lines()
        self._size = 0  # a regular file's size (to read it in one go)
        self._fh: IO[bytes]
        self._owned = path != STDIN
        if path == STDIN:
            self._fh = sys.stdin.buffer
            self.regular = False
            return
        if not os.path.exists(path):
            raise InputError(f"{path}: no such file")
        if os.path.isdir(path):
            raise InputError(f"{path}: is a directory, not a file")
        try:
            self._fh = open(path, "rb")  # noqa: SIM115 - closed by close() / the with block
        except PermissionError:
            raise InputError(f"{path}: permission denied") from None
        except OSError as err:
            raise InputError(f"{path}: cannot read ({err.strerror or err})") from None
        try:
            st = os.fstat(self._fh.fileno())
        except OSError:
            self.regular = False
        else:
            self.regular = stat.S_ISREG(st.st_mode)
            self._size = st.st_size if self.regular else 0
        if self.regular and self._size > self.limit:
            self.close()
            raise too_large(path, self.limit)

    def __enter__(self) -> InputSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._owned:
            self._fh.close()

    def _error(self, err: OSError) -> InputError:
        return InputError(f"{self.name}: cannot read ({err.strerror or err})")

    def _raw_read(self, n: int) -> bytes:
        try:
            return self._fh.read(n)
        except OSError as err:
            raise self._error(err) from None

    def head(self, n: int = _HEAD) -> bytes:
        """The first ``n`` bytes (fewer for a shorter input), without consuming them."""
        if self.regular and not self._pending and not self._given and hasattr(self._fh, "peek"):
            try:
                peeked: bytes = self._fh.peek(n)  # a regular file: nothing to copy later
            except OSError as err:
                raise self._error(err) from None
            if len(peeked) >= n or len(peeked) >= self._size:
                return peeked[:n]
        while len(self._pending) < n:  # a pipe may deliver its bytes in pieces
            chunk = self._raw_read(n - len(self._pending))
            if not chunk:
                break
            self._pending += chunk
            if self._given + len(self._pending) > self.limit:
                raise too_large(self.name, self.limit)
        return self._pending[:n]

    def read_all(self, *, text: bool = False) -> bytes:
        """Every byte of the input not handed out by :meth:`lines` yet, refused with an
        InputError when the input passes the size limit. ``text``: a NUL byte is refused as
        soon as it is read (a device of zeros fails at once, not at the limit)."""
        parts = [self._pending] if self._pending else []
        total = self._given + len(self._pending)
        if text and b"\x00" in self._pending:
            raise binary_file(self.name)
        self._pending = b""
        while True:
            want = max(self._size + 1 - total, _CHUNK) if self._size else _CHUNK
            want = min(want, self.limit + 1 - total)
            chunk = self._raw_read(want) if want > 0 else b""
            if not chunk:
                break
            if text and b"\x00" in chunk:
                raise binary_file(self.name)
            parts.append(chunk)
            total += len(chunk)
            if total > self.limit:
                raise too_large(self.name, self.limit)
        self._given = total
        return b"".join(parts)

    def lines(self) -> Iterator[bytes]:
        """The input's lines (each with its ``\\n``), one at a time: memory stays flat however
        long the input. A line longer than the size limit is refused."""
        while True:
            line = self._readline()
            if not line:
                return
            self._given += len(line)
            yield line

    def _readline(self) -> bytes:
        start = b""
        if self._pending:
            nl = self._pending.find(b"\n")
            if nl >= 0:
                line, self._pending = self._pending[:nl + 1], self._pending[nl + 1:]
                return line
            start, self._pending = self._pending, b""
        try:
            rest = self._fh.readline(max(self.limit + 1 - len(start), 1))
        except OSError as err:
            raise self._error(err) from None
        line = start + rest
        if len(line) > self.limit:
            raise too_large(self.name, self.limit)
        return line


def read_input(path: str, *, text: bool = False) -> bytes:
    """All bytes of ``path`` (``-``: standard input), read once; missing, directory,
    unreadable and too large inputs raise a one-line InputError. An empty input is fine.
    ``text``: binary data (a NUL byte) is refused as soon as it is read."""
    with InputSource(path) as src:
        return src.read_all(text=text)


def check_file(path: str) -> bytes:
    """The first bytes of the regular file ``path``; missing, directory, unreadable and empty
    files fail here. (For a pipe or standard input, read it with :class:`InputSource`.)"""
    with InputSource(path) as src:
        head = src.head()
    if not head:
        raise InputError(f"{input_name(path)}: file is empty (0 bytes)")
    return head


def read_file_bytes(path: str) -> bytes:
    """All bytes of ``path``: :func:`read_input`."""
    return read_input(path)


def decode_text(data: bytes, path: str | None, lineno: int | None = None) -> str:
    """UTF-8 text (a BOM is dropped) of a file or of one JSONL line; binary data (a NUL byte
    anywhere) or invalid UTF-8 raises a one-line InputError naming ``path`` (and the line)."""
    where = f"{path} line {lineno}" if lineno else f"{path}"
    if b"\x00" in data:
        raise (InputError(f"{where}: binary data (contains NUL bytes), not text") if lineno
               else binary_file(where))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"{where}: invalid UTF-8 at byte {err.start}") from None
    return text.removeprefix("\ufeff")


def read_text_file(path: str) -> str:
    """The text of a non-empty input (``-``: standard input), checked and decoded by the rules
    above."""
    data = read_input(path, text=True)
    if not data:
        raise InputError(f"{input_name(path)}: file is empty (0 bytes)")
    return decode_text(data, input_name(path))


# --------------------------------------------------------------------------- JSON


def json_error_message(path: str, err: json.JSONDecodeError, text: str) -> str:
    """The one-line message for a JSON syntax error in the file ``path`` holding ``text``."""
    # An unterminated string runs to the end of the file, so it is truncation too.
    if err.pos >= len(text.rstrip()) or err.msg.startswith("Unterminated string"):
        return f"{path}: truncated JSON (the file ends before the value starting at line " \
            f"{_first_line(text)} is complete)"
    return f"{path}: invalid JSON at line {err.lineno} column {err.colno}: {err.msg}"


def extra_data_error(text: str, pos: int) -> json.JSONDecodeError:
    """The error for text after a complete JSON value (``pos`` is where the value ended)."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return json.JSONDecodeError("extra data after the JSON value", text, pos)


_DECODER = json.JSONDecoder()


def json_value(text: str, where: str, start: int = 0, *,
               syntax: SyntaxMessage | None = None) -> tuple[Any, int]:
    """The JSON value of ``text`` starting at ``start`` (no leading space) and where it ends,
    checked (:func:`check_json_depth`) and with lone surrogates scrubbed. Failures are one-line
    InputErrors naming ``where``; a syntax error's message is ``syntax(err)`` when given, else
    :func:`json_error_message`'s."""
    try:
        value, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as err:
        raise InputError(syntax(err) if syntax is not None
                         else json_error_message(where, err, text)) from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply (more than {MAX_JSON_DEPTH} "
                         "levels)") from None
    except ValueError as err:  # an integer beyond Python's digit limit, ...
        raise InputError(f"{where}: {json_value_error(err)}") from None
    check_json_depth(value, where)
    if may_hold_surrogates(text):
        value = scrub_surrogates(value)
    return value, end


def parse_json(text: str, where: str, *, syntax: SyntaxMessage | None = None) -> Any:
    """The one JSON value of ``text`` (surrounding space allowed); see :func:`json_value`."""
    first = _NON_SPACE_RE.search(text)
    value, end = json_value(text, where, first.start() if first else len(text), syntax=syntax)
    if _NON_SPACE_RE.search(text, end) is not None:
        err = extra_data_error(text, end)
        raise InputError(syntax(err) if syntax is not None
                         else json_error_message(where, err, text))
    return value


_WS_RE = re.compile(rb"[ \t\n\r]*")
_SCALAR_RE = re.compile(rb"[^,}\]\s]*")
_NESTING_RE = re.compile(rb'["{}\[\]]')


def peek_json_member(data: bytes, key: str) -> str | None:
    """The string a top-level member ``key`` of the one JSON object ``data`` holds (its last,
    as :func:`json.loads` keeps), found without decoding the rest: a big case's answer read
    ahead of its material. None when ``data`` is not one JSON object (an array, JSON lines,
    anything else), has no such string member, or is found malformed on the way; a peek, not
    a check: the whole input is still read and checked as it always is."""
    data = data.removeprefix(b"\xef\xbb\xbf")
    n = len(data)
    i = _ws_end(data, 0)
    if i >= n or data[i] != 0x7B:  # {
        return None
    i = _ws_end(data, i + 1)
    found: tuple[int, int] | None = None
    if i < n and data[i] == 0x7D:  # } an empty object
        i += 1
    else:
        while True:
            end = _string_end(data, i)
            if end is None:
                return None
            try:
                name = json.loads(data[i:end])
            except ValueError:
                return None
            i = _ws_end(data, end)
            if i >= n or data[i] != 0x3A:  # :
                return None
            i = _ws_end(data, i + 1)
            end = _value_end(data, i)
            if end is None:
                return None
            if name == key:
                found = (i, end) if data[i] == 0x22 else None  # a string, else none
            i = _ws_end(data, end)
            if i < n and data[i] == 0x2C:  # ,
                i = _ws_end(data, i + 1)
                continue
            if i < n and data[i] == 0x7D:  # }
                i += 1
                break
            return None
    if found is None or _ws_end(data, i) != n:
        return None
    try:
        value = json.loads(data[found[0]:found[1]])
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _ws_end(data: bytes, i: int) -> int:
    m = _WS_RE.match(data, i)
    return m.end() if m is not None else i


def _string_end(data: bytes, i: int) -> int | None:
    """Where the JSON string starting at ``data[i]`` ends (after its closing quote)."""
    if i >= len(data) or data[i] != 0x22:
        return None
    j = i + 1
    while True:
        q = data.find(b'"', j)
        if q < 0:
            return None
        k = q - 1
        while data[k] == 0x5C:  # an escaped quote is preceded by an odd run of backslashes
            k -= 1
        if (q - 1 - k) % 2 == 0:
            return q + 1
        j = q + 1


def _value_end(data: bytes, i: int) -> int | None:
    """Where the JSON value starting at ``data[i]`` ends (strings skipped whole)."""
    if i >= len(data):
        return None
    c = data[i]
    if c == 0x22:
        return _string_end(data, i)
    if c not in (0x7B, 0x5B):  # a number, true, false, null
        m = _SCALAR_RE.match(data, i)
        return m.end() if m is not None and m.end() > i else None
    depth = 0
    j = i
    while True:
        found = _NESTING_RE.search(data, j)
        if found is None:
            return None
        j = found.start()
        c = data[j]
        if c == 0x22:
            end = _string_end(data, j)
            if end is None:
                return None
            j = end
            continue
        depth += 1 if c in (0x7B, 0x5B) else -1
        j += 1
        if depth == 0:
            return j


def json_value_error(err: ValueError) -> str:
    """A parser's ValueError that is not a syntax error, in a few words."""
    msg = str(err)
    if "digits" in msg and "integer" in msg:
        return "invalid JSON: a number with more than 4300 digits"
    return f"invalid JSON ({msg.splitlines()[0] if msg else type(err).__name__})"


def check_json_depth(value: object, where: str, limit: int = MAX_JSON_DEPTH) -> None:
    """An InputError when ``value`` (parsed JSON) nests arrays and objects deeper than
    ``limit``. Iterative: any depth is safe to check."""
    stack: list[tuple[Iterable[object], int]] = []
    if isinstance(value, dict):
        stack.append((value.values(), 1))
    elif isinstance(value, list):
        stack.append((value, 1))
    while stack:
        children, depth = stack.pop()
        for child in children:
            if isinstance(child, (dict, list)):
                if depth >= limit:
                    raise InputError(f"{where}: JSON nested too deeply (more than {limit} "
                                     "levels)")
                stack.append((child.values() if isinstance(child, dict) else child, depth + 1))


def _first_line(text: str) -> int:
    stripped = text.lstrip()
    return text[: len(text) - len(stripped)].count("\n") + 1

"""Where the review session of an input lives, and opening it there (no Qt).

``NAME.citeview`` beside the input; in the user data folder when the input's folder is
read-only or when the input ships with citeview (the demo), so nothing is written into the
install. A ``.citeview`` input is the session itself.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from citeview.core.datasets import Dataset, file_identity
from citeview.core.inputs import SESSION_SUFFIX
from citeview.resource_files import resource_root
from citeview.session.protocol import ReviewStore, SessionBackend
from citeview.session.store import SQLITE

# The phrase telling where a session lives for an input that ships with citeview.
IN_DATA_FOLDER = "in the user data folder"


def user_data_dir() -> Path:
    """Where sessions go when the input's folder is read-only (``CITEVIEW_DATA_DIR`` wins)."""
    env = os.environ.get("CITEVIEW_DATA_DIR")
    if env:
        return Path(env)
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home())) / "citeview"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "citeview"
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "citeview"


def sessions_dir() -> Path:
    """The user data folder's sessions (the demo's, and those of read-only inputs' folders)."""
    return user_data_dir() / "sessions"


def session_path_for(input_path: str) -> tuple[str, bool]:
    """``(session path, in user data folder)`` for an input: ``NAME.citeview`` beside it, or in
    the user data folder when its folder is not writable and no session is beside it yet (an
    existing one is always the one: its annotations are there; it opens read-only when it
    cannot be written)."""
    p = Path(input_path).resolve()
    stem = p.stem if p.suffix else p.name
    beside = p.with_name(stem + SESSION_SUFFIX)
    if beside.exists() or os.access(p.parent, os.W_OK | os.X_OK):
        return str(beside), False
    digest = hashlib.sha1(str(p).encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return str(sessions_dir() / f"{stem}-{digest}{SESSION_SUFFIX}"), True


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def session_location(input_path: str) -> tuple[str, str]:
    """Where the session of ``input_path`` lives, and a phrase saying so for the status bar."""
    p = Path(input_path).resolve()
    shipped = resource_root().resolve()
    package = Path(__file__).resolve().parent.parent
    if _inside(p, shipped) or _inside(p, package):
        path = sessions_dir() / (p.stem + SESSION_SUFFIX)
        return str(path), IN_DATA_FOLDER
    path_s, in_data = session_path_for(input_path)
    if in_data:
        return path_s, f"{IN_DATA_FOLDER}: the input's folder is read-only"
    return path_s, "beside the input"


#: The meta key of the input's size and modification time when the session last matched it:
#: an input that still has them is not read again to reopen its session (issue 26).
SOURCE_STAMP = "source_stamp"


def input_stamp(input_path: str) -> list[int] | None:
    """The input's size and modification time (ns), or None when it cannot be read."""
    identity = file_identity(input_path)
    return None if identity is None else [identity[0], identity[1]]


def stamp_session(session: ReviewStore, stamp: list[int] | None) -> None:
    """Remember that ``session`` holds its input as it was at ``stamp``."""
    if stamp is not None and not session.readonly and session.meta.get(SOURCE_STAMP) != stamp:
        session.set_meta(SOURCE_STAMP, stamp)


def open_unchanged(input_path: str, annotator: str, *,
                   backend: SessionBackend = SQLITE) -> tuple[ReviewStore, str] | None:
    """The session of ``input_path`` when it exists and its input has not changed since it
    last matched it (size and modification time): no need to read the input again. None
    otherwise (then the input is read and compared). Errors are the backend's."""
    path, where = session_location(input_path)
    stamp = input_stamp(input_path)
    if stamp is None or not backend.exists(path):
        return None
    session = backend.open(path, annotator=annotator)
    if session.meta.get(SOURCE_STAMP) != stamp or session.readonly:
        session.close()
        return None
    return session, where


def _open_or_create(path: str, input_path: str, dataset: Dataset, annotator: str, *,
                    readonly: bool = False, backend: SessionBackend = SQLITE) -> ReviewStore:
    """The session at ``path`` brought up to date with ``dataset`` (read from ``input_path``),
    or a new one there holding copies of its cases."""
    stamp = input_stamp(input_path)
    if backend.exists(path):
        session = backend.open(path, annotator=annotator, readonly=readonly)
        if not session.readonly:
            session.sync_from(dataset)
            stamp_session(session, stamp)
        return session
    os.makedirs(os.path.dirname(path), exist_ok=True)
    session = backend.create(path, dataset, annotator=annotator,
                             source=os.path.abspath(input_path))
    stamp_session(session, stamp)
    return session


def open_for_input(input_path: str, dataset: Dataset, *, annotator: str = "",
                   backend: SessionBackend = SQLITE) -> ReviewStore:
    """The session of an input: its ``NAME.citeview`` (beside it, or in the user data folder
    when that folder is read-only; ``message`` then says where) is opened and brought up to date
    with the input, or created with copies of its cases."""
    if dataset.kind == "session" and dataset.path:
        return backend.open(dataset.path, annotator=annotator)
    path, in_data_dir = session_path_for(input_path)
    session = _open_or_create(path, input_path, dataset, annotator, backend=backend)
    if in_data_dir and session.message is None:
        session.message = f"the input's folder is read-only: session kept in {path}"
    return session


def open_review_session(input_path: str, dataset: Dataset, annotator: str, *,
                        readonly: bool = False, backend: SessionBackend = SQLITE
                        ) -> tuple[ReviewStore, str]:
    """Open (or create) the session of an input and say where it is (``"opened"`` for a
    ``.citeview`` input). :class:`~citeview.session.errors.SessionInUse` when another process
    has it open for writing."""
    if getattr(dataset, "kind", "") == "session" and getattr(dataset, "path", None):
        dataset.close()  # load_input opened it read-only just to look inside
        return backend.open(input_path, annotator=annotator, readonly=readonly), "opened"
    path, where = session_location(input_path)
    return _open_or_create(path, input_path, dataset, annotator, readonly=readonly,
                           backend=backend), where


__all__ = [
    "SOURCE_STAMP", "input_stamp", "open_unchanged", "stamp_session",
    "open_for_input", "open_review_session", "session_location", "session_path_for",
    "sessions_dir", "user_data_dir",
]

"""Where the review session of an input lives, and opening it there (no Qt).

``NAME.citeview`` beside the input; in the user data folder when the input's folder is
read-only or when the input ships with citeview (the demo), so nothing is written into the
install. A ``.citeview`` input is the session itself.
"""

from __future__ import annotations

import os
from pathlib import Path

from citeview.core.datasets import Dataset
from citeview.resource_files import resource_root
from citeview.session.store import SESSION_SUFFIX, Session, session_path_for, user_data_dir

# The phrase telling where a session lives for an input that ships with citeview.
IN_DATA_FOLDER = "in the user data folder"


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
        path = user_data_dir() / "sessions" / (p.stem + SESSION_SUFFIX)
        return str(path), IN_DATA_FOLDER
    path_s, in_data = session_path_for(input_path)
    if in_data:
        return path_s, f"{IN_DATA_FOLDER}: the input's folder is read-only"
    return path_s, "beside the input"


def open_review_session(input_path: str, dataset: Dataset, annotator: str, *,
                        readonly: bool = False) -> tuple[Session, str]:
    """Open (or create) the session of an input and say where it is (``"opened"`` for a
    ``.citeview`` input). :class:`~citeview.session.store.SessionInUse` when another process
    has it open for writing."""
    if getattr(dataset, "kind", "") == "session" and getattr(dataset, "path", None):
        dataset.close()  # load_input opened it read-only just to look inside
        return Session.open(input_path, annotator=annotator, readonly=readonly), "opened"
    path, where = session_location(input_path)
    if os.path.exists(path):
        session = Session.open(path, annotator=annotator, readonly=readonly)
        if not session.readonly:
            session.sync_from(dataset)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        session = Session.create(path, dataset, annotator=annotator,
                                 source=os.path.abspath(input_path))
    return session, where


__all__ = ["open_review_session", "session_location"]

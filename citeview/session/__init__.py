"""Review sessions: the model (cases, review state, annotations) and its SQLite store. No Qt.

``Session`` (store.py) is the open session; ``edits`` holds undoable commands; ``interchange``
exports and imports the whole session as JSON.

Importing this package registers nothing: :func:`citeview.core.inputs.load_input` reads
``.citeview`` files when it is given :data:`~citeview.session.loader.SESSION_LOADERS` (the
CLI's commands and the window pass them), whatever was imported before.
"""

from citeview.core.corrections import Correction, CorrectionKind
from citeview.session.errors import ReadOnlySession, SessionError, SessionInUse
from citeview.session.loader import SESSION_LOADER, SESSION_LOADERS, session_loader
from citeview.session.location import open_for_input, session_path_for
from citeview.session.model import (
    DEFAULT_LABELS,
    DEFAULT_REASONS,
    Annotation,
    AnnotationKey,
    CaseReview,
    CitationSlot,
    Evidence,
    ReviewState,
    annotation_key,
    case_citations,
    citation_slots,
    reattach,
)
from citeview.session.progress import Progress, ProgressCounts
from citeview.session.store import Change, Session

__all__ = [
    "DEFAULT_LABELS", "DEFAULT_REASONS", "SESSION_LOADER", "SESSION_LOADERS", "Annotation",
    "AnnotationKey", "CaseReview", "Change", "CitationSlot", "Correction", "CorrectionKind",
    "Evidence", "Progress", "ProgressCounts", "ReadOnlySession",
    "ReviewState", "Session", "SessionError", "SessionInUse", "annotation_key", "case_citations",
    "citation_slots", "open_for_input", "reattach", "session_loader", "session_path_for",
]

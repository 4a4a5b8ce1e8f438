"""Review sessions: the model (cases, review state, annotations) and its SQLite store. No Qt.

``Session`` (store.py) is the open session; ``edits`` holds undoable commands; ``interchange``
exports and imports the whole session as JSON.
"""

from citeview.session.model import (
    DEFAULT_LABELS,
    Annotation,
    AnnotationKey,
    CaseReview,
    CitationSlot,
    ReviewState,
    case_citations,
    citation_slots,
    reattach,
)
from citeview.session.progress import Progress, ProgressCounts
from citeview.session.store import (
    Change,
    ReadOnlySession,
    Session,
    SessionError,
    SessionInUse,
    open_for_input,
    session_path_for,
)

__all__ = [
    "DEFAULT_LABELS", "Annotation", "AnnotationKey", "CaseReview", "Change", "CitationSlot",
    "ReadOnlySession", "ReviewState", "Session", "SessionError", "SessionInUse",
    "Progress", "ProgressCounts", "case_citations", "citation_slots", "open_for_input",
    "reattach", "session_path_for",
]

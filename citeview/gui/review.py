"""The review workflow in the window: verdicts from the keyboard, progress, filters, blind mode.

:class:`ReviewController` sits beside :class:`citeview.gui.main_window.MainWindow` and owns the
open :class:`~citeview.session.store.Session`, its ``QUndoStack`` and the Review menu and bar.
Every verdict is an edit committed at once (there is nothing to save); the views learn of it
through :class:`~citeview.gui.session_adapter.SessionAdapter`, so undo, redo and adjudication
repaint the same way a key press does.

Keys with a citation active: 1..9 the rubric's labels, 0 clears, N note, J/K (F8/Shift+F8)
next/previous citation source, Shift+1..9 / Shift+0 / Shift+N the case's overall verdict and
note, Ctrl+Enter marks the case done and opens the next case not done.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QUndoStack
from PySide6.QtWidgets import QLabel, QMenu, QToolBar

from citeview.core.errors import InputError
from citeview.gui import dialogs
from citeview.gui.session_adapter import SessionAdapter
from citeview.gui.undo import push_edit
from citeview.resource_files import resource_root
from citeview.session.edits import annotation_edit, review_edit
from citeview.session.model import AnnotationKey, ReviewState, case_citations
from citeview.session.store import (
    SESSION_SUFFIX,
    Change,
    Session,
    SessionInUse,
    session_path_for,
    user_data_dir,
)

if TYPE_CHECKING:
    from citeview.gui.main_window import MainWindow
    from citeview.gui.state import CaseView, CitationView

ANNOTATOR_KEY = "review/annotator"
MAX_KEYED_LABELS = 9
ALL = "all"
NOT_JUDGED = "not judged"
PROBLEMS = "problems"
NOT_DONE = "not done"
DONE = "done"
CHUNK = 200  # cases counted per idle tick (progress totals never block the window)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def session_location(input_path: str) -> tuple[str, str]:
    """Where the session of ``input_path`` lives, and a phrase saying so for the status bar.

    ``NAME.citeview`` beside the input; in the user data folder when that folder is read-only
    or when the input ships with citeview (the demo), so nothing is written into the install."""
    p = Path(input_path).resolve()
    shipped = resource_root().resolve()
    package = Path(__file__).resolve().parent.parent
    if _inside(p, shipped) or _inside(p, package):
        path = user_data_dir() / "sessions" / (p.stem + SESSION_SUFFIX)
        return str(path), "in the user data folder"
    path_s, in_data = session_path_for(input_path)
    if in_data:
        return path_s, "in the user data folder: the input's folder is read-only"
    return path_s, "beside the input"


def open_review_session(input_path: str, dataset: Any, annotator: str, *,
                        readonly: bool = False) -> tuple[Session, str]:
    """Open (or create) the session of an input; a ``.citeview`` input is the session itself.
    :class:`SessionInUse` when another process has it open for writing."""
    if getattr(dataset, "kind", "") == "session" and getattr(dataset, "path", None):
        close = getattr(dataset, "close", None)
        if callable(close):
            close()  # load_input opened it read-only just to look inside
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


class ReviewController(QObject):
    def __init__(self, win: MainWindow) -> None:
        super().__init__(win)
        self.win = win
        self.session: Session | None = None
        self.adapter: SessionAdapter | None = None
        self.where = ""
        self.undo_stack = QUndoStack(self)
        self.prompt_annotator: Callable[[], str | None] = (
            lambda: self._back(dialogs.ask_annotator(win)))
        self.prompt_note: Callable[[str, str, str], str | None] = (
            lambda title, prompt, text: self._back(dialogs.edit_note(win, title, prompt, text)))
        self.blind = False
        # Another process has the session: True opens it read-only (a dialog; tests replace it).
        self.ask_read_only: Callable[[str], bool] = (
            lambda message: win.error_dialogs and dialogs.session_in_use(win, message))
        self._states: dict[str, ReviewState] = {}
        self._ids: list[str] = []
        self._case_verdicts: dict[str, str | None] = {}
        self._totals: dict[str, list[int]] = {}  # case id -> sources per citation
        self._judged: dict[str, dict[int, set[str]]] = {}  # case id -> number -> judged sids
        self._problems: dict[str, bool] = {}
        self._count_queue: list[str] = []
        self._problem_queue: list[int] = []
        self._count_timer = QTimer(self)
        self._count_timer.setInterval(0)
        self._count_timer.timeout.connect(self._count_some)
        self._problem_timer = QTimer(self)
        self._problem_timer.setInterval(0)
        self._problem_timer.timeout.connect(self._check_some_cases)
        self.verdict_actions: list[QAction] = []
        self.case_actions: list[QAction] = []
        self._build_actions()
        self.progress_label = QLabel()
        self.progress_label.setTextFormat(Qt.TextFormat.PlainText)
        self.progress_label.setToolTip(
            "Your progress. A citation counts as judged once each of its sources has your "
            "verdict (\u201ccannot tell\u201d included); Review \u25b8 Summary gives the "
            "report's numbers, per cited source.")
        self.session_label = QLabel()
        self.session_label.setTextFormat(Qt.TextFormat.PlainText)
        win.statusBar().addPermanentWidget(self.progress_label)
        win.statusBar().addPermanentWidget(self.session_label)
        win.citationChanged.connect(lambda _i: self._sync_bar())
        self._set_enabled(False)

    def _back(self, value: Any) -> Any:
        """After a dialog: the window is active again, so the review keys work at once."""
        self.win.activateWindow()
        return value

    # ------------------------------------------------------------------ actions and the bar

    def _act(self, text: str, slot: Callable[[], Any], shortcuts: list[str] | None = None,
             tip: str = "") -> QAction:
        act = QAction(text, self.win)
        if shortcuts:
            act.setShortcuts([QKeySequence(s) for s in shortcuts])
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.triggered.connect(lambda _=False: slot())
        if tip:
            act.setToolTip(tip)
        self.win.addAction(act)  # shortcuts work even when the toolbar is hidden
        return act

    def _build_actions(self) -> None:
        win = self.win
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts([QKeySequence("Ctrl+Z")])
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        for a in (self.undo_action, self.redo_action):
            win.addAction(a)
        edit_menu = next((m for m in win.menuBar().findChildren(QMenu)
                          if m.title() == "&Edit"), None)
        if edit_menu is not None and edit_menu.actions():
            first = edit_menu.actions()[0]
            edit_menu.insertAction(first, self.undo_action)
            edit_menu.insertAction(first, self.redo_action)
            edit_menu.insertSeparator(first)

        self.clear_action = self._act("0 \u00b7 clear", lambda: self.set_verdict(None), ["0"],
                                      "Clear the verdict of the shown source (0)")
        self.note_action = self._act("N \u00b7 note\u2026", self.edit_note, ["N"],
                                     "Note on the shown source of the active citation (N)")
        self.next_action = self._act("Next Citation", self.next_item, ["J", "F8"])
        self.prev_action = self._act("Previous Citation", self.previous_item, ["K", "Shift+F8"])
        self.case_clear_action = self._act("Clear Case Verdict",
                                           lambda: self.set_case_verdict(None), ["Shift+0"])
        self.case_note_action = self._act("Case Note\u2026", self.edit_case_note, ["Shift+N"])
        self.done_action = self._act("Ctrl+Enter \u00b7 done \u25b8 next case",
                                     self.done_and_next,
                                     ["Ctrl+Return", "Ctrl+Enter"],
                                     "Mark the case done and open the next case not done "
                                     "(Ctrl+Enter)")
        self.blind_action = self._act("&Blind Mode", lambda: None)
        self.blind_action.setCheckable(True)
        self.blind_action.toggled.connect(self.set_blind)
        self.blind_action.setToolTip("Hide lint findings, overlap hints and other annotators' "
                                     "verdicts (agreement studies)")
        self.summary_action = self._act("Review &Summary\u2026", self.show_summary)
        self.adjudicate_action = self._act("&Adjudicate Disagreements\u2026", self.adjudicate)
        self.annotator_action = self._act("Annotator &Name\u2026", self.change_annotator)

        self.menu = win.menuBar().addMenu("&Review")
        self.toolbar = QToolBar("Review")
        self.toolbar.setObjectName("review-bar")
        self.toolbar.setMovable(False)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        win.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        self.verdict_group = QActionGroup(self)
        self.verdict_group.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
        self._fill_menu(())

    def _fill_menu(self, labels: tuple[str, ...]) -> None:
        """Verdict actions for the session's rubric: key k is the k-th label."""
        for a in self.verdict_actions + self.case_actions:
            self.verdict_group.removeAction(a)
            self.win.removeAction(a)
            a.deleteLater()
        self.verdict_actions, self.case_actions = [], []
        for k, label in enumerate(labels[:MAX_KEYED_LABELS], 1):
            a = self._act(f"{k} \u00b7 {label}", self._verdict_slot(label), [str(k)],
                          f"Verdict of the shown source: {label} ({k})")
            a.setCheckable(True)
            self.verdict_group.addAction(a)
            self.verdict_actions.append(a)
            c = self._act(f"Case: {label}", self._case_slot(label),
                          [f"Shift+{k}"], f"Overall verdict of the case: {label} (Shift+{k})")
            self.case_actions.append(c)
        m = self.menu
        m.clear()
        for a in self.verdict_actions:
            m.addAction(a)
        for a in (self.clear_action, self.note_action):
            m.addAction(a)
        m.addSeparator()
        m.addAction(self.next_action)
        m.addAction(self.prev_action)
        m.addSeparator()
        case_menu = m.addMenu("Case &Verdict")
        for a in self.case_actions:
            case_menu.addAction(a)
        case_menu.addAction(self.case_clear_action)
        m.addAction(self.case_note_action)
        m.addAction(self.done_action)
        m.addSeparator()
        for a in (self.blind_action, self.summary_action, self.adjudicate_action,
                  self.annotator_action):
            m.addAction(a)
        tb = self.toolbar
        tb.clear()  # deletes the labels too: make them again
        self.citation_label = QLabel()
        self.citation_label.setTextFormat(Qt.TextFormat.PlainText)
        self.case_label = QLabel()
        self.case_label.setTextFormat(Qt.TextFormat.PlainText)
        tb.addWidget(self.citation_label)
        for a in self.verdict_actions:
            tb.addAction(a)
        tb.addAction(self.clear_action)
        tb.addAction(self.note_action)
        tb.addSeparator()
        tb.addWidget(self.case_label)
        tb.addAction(self.done_action)
        tb.addSeparator()
        tb.addAction(self.blind_action)

    def _verdict_slot(self, label: str) -> Callable[[], None]:
        return lambda: self.set_verdict(label)

    def _case_slot(self, label: str) -> Callable[[], None]:
        return lambda: self.set_case_verdict(label)

    def _set_enabled(self, on: bool) -> None:
        writable = on and self.session is not None and not self.session.readonly
        for a in (*self.verdict_actions, *self.case_actions, self.clear_action,
                  self.note_action, self.case_clear_action, self.case_note_action,
                  self.done_action):
            a.setEnabled(writable)
        for a in (self.summary_action, self.annotator_action, self.blind_action):
            a.setEnabled(on)
        self.adjudicate_action.setEnabled(on and self._merged())
        self.toolbar.setVisible(on)

    def _merged(self) -> bool:
        from citeview.session.merge import MERGE_META

        return self.session is not None and MERGE_META in self.session.meta

    # ------------------------------------------------------------------ the session

    @property
    def annotator(self) -> str:
        return str(self.win.settings.value(ANNOTATOR_KEY, "") or "")

    def ensure_annotator(self) -> bool:
        """Ask the annotator's name once (kept in QSettings); False when they cancel."""
        if self.annotator:
            if self.session is not None:
                self.session.annotator = self.annotator
            return True
        name = self.prompt_annotator()
        if not name:
            return False
        self._set_annotator(name)
        return True

    def change_annotator(self) -> None:
        name = self.prompt_annotator()
        if name:
            self._set_annotator(name)
            self.undo_stack.clear()  # edits belong to the annotator who made them
            self._reload_from_session()

    def _set_annotator(self, name: str) -> None:
        self.win.settings.setValue(ANNOTATOR_KEY, name)
        self.win.settings.sync()
        if self.session is not None:
            self.session.annotator = name

    def open_for(self, path: str, dataset: Any) -> Session | None:
        """The session of an input, or None (the reason shown) when it cannot be opened."""
        try:
            session, where = open_review_session(path, dataset, self.annotator)
        except SessionInUse as err:
            read_only = self.ask_read_only(str(err))
            self.win.errors.append(" ".join(str(err).split()))
            if not read_only:
                self.win.statusBar().showMessage(str(err), 10000)
                return None
            try:
                session, where = open_review_session(path, dataset, self.annotator,
                                                     readonly=True)
            except InputError as err2:
                self.win.show_error(str(err2))
                return None
            session.message = session.message or "open in another citeview: read-only here"
        except InputError as err:
            self.win.show_error(str(err))
            return None
        except OSError as err:
            self.win.show_error(f"{path}: cannot keep a review session ({err.strerror or err})")
            return None
        self.where = where
        return session

    def attach(self, session: Session | None) -> None:
        """Review ``session`` (None: no review, e.g. a snapshot); closes the previous one."""
        if session is self.session:
            return
        self.detach()
        self.session = session
        self.undo_stack.clear()
        if session is None:
            self.win.cases_model.state_of = None
            self._set_enabled(False)
            self.session_label.setText("")
            self.progress_label.setText("")
            return
        session.annotator = self.annotator
        self.adapter = SessionAdapter(session, self)
        self.adapter.changed.connect(self._on_change)
        self.blind = session.blind
        self.blind_action.blockSignals(True)
        self.blind_action.setChecked(self.blind)
        self.blind_action.blockSignals(False)
        self.win.citations_model.blind = self.blind
        self._fill_menu(session.labels)
        self._ids = session.case_ids()  # row -> case id, read on every paint of the list
        self._load_states()
        self.win.cases_model.state_of = self._state_text
        self._set_enabled(True)
        self._show_where()
        self._start_counting()
        self.win.fill_filters(session.labels)

    def detach(self) -> None:
        self._count_timer.stop()
        self._problem_timer.stop()
        if self.adapter is not None:
            self.adapter.detach()
            self.adapter = None
        if self.session is not None:
            self.session.close()
        self.session = None
        self._totals, self._judged, self._problems = {}, {}, {}

    def _show_where(self) -> None:
        s = self.session
        if s is None:
            return
        name = os.path.basename(s.path)
        text = f"{name} ({self.where})" if self.where != "opened" else name
        if s.readonly:
            text += " \u00b7 READ-ONLY"
        self.session_label.setText(text)
        self.session_label.setToolTip(s.path + (f"\n{s.message}" if s.message else ""))
        if s.message:
            self.win.statusBar().showMessage(s.message, 10000)

    def save_as(self, path: str) -> None:
        """Continue in a copy made with SQLite's backup API."""
        if self.session is None:
            return
        try:
            self.session.save_as(path)
        except InputError as err:
            self.win.show_error(str(err))
            return
        self.where = "saved as"
        self._show_where()

    # ------------------------------------------------------------------ state of the case

    def _load_states(self) -> None:
        s = self.session
        assert s is not None
        self._states = s.states()
        self._case_verdicts = {r.case_id: r.verdict for r in s.reviews()
                               if r.annotator == s.annotator}

    def _state_text(self, i: int) -> str:
        if self.session is None or not 0 <= i < len(self._ids):
            return ""
        cid = self._ids[i]
        state = self._states.get(cid, ReviewState.NOT_STARTED)
        text = "" if state is ReviewState.NOT_STARTED else state.value
        verdict = self._case_verdicts.get(cid)
        return f"{text} \u00b7 {verdict}" if verdict else text

    def case_state(self, case_id: str) -> ReviewState:
        return self._states.get(case_id, ReviewState.NOT_STARTED)

    def case_verdict(self, case_id: str) -> str | None:
        return self._case_verdicts.get(case_id)

    def decorate(self, view: CaseView) -> list[int]:
        """Fill ``view``'s citations with this annotator's verdicts and notes (and, outside
        blind mode, the others'); returns those whose chip changed."""
        s = self.session
        if s is None:
            return []
        mine: dict[tuple[int, str], Any] = {}
        others: dict[int, list[str]] = {}
        for a in s.iter_annotations(view.case.id, orphaned=False):
            if a.annotator == s.annotator:
                mine[(a.key.number, a.key.source_id)] = a
            elif a.verdict:
                note = f" \u2014 {' '.join(a.note.split())[:80]}" if a.note else ""
                who = a.annotator or "(no name)"
                others.setdefault(a.key.number, []).append(
                    f"{who}: {a.verdict} ({a.key.source_id}){note}")
        changed = []
        for cv in view.citations:
            before = cv.chip
            anns = [mine.get((cv.number, sid)) for sid in cv.citation.source_ids]
            cv.set_judgements([a.verdict if a else None for a in anns],
                              [a.note if a else "" for a in anns])
            cv.others = tuple(others.get(cv.number, []))
            if cv.chip != before:
                changed.append(cv.index)
        self._totals[view.case.id] = [len(cv.citation.source_ids) for cv in view.citations]
        self._judged[view.case.id] = {
            n: {sid for (num, sid), a in mine.items() if num == n and a.verdict}
            for n in {num for num, _ in mine}}
        self._update_progress()
        return changed

    def _on_change(self, change: Change) -> None:
        win = self.win
        s = self.session
        if s is None:
            return
        if change.kind == "review":
            self._load_states()
            if change.case_id is not None and win.dataset is not None:
                with contextlib.suppress(KeyError):
                    win.cases_model.refresh_case(win.dataset.index_of(change.case_id))
            win.cases_proxy.invalidate_rows()
        elif change.kind == "annotation" and change.case_id is not None:
            view = win.view
            if view is not None and view.case.id == change.case_id:
                changed = self.decorate(view)
                key = change.key
                if key is not None and 0 < key.number <= len(view.citations):
                    changed.append(key.number - 1)
                for i in sorted(set(changed)):
                    win.refresh_citation(i)
                win.citations_proxy.invalidate_rows()
            else:
                self._recount_case(change.case_id)
        elif change.kind == "meta":
            self._show_where()
        self._sync_bar()
        self._update_progress()

    # ------------------------------------------------------------------ progress

    def _start_counting(self) -> None:
        """Totals for "citations judged / total" over the whole session, a chunk per idle tick
        (a 10,000-case session keeps the window responsive)."""
        s = self.session
        assert s is not None
        self._judged = {}
        for a in s.iter_annotations(annotator=s.annotator, orphaned=False):
            if a.verdict:
                self._judged.setdefault(a.case_id, {}).setdefault(a.key.number, set()).add(
                    a.key.source_id)
        self._count_queue = list(reversed(s.case_ids()))
        self._count_timer.start()
        self._update_progress()

    def _case_totals(self, case_id: str) -> list[int]:
        s = self.session
        assert s is not None
        try:
            case = s.get_case(case_id)
        except InputError:
            return []
        return [len(slot.source_ids) for slot in case_citations(case, s.families)]

    def _count_some(self) -> None:
        if self.session is None:
            self._count_timer.stop()
            return
        for _ in range(CHUNK):
            if not self._count_queue:
                self._count_timer.stop()
                break
            cid = self._count_queue.pop()
            if cid not in self._totals:
                self._totals[cid] = self._case_totals(cid)
        self._update_progress()

    def _recount_case(self, case_id: str) -> None:
        s = self.session
        assert s is not None
        judged: dict[int, set[str]] = {}
        for a in s.iter_annotations(case_id, annotator=s.annotator, orphaned=False):
            if a.verdict:
                judged.setdefault(a.key.number, set()).add(a.key.source_id)
        self._judged[case_id] = judged

    def progress(self) -> dict[str, int | bool]:
        """Cases done / total and citations judged / total (all sources of a citation have
        this annotator's verdict); ``complete`` once every case was counted."""
        s = self.session
        if s is None:
            return {}
        ids = s.case_ids()
        done = sum(1 for cid in ids if self._states.get(cid) is ReviewState.DONE)
        total = judged = 0
        for cid, sizes in self._totals.items():
            total += len(sizes)
            got = self._judged.get(cid, {})
            judged += sum(1 for n, k in enumerate(sizes, 1) if k and len(got.get(n, ())) >= k)
        return {"cases_done": done, "cases": len(ids), "judged": judged, "citations": total,
                "complete": len(self._totals) >= len(ids)}

    def _update_progress(self) -> None:
        p = self.progress()
        if not p:
            self.progress_label.setText("")
            return
        more = "" if p["complete"] else "+"
        who = self.session.annotator if self.session is not None else ""
        self.progress_label.setText(
            f"Cases done {p['cases_done']}/{p['cases']}  \u00b7  "
            f"Citations judged {p['judged']}/{p['citations']}{more}"
            + (f"  \u00b7  {who}" if who else "")
            + ("  \u00b7  BLIND" if self.blind else ""))

    # ------------------------------------------------------------------ the bar

    def current(self) -> tuple[CitationView, int] | None:
        view, i = self.win.view, self.win.active
        if view is None or i is None or not 0 <= i < len(view.citations):
            return None
        return view.citations[i], self.win.active_source

    def _sync_bar(self) -> None:
        cur = self.current()
        view = self.win.view
        if cur is None or view is None:
            self.citation_label.setText("  No citation  ")
            for a in self.verdict_actions:
                a.setChecked(False)
        else:
            cv, k = cur
            n = len(cv.citation.source_ids)
            sid = cv.citation.source_ids[k] if n else ""
            more = f", source {k + 1}/{n}" if n > 1 else ""
            self.citation_label.setText(
                f"  Citation {cv.number}/{len(view.citations)} {sid}{more}:  ")
            verdict = cv.verdicts[k] if k < len(cv.verdicts) else None
            for a, label in zip(self.verdict_actions, self._labels(), strict=False):
                a.setChecked(label == verdict)
            note = cv.notes[k] if k < len(cv.notes) else ""
            self.note_action.setText("N \u00b7 note \u270e" if note else "N \u00b7 note\u2026")
        if view is not None:
            cid = view.case.id
            verdict = self._case_verdicts.get(cid)
            state = self.case_state(cid).value
            note = " \u270e" if self.session is not None and self.session.review(cid).note else ""
            self.case_label.setText(f"  Case: {state}"
                                    + (f", {verdict}" if verdict else "") + note + "  ")
            self.case_label.setToolTip("The whole case: Shift+1\u2026Shift+4 overall verdict, "
                                       "Shift+0 clears it, Shift+N note, Ctrl+Enter done")
        else:
            self.case_label.setText("")

    def _labels(self) -> tuple[str, ...]:
        return self.session.labels if self.session is not None else ()

    # ------------------------------------------------------------------ editing

    def _push(self, make: Callable[[], Any]) -> bool:
        s = self.session
        if s is None:
            return False
        if s.readonly:
            self.win.statusBar().showMessage(
                f"Read-only session: {s.message or 'changes are not possible'}", 8000)
            return False
        if not self.ensure_annotator():
            self.win.statusBar().showMessage("No verdict recorded: an annotator name is needed",
                                             8000)
            return False
        try:
            push_edit(self.undo_stack, make(), self._reveal)
        except InputError as err:
            self.win.show_error(str(err))
            return False
        return True

    def _reveal(self, edit: Any, undone: bool) -> None:
        """After an undo or redo, show the case and citation it touched."""
        rows = getattr(edit, "after", [])
        if not rows or self.win.dataset is None or self.win.view is None:
            return
        row = rows[0]
        if row.case_id != self.win.view.case.id:
            try:
                index = self.win.dataset.index_of(row.case_id)
            except KeyError:
                return
            citation = row.key.number - 1 if row.key is not None else 0
            self.win.show_case(index, citation=citation)
        elif row.key is not None and self.win.active != row.key.number - 1:
            self.win.activate_citation(row.key.number - 1)

    def _key(self) -> tuple[AnnotationKey, CitationView] | None:
        cur = self.current()
        view = self.win.view
        if cur is None or view is None:
            self.win.statusBar().showMessage("No citation is active", 4000)
            return None
        cv, k = cur
        if not cv.citation.source_ids:
            return None
        sid = cv.citation.source_ids[k]
        return AnnotationKey(view.case.id, cv.number, cv.citation.raw, sid), cv

    def set_verdict(self, verdict: str | None) -> None:
        found = self._key()
        if found is None or self.session is None:
            return
        key, cv = found
        s = self.session
        claim = self.win.view.case.answer[cv.claim[0]:cv.claim[1]] if self.win.view else None
        if self._push(lambda: annotation_edit(s, key, verdict=verdict, claim=claim,
                                              recovered=cv.citation.recovered is not None)):
            self.win.statusBar().showMessage(
                f"Citation {key.number} ({key.source_id}): "
                f"{verdict if verdict is not None else 'verdict cleared'}", 4000)

    def edit_note(self) -> None:
        found = self._key()
        if found is None or self.session is None or not self.ensure_annotator():
            return
        key, cv = found
        s = self.session
        old = s.annotation(key)
        text = self.prompt_note(f"Note on citation {key.number}",
                                f"Citation {key.number}, source {key.source_id}:",
                                old.note if old else "")
        if text is None or text == (old.note if old else ""):
            return
        claim = self.win.view.case.answer[cv.claim[0]:cv.claim[1]] if self.win.view else None
        self._push(lambda: annotation_edit(s, key, note=text, claim=claim,
                                           recovered=cv.citation.recovered is not None))

    def set_case_verdict(self, verdict: str | None) -> None:
        s, view = self.session, self.win.view
        if s is None or view is None:
            return
        cid = view.case.id
        self._push(lambda: review_edit(s, cid, verdict=verdict))

    def edit_case_note(self) -> None:
        s, view = self.session, self.win.view
        if s is None or view is None or not self.ensure_annotator():
            return
        cid = view.case.id
        old = s.review(cid).note
        text = self.prompt_note("Case note", f"Note on the whole case {cid}:", old)
        if text is None or text == old:
            return
        self._push(lambda: review_edit(s, cid, note=text))

    def done_and_next(self) -> None:
        """Mark the shown case done and open the next case not done (after it, wrapping)."""
        s, view = self.session, self.win.view
        if s is None or view is None:
            return
        cid = view.case.id
        if not self._push(lambda: review_edit(s, cid, state=ReviewState.DONE)):
            return
        nxt = self.next_undone(self.win.case_index)
        if nxt is None:
            self.win.statusBar().showMessage("All cases are done", 8000)
            return
        self.win.show_case(nxt)

    def next_undone(self, after: int) -> int | None:
        if self.session is None:
            return None
        ids = self.session.case_ids()
        n = len(ids)
        for step in range(1, n + 1):
            i = (after + step) % n
            if self._states.get(ids[i]) is not ReviewState.DONE:
                return i
        return None

    # ------------------------------------------------------------------ moving

    def _wanted(self, cv: CitationView) -> bool:
        pred = self.win.citations_proxy.row_filter
        if pred is None:
            return True
        from citeview.gui.tables import IssueRow

        return bool(pred(IssueRow(cv)))

    def next_item(self) -> None:
        """Next source of a multi-source citation, else the next citation the citations filter
        shows."""
        self._step(+1)

    def previous_item(self) -> None:
        self._step(-1)

    def _step(self, d: int) -> None:
        win, view = self.win, self.win.view
        if view is None or not view.citations:
            return
        if win.active is None:
            order = range(len(view.citations)) if d > 0 else range(len(view.citations) - 1,
                                                                   -1, -1)
            for i in order:
                if self._wanted(view.citations[i]):
                    win.activate_citation(i)
                    return
            return
        cv = view.citations[win.active]
        n = len(cv.citation.source_ids)
        k = win.active_source + d
        if 0 <= k < n:
            win.activate_citation(win.active, k)
            return
        i = win.active + d
        while 0 <= i < len(view.citations):
            if self._wanted(view.citations[i]):
                target = view.citations[i]
                last = max(len(target.citation.source_ids) - 1, 0)
                win.activate_citation(i, 0 if d > 0 else last)
                return
            i += d
        win.statusBar().showMessage("No more citations in this case"
                                    + (" (Ctrl+Enter: done, next case)" if d > 0 else ""), 4000)

    # ------------------------------------------------------------------ blind, summary

    def set_blind(self, on: bool) -> None:
        on = bool(on)
        self.blind = on
        self.win.citations_model.blind = on
        if self.session is not None and not self.session.readonly and self.session.blind != on:
            try:
                self.session.set_blind(on)
            except InputError as err:
                self.win.show_error(str(err))
        self.win.blind_changed()
        self._update_progress()

    def summary_text(self) -> str:
        from citeview.session.report import render_text, summarize

        assert self.session is not None
        return render_text(summarize(self.session))

    def show_summary(self) -> None:
        if self.session is None:
            return
        try:
            text = self.summary_text()
        except InputError as err:
            self.win.show_error(str(err))
            return
        dlg = dialogs.SummaryDialog(text, self.win)
        self.summary_dialog = dlg
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()

    def adjudicate(self) -> None:
        if self.session is None:
            return
        from citeview.gui.adjudicate import AdjudicationDialog

        dlg = AdjudicationDialog(self, self.win)
        self.adjudication_dialog = dlg
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()
        dlg.activateWindow()  # its keys (1..4, J/K) are for it, not the window behind

    def _reload_from_session(self) -> None:
        if self.session is None:
            return
        self._ids = self.session.case_ids()
        self._totals = {}
        self._load_states()
        self._start_counting()
        if self.win.view is not None:
            for i in self.decorate(self.win.view):
                self.win.refresh_citation(i)
            self.win.citations_model.set_view(self.win.view)
        self._sync_bar()

    # ------------------------------------------------------------------ case filter

    def case_problem(self, i: int) -> bool | None:
        """Whether case ``i`` has a citation with a problem (unresolved, recovered, lint
        error); None until checked (checking runs in idle ticks once asked for)."""
        return self._problems.get(self._ids[i]) if 0 <= i < len(self._ids) else None

    def check_problems(self) -> None:
        if self.win.dataset is None:
            return
        ids = self.win.dataset.case_ids()
        self._problem_queue = [i for i in reversed(range(len(ids))) if ids[i] not in
                               self._problems]
        self._problem_timer.start()

    def _check_some_cases(self) -> None:
        from citeview.gui.state import build_case_view

        ds = self.win.dataset
        if ds is None:
            self._problem_timer.stop()
            return
        ids = ds.case_ids()
        for _ in range(20):
            if not self._problem_queue:
                self._problem_timer.stop()
                break
            i = self._problem_queue.pop()
            try:
                view = build_case_view(ds.get(i), with_lint=True, render=False)
                self._problems[ids[i]] = any(c.problem for c in view.citations)
            except Exception:  # an unreadable case is a problem to look at
                self._problems[ids[i]] = True
        self.win.cases_proxy.invalidate_rows()

    def close(self) -> None:
        self.detach()

"""The review keys and the edits they make: verdicts from the keyboard, notes, blind mode.

:class:`ReviewController` owns the Review menu and bar and the ``QUndoStack``. Every verdict is
an edit committed at once (there is nothing to save); the views learn of it through the session's
changes (:attr:`citeview.gui.review_session.ReviewSession.changed`), so undo, redo and
adjudication repaint the same way a key press does.

Keys with a citation active: 1..9 the rubric's labels (then on to the next unjudged source:
:mod:`citeview.gui.advance`), 0 clears, N note, J/K (F8/Shift+F8) next/previous citation source,
Shift+J/Shift+K next/previous unjudged source in any case, Shift+1..9 / Shift+0 / Shift+N the
case's overall verdict and note, Ctrl+Enter marks the case done and opens the next case not
done (a first press on a case with unjudged sources goes to them instead).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QUndoStack
from PySide6.QtWidgets import QLabel, QMenu, QToolBar

from citeview.core.errors import InputError
from citeview.core.numbering import index_of
from citeview.gui import dialogs, message
from citeview.gui.advance import unjudged
from citeview.gui.answer_render import VERDICT_GLYPHS
from citeview.gui.ops import AfterPaint, collect_after_paint
from citeview.gui.undo import push_edit
from citeview.session.edits import Edit, annotation_edit, combine, review_edit
from citeview.session.model import AnnotationKey, ReviewState, annotation_key
from citeview.session.protocol import ReviewStore

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow

    from citeview.gui.advance import Advancer
    from citeview.gui.case_loader import CaseLoader
    from citeview.gui.navigation import Navigator
    from citeview.gui.progress import ProgressTracker
    from citeview.gui.review_session import ReviewSession
    from citeview.gui.state import CitationView
    from citeview.gui.window_state import WindowState

MAX_KEYED_LABELS = 9

__all__ = ["MAX_KEYED_LABELS", "ReviewController"]


class ReviewController(QObject):
    verdictsStale = Signal()  # another annotator: the views read the session's verdicts again
    blindToggled = Signal()  # the reviewer turned blind mode on or off (the case is shown again)

    def __init__(self, state: WindowState, review_session: ReviewSession,
                 navigator: Navigator, loader: CaseLoader, advance: Advancer,
                 progress: ProgressTracker, window: QMainWindow) -> None:
        super().__init__(window)
        self.state = state
        self.review_session = review_session
        self.navigator, self.loader, self.advance = navigator, loader, advance
        self.progress = progress
        self.window = window  # its menu bar, toolbar, actions; the dialogs' parent
        self.undo_stack = QUndoStack(self)
        # Edit a note (a dialog; tests replace it).
        self.prompt_note: Callable[[str, str, str], str | None] = (
            lambda title, prompt, text: dialogs.back_to(
                window, dialogs.edit_note(window, title, prompt, text)))
        self.presenting = False
        self._confirm_done: str | None = None  # the case a Ctrl+Enter warned about
        # Set while Ctrl+Enter marks a case done and opens the next: what shows that change
        # (progress label, case list) repaints after the next case's first paint (see
        # ReviewRepaint.session_changed), which sets ``repaint_held`` until it has.
        self.switching = False
        self.repaint_held = False
        # The case Ctrl+Enter marked done, written once the next case is painted (a commit
        # waits on the disk: 1-6 ms of the key's wait on a busy machine). Written first by
        # anything that edits, undoes, or closes the session; nothing says it is done before.
        self._done_pending: tuple[ReviewStore, str] | None = None
        self._quiet = False  # that write's push: it does not go back to its case
        self._write_later = AfterPaint(self.write_done, self)
        review_session.detaching.connect(self.write_done)
        self._typed_ahead: list[Callable[[], None]] = []  # review keys pressed while loading
        self.verdict_actions: list[QAction] = []
        self.case_actions: list[QAction] = []
        # Actions other parts add to the Review menu (evidence, reasons, corrections: see
        # review_marks.py), after the verdicts; None is a separator. Enabled as the verdicts.
        self.more_actions: list[QAction | None] = []
        self._build_actions()
        self.navigator.citationChanged.connect(lambda _i: self.sync_bar())
        # A case asked for: the bar follows once it is painted (its first citation, active by
        # then, mostly shows as the last one did: "No citation" set and replaced before that
        # paint laid the bar out, and repainted it, twice per case switch).
        self._sync_later = AfterPaint(self.sync_bar, self)
        self.loader.viewReady.connect(self._apply_typed_ahead)
        self.loader.caseChanged.connect(self._case_changed)
        self._set_enabled(False)

    @property
    def blind(self) -> bool:
        """Blind review (kept in the window's state, which tells who shows lint)."""
        return self.state.blind

    def _case_changed(self, _index: int) -> None:
        self._confirm_done = None  # a warning was about the case left
        self._sync_later.request()

    @property
    def session(self) -> ReviewStore | None:
        """The session the edits go to (:attr:`MainWindow.review_session` opens it)."""
        return self.review_session.session

    @property
    def annotator(self) -> str:
        return self.review_session.annotator

    def session_attached(self, session: ReviewStore | None) -> None:
        """Another session (or none) is reviewed: its rubric's keys, its blind mode."""
        self.undo_stack.clear()
        if session is None:
            self._set_enabled(False)
            return
        self.state.set_blind(session.blind)
        self.blind_action.blockSignals(True)
        self.blind_action.setChecked(self.blind)
        self.blind_action.blockSignals(False)
        self._fill_menu(session.labels)
        self._set_enabled(True)

    # ------------------------------------------------------------------ actions and the bar

    def _act(self, text: str, slot: Callable[[], object], shortcuts: list[str] | None = None,
             tip: str = "") -> QAction:
        act = QAction(text, self.window)
        if shortcuts:
            act.setShortcuts([QKeySequence(s) for s in shortcuts])
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.triggered.connect(lambda _=False: self._run(slot))
        if tip:
            act.setToolTip(tip)
        self.window.addAction(act)  # shortcuts work even when the toolbar is hidden
        return act

    def _run(self, slot: Callable[[], object]) -> None:
        """A review key's work, collections held off until its frame is painted (a case
        marked done and not yet written is written first)."""
        collect_after_paint()
        self.write_done()
        slot()

    def _build_actions(self) -> None:
        window = self.window
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcuts([QKeySequence("Ctrl+Z")])
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        # A case marked done and not yet written is written before an undo or redo (which
        # would otherwise step over it).
        for a, step in ((self.undo_action, self.undo_stack.undo),
                        (self.redo_action, self.undo_stack.redo)):
            a.triggered.disconnect()
            a.triggered.connect(lambda _=False, step=step: self._written_then(step))
        for a in (self.undo_action, self.redo_action):
            window.addAction(a)
        edit_menu = next((m for m in window.menuBar().findChildren(QMenu)
                          if m.title() == "&Edit"), None)
        if edit_menu is not None and edit_menu.actions():
            first = edit_menu.actions()[0]
            edit_menu.insertAction(first, self.undo_action)
            edit_menu.insertAction(first, self.redo_action)
            edit_menu.insertSeparator(first)

        nav = self.navigator
        self.clear_action = self._act("0 clear", lambda: self.set_verdict(None), ["0"],
                                      "Clear the verdict of the shown source (0)")
        self.note_action = self._act("N note\u2026", self.edit_note, ["N"],
                                     "Note on the shown source of the active citation (N)")
        self.next_action = self._act("Next Citation", nav.next_item, ["J", "F8"])
        self.prev_action = self._act("Previous Citation", nav.previous_item, ["K", "Shift+F8"])
        self.next_unjudged_action = self._act(
            "Next Unjudged", lambda: self.advance.jump(), ["Shift+J"],
            "The next source or citation you have not judged, in any case (Shift+J)")
        self.prev_unjudged_action = self._act(
            "Previous Unjudged", lambda: self.advance.jump(backward=True), ["Shift+K"],
            "The previous source or citation you have not judged, in any case (Shift+K)")
        self.advance_action = self._act("Move On After a Verdict", lambda: None)
        self.advance_action.setCheckable(True)
        self.advance_action.setToolTip("After a verdict, go to the next unjudged source; "
                                       "after the last one, mark the case done and open the "
                                       "next (off: stay, J/K and Ctrl+Enter move)")
        self.case_clear_action = self._act("Clear Case Verdict",
                                           lambda: self.set_case_verdict(None), ["Shift+0"])
        self.case_note_action = self._act("Case Note\u2026", self.edit_case_note, ["Shift+N"])
        self.done_action = self._act("Done \u25b8 next case",
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

        self.menu = window.menuBar().addMenu("&Review")
        self.toolbar = QToolBar("Review")
        self.toolbar.setObjectName("review-bar")
        self.toolbar.setMovable(False)
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        window.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.toolbar)
        self.verdict_group = QActionGroup(self)
        self.verdict_group.setExclusionPolicy(QActionGroup.ExclusionPolicy.ExclusiveOptional)
        self._fill_menu(())

    def _fill_menu(self, labels: tuple[str, ...]) -> None:
        """Verdict actions for the session's rubric: key k is the k-th label."""
        for a in self.verdict_actions + self.case_actions:
            self.verdict_group.removeAction(a)
            self.window.removeAction(a)
            a.deleteLater()
        self.verdict_actions, self.case_actions = [], []
        for k, label in enumerate(labels[:MAX_KEYED_LABELS], 1):
            glyph = VERDICT_GLYPHS.get(label)  # the chip's glyph beside its key
            a = self._act(f"{k} {glyph} {label}" if glyph else f"{k} {label}",
                          self._verdict_slot(label), [str(k)],
                          f"Verdict of the shown source: {label} ({k})")
            a.setData(label)
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
        for more in self.more_actions:
            if more is None:
                m.addSeparator()
            else:
                m.addAction(more)
        m.addSeparator()
        m.addAction(self.next_action)
        m.addAction(self.prev_action)
        m.addAction(self.next_unjudged_action)
        m.addAction(self.prev_unjudged_action)
        m.addAction(self.advance_action)
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
        self._label_fitted = ""  # the text the label's width was fitted to
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

    def set_presenting(self, on: bool) -> None:
        """Presentation mode: no verdict, note or "done" key records anything (a demo never
        judges by accident); J/K still step through the citations."""
        self.presenting = on
        self._set_enabled(self.session is not None)

    def _set_enabled(self, on: bool) -> None:
        writable = (on and self.session is not None and not self.session.readonly
                    and not self.presenting)
        for a in (*self.verdict_actions, *self.case_actions, self.clear_action,
                  self.note_action, self.case_clear_action, self.case_note_action,
                  self.done_action, *(m for m in self.more_actions if m is not None)):
            a.setEnabled(writable)
        for a in (self.summary_action, self.annotator_action, self.blind_action):
            a.setEnabled(on)
        self.adjudicate_action.setEnabled(on and self._merged())
        self.toolbar.setVisible(on and not self.presenting)

    def _merged(self) -> bool:
        from citeview.session.merge import MERGE_META

        return self.session is not None and MERGE_META in self.session.meta

    def current(self) -> tuple[CitationView, int] | None:
        """The active citation and which of its sources is shown."""
        view, i = self.state.view, self.state.active
        if view is None or i is None or not 0 <= i < len(view.citations):
            return None
        return view.citations[i], self.state.active_source

    def sync_bar(self) -> None:
        """The bar shows the active citation and source, its verdict pressed, the case."""
        cur = self.current()
        view = self.state.view
        if cur is None or view is None:
            self.citation_label.setText(" No citation ")
            for a in self.verdict_actions:
                a.setChecked(False)
        else:
            cv, k = cur
            n = len(cv.citation.source_ids)
            sid = cv.citation.source_ids[k] if n else ""
            more = f" ({k + 1}/{n})" if n > 1 else ""
            self.citation_label.setText(f" {cv.number}/{len(view.citations)}{more}: ")
            self._fit_citation_label(len(view.citations), n)
            tip = (f"Citation {cv.number} of {len(view.citations)}, source {sid}: its verdict "
                   f"(1\u2013{len(self._labels())}, 0 clears)")
            if tip != self.citation_label.toolTip():  # (setting one costs an event)
                self.citation_label.setToolTip(tip)
            verdict = cv.verdicts[k] if k < len(cv.verdicts) else None
            for a, label in zip(self.verdict_actions, self._labels(), strict=False):
                a.setChecked(label == verdict)
            note = cv.notes[k] if k < len(cv.notes) else ""
            self.note_action.setText("N note \u270e" if note else "N note\u2026")
        if view is not None:
            cid = view.case.id
            progress = self.progress
            verdict = progress.case_verdict(cid)
            state = progress.case_state(cid).value
            note = " \u270e" if self.session is not None and self.session.review(cid).note else ""
            self.case_label.setText(f" Case: {state}"
                                    + (f", {verdict}" if verdict else "") + note + " ")
            if not self.case_label.toolTip():
                self.case_label.setToolTip("The whole case: Shift+1\u2026Shift+4 overall "
                                           "verdict, Shift+0 clears it, Shift+N note, "
                                           "Ctrl+Enter done")
        else:
            self.case_label.setText("")

    def _fit_citation_label(self, count: int, sources: int) -> None:
        """The citation label as wide as its widest text in this case: a number of another
        width does not lay the bar out again (every button of it repainted at each click)."""
        widest = f" {count}/{count}" + (f" ({sources}/{sources})" if sources > 1 else "") + ": "
        if widest != self._label_fitted:
            self._label_fitted = widest
            self.citation_label.setMinimumWidth(
                self.citation_label.fontMetrics().horizontalAdvance(widest))

    def _labels(self) -> tuple[str, ...]:
        return self.session.labels if self.session is not None else ()

    # ------------------------------------------------------------------ editing

    def _can_edit(self) -> bool:
        """Whether an edit can be recorded now (says why not). The annotator's name is asked
        when the review starts, never here: a box opened by a verdict key took the verdict
        keys typed after it."""
        s = self.session
        if s is None:
            return False
        if s.readonly:
            message.warning(f"Read-only session: {s.message or 'changes are not possible'}")
            return False
        if not self.review_session.has_annotator():
            message.warning("No verdict recorded: an annotator name is needed "
                            "(Review \u25b8 Annotator Name\u2026)", 8000)
            return False
        return True

    def add_actions(self, actions: list[QAction | None]) -> None:
        """Put ``actions`` in the Review menu after the verdicts (None: a separator),
        enabled when verdicts are."""
        self.more_actions = list(actions)
        self._fill_menu(self._labels())
        self._set_enabled(self.session is not None)

    def record(self, make: Callable[[], Edit]) -> bool:
        """Make an edit (``make``) and put it on the undo stack, as a verdict is; False (and
        the reason told) when it cannot be recorded."""
        return self._push(make)

    def _push(self, make: Callable[[], Edit]) -> bool:
        if not self._can_edit():
            return False
        try:
            push_edit(self.undo_stack, make(), self._reveal)
        except InputError as err:
            message.error(str(err))
            return False
        return True

    def _reveal(self, edit: Edit, undone: bool) -> None:
        """After an undo or redo, show the case and citation it touched."""
        rows = edit.after
        if (self._quiet or not rows or self.state.dataset is None
                or self.state.view is None):
            return
        row = rows[0]
        if row.case_id != self.state.view.case.id:
            try:
                index = self.state.dataset.index_of(row.case_id)
            except KeyError:
                return
            citation = index_of(row.key.number) if row.key is not None else 0
            self.loader.show_case(index, citation=citation)
        elif row.key is not None and self.state.active != index_of(row.key.number):
            self.navigator.activate_citation(index_of(row.key.number))

    def key(self) -> tuple[AnnotationKey, CitationView] | None:
        """The annotation key of the shown source of the active citation (what 1..9 judge)."""
        cur = self.current()
        view = self.state.view
        if cur is None or view is None:
            message.warning("No citation is active", 4000)
            return None
        cv, k = cur
        if not cv.citation.source_ids:
            return None
        return annotation_key(view.case.id, cv.analysed, cv.citation.source_ids[k]), cv

    def _claim(self, cv: CitationView) -> str | None:
        return cv.analysed.claim_text

    def set_verdict(self, verdict: str | None) -> None:
        """Record ``verdict`` on the shown source of the active citation, then move on to the
        next unjudged item (:mod:`citeview.gui.advance`); the verdict that completes a case
        marks it done in the same undo step."""
        if self._loading():
            # The next case is still being built: keep the key for it (a reviewer who knows
            # the next answer is quicker than the window; nothing typed is lost).
            self._typed_ahead.append(lambda: self.set_verdict(verdict))
            return
        found = self.key()
        if found is None or self.session is None:
            self.sync_bar()
            return
        key, cv = found
        s = self.session
        claim = self._claim(cv)
        advance = self.advance
        item = advance.position()
        completes = (verdict is not None and advance.enabled and item is not None
                     and advance.completes_case(item)
                     and not advance.case_done(key.case_id))

        def make() -> Edit:
            edit = annotation_edit(s, key, verdict=verdict, claim=claim,
                                   recovered=cv.citation.recovered is not None)
            if not completes:
                return edit
            done = review_edit(s, key.case_id, state=ReviewState.DONE)
            return combine(f"{edit.text}; case done", edit, done)

        if not self._push(make):
            self.sync_bar()  # nothing recorded: no verdict button stays pressed
            return
        message.info(f"Citation {key.number} ({key.source_id}): "
                     f"{verdict if verdict is not None else 'verdict cleared'}"
                     + (" \u00b7 case done" if completes else ""))
        if verdict is not None and advance.enabled and item is not None:
            advance.after_verdict(item, completes)

    def _loading(self) -> bool:
        """A case is being built (asked for, not shown yet) in a reviewed session."""
        state = self.state
        return state.view is None and self.session is not None and state.dataset is not None

    def loading(self) -> bool:
        """A case is being built (asked for, not shown yet): keys pressed now are for it."""
        return self._loading()

    def hold(self, again: Callable[[], None]) -> bool:
        """While a case is being built, keep ``again`` to run once it shows (after the keys
        typed before it) and say True; else False (run it now)."""
        if not self._loading():
            return False
        self._typed_ahead.append(again)
        return True

    def _apply_typed_ahead(self) -> None:
        """The case is shown: the keys typed while it loaded, in order (one that opens the
        next case leaves the rest for that one)."""
        while self._typed_ahead and self.state.view is not None:
            self._typed_ahead.pop(0)()

    def edit_note(self) -> None:
        found = self.key()
        if (found is None or self.session is None
                or not self.review_session.ensure_annotator()):
            return
        key, cv = found
        s = self.session
        old = s.annotation(key)
        text = self.prompt_note(f"Note on citation {key.number}",
                                f"Citation {key.number}, source {key.source_id}:",
                                old.note if old else "")
        if text is None or text == (old.note if old else ""):
            return
        claim = self._claim(cv)
        self._push(lambda: annotation_edit(s, key, note=text, claim=claim,
                                           recovered=cv.citation.recovered is not None))

    def set_case_verdict(self, verdict: str | None) -> None:
        s, view = self.session, self.state.view
        if s is None or view is None:
            return
        cid = view.case.id
        self._push(lambda: review_edit(s, cid, verdict=verdict))

    def edit_case_note(self) -> None:
        s, view = self.session, self.state.view
        if s is None or view is None or not self.review_session.ensure_annotator():
            return
        cid = view.case.id
        old = s.review(cid).note
        text = self.prompt_note("Case note", f"Note on the whole case {cid}:", old)
        if text is None or text == old:
            return
        self._push(lambda: review_edit(s, cid, note=text))

    def done_and_next(self) -> None:
        """Mark the shown case done and open the next case not done (after it, wrapping), at
        its first unjudged citation. With citations still unjudged, the first press moves to
        the first of them and says so; a second press marks the case done anyway."""
        if self._loading():
            self._typed_ahead.append(self.done_and_next)  # kept for the case being built
            return
        s, view = self.session, self.state.view
        if s is None or view is None:
            return
        cid = view.case.id
        todo = unjudged(view)
        if todo and self._confirm_done != cid:
            self._confirm_done = cid
            self.advance.go(todo[0])
            n = len(todo)
            # Short: the status bar shows ~50 characters at 1024 px.
            message.warning(f"{n} not judged: moved to the first \u00b7 Ctrl+Enter again: done",
                            8000)
            return
        self._confirm_done = None
        team = self.advance.team
        if team is not None and team.routed:
            # The server hands out the next case: it hears this one is done first.
            self.switching = True  # (the label and case list repaint after its paint)
            try:
                if self._push(lambda: review_edit(s, cid, state=ReviewState.DONE)):
                    self.advance.open_next_case()
            finally:
                self.switching = False
            return
        if not self._can_edit():
            return
        # The next case first; "done" is committed once it is painted (write_done), and the
        # progress label and case list say so after that commit, not before.
        self._done_pending = (s, cid)
        self.advance.open_next_case(leaving=self.state.case_index)
        self._write_later.request_soon()  # (after the switch's paint request)

    def _written_then(self, step: Callable[[], None]) -> None:
        self.write_done()
        step()

    def write_pending(self) -> bool:
        """Whether a case marked done (Ctrl+Enter) waits for the next case's paint to be
        written."""
        return self._done_pending is not None

    def write_done(self) -> None:
        """Commit the case Ctrl+Enter marked done (after the next case's first paint, or
        before anything else edits, undoes or closes the session)."""
        pending, self._done_pending = self._done_pending, None
        if pending is None:
            return
        s, cid = pending
        if s is not self.session or s.closed:
            return  # (the session is written before it is let go: see ReviewSession.detach)
        self._quiet = True
        try:
            self._push(lambda: review_edit(s, cid, state=ReviewState.DONE))
        finally:
            self._quiet = False

    def change_annotator(self) -> None:
        name = self.review_session.prompt_annotator()
        if name:
            self.review_session.set_annotator(name)
            self.undo_stack.clear()  # edits belong to the annotator who made them
            self.verdictsStale.emit()

    # ------------------------------------------------------------------ blind, summary

    def set_blind(self, on: bool) -> None:
        on = bool(on)
        self.state.set_blind(on)
        if self.session is not None and not self.session.readonly and self.session.blind != on:
            try:
                self.session.set_blind(on)
            except InputError as err:
                message.error(str(err))
        self.blindToggled.emit()

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
            message.error(str(err))
            return
        dlg = dialogs.SummaryDialog(text, self.window)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()

    def adjudicate(self) -> None:
        if self.session is None:
            return
        from citeview.gui.adjudicate import AdjudicationDialog

        dlg = AdjudicationDialog(self, self.window)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dlg.show()
        dlg.activateWindow()  # its keys (1..4, J/K) are for it, not the window behind

"""Benchmark: a million-case JSONL dataset in the window (issue 26), each figure beside its
target and, where the issue names one, a baseline measured in the same run.

    python benchmarks/bench_million.py [--cases 1000000] [--data /tmp/million.jsonl]

The dataset is made by ``benchmarks/million_data.py`` (kept where ``--data`` says, never in the
repository; made again when its case count differs). Every figure is taken in a fresh child
process, offscreen (``QT_QPA_PLATFORM``), with no size flag or environment variable:

- first case painted: ``open_path`` until the first case's answer is painted (< 200 ms);
- review session made: from the start of the copy (the first case shown) until the window
  reviews in it, against ``json.loads`` of every line in another process (<= 2x); the
  window's peak RSS (``ru_maxrss``) through it all (< 1 GB);
- the longest gap between ticks of a 5 ms GUI-thread ``QTimer`` while it is made (< 50 ms);
- reopening (a new window, the first 3 cases marked done before): ``open_path`` until the
  first case not done is painted (< 500 ms);
- Go to Case: each key typed into its box (``case-0``, ..., ``case-0999123``) until its
  completions are listed (< 30 ms per key; the maximum);
- the peak RSS of the reopened window (< 1 GB).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _timing import ms, spin, wait_until  # noqa: E402

TICK_MS = 5


def _app() -> Any:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication(["bench"])


class Ticks:
    """Timestamps of a 5 ms precise timer: the longest gap is the longest the GUI stalled."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.times: list[float] = []
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(TICK_MS)
        self.timer.timeout.connect(lambda: self.times.append(time.perf_counter()))

    def start(self) -> None:
        self.times = [time.perf_counter()]
        self.timer.start()

    def stop(self) -> float:
        self.timer.stop()
        self.times.append(time.perf_counter())
        return max(b - a for a, b in zip(self.times, self.times[1:], strict=False))


class PaintWatch:
    """The time of the first paint of ``widget`` at which ``ready()`` holds."""

    def __init__(self, widget: Any, ready: Any) -> None:
        from PySide6.QtCore import QEvent, QObject

        watch = self

        class Filter(QObject):
            def eventFilter(self, obj: Any, ev: Any) -> bool:  # noqa: N802
                if ev.type() == QEvent.Type.Paint and watch.at is None and watch.ready():
                    watch.at = time.perf_counter()
                return False

        self.ready = ready
        self.at: float | None = None
        self.filter = Filter()
        widget.installEventFilter(self.filter)


def rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_window(folder: Path) -> Any:
    from PySide6.QtCore import QSettings

    from citeview.gui.main_window import MainWindow
    from citeview.gui.review_session import ANNOTATOR_KEY

    settings = QSettings(str(folder / "settings.ini"), QSettings.Format.IniFormat)
    settings.setValue(ANNOTATOR_KEY, "bench")
    win = MainWindow(settings=settings)
    win.resize(1300, 800)
    win.show()
    return win


def shown_id(win: Any) -> str | None:
    return win.state.view.case.id if win.state.view is not None else None


# --------------------------------------------------------------------------- children


def child_baseline(data: Path) -> dict[str, Any]:
    t0 = time.perf_counter()
    n = 0
    with open(data, "rb") as fh:
        for line in fh:
            json.loads(line)
            n += 1
    return {"loads": time.perf_counter() - t0, "n": n, "rss": rss_mb()}


def child_first(data: Path, folder: Path) -> dict[str, Any]:
    """Open the dataset in a new window: first paint, the session made, the ticks meanwhile;
    then mark the first 3 cases done (for the reopen)."""
    from citeview.session.model import CaseReview, ReviewState

    _app()
    win = make_window(folder)
    spin(1.0)
    made = {"at": None}
    win.opener.sessionMade.connect(lambda: made.__setitem__("at", time.perf_counter()))
    painted = PaintWatch(win.answer.viewport(), lambda: shown_id(win) is not None)
    ticks = Ticks()
    t0 = time.perf_counter()
    win.open_path(str(data))
    ticks.start()  # the window's own open call returned: the GUI thread is free from here
    wait_until(lambda: painted.at is not None, 120)
    assert painted.at is not None
    first = painted.at - t0
    started = time.perf_counter()
    wait_until(lambda: made["at"] is not None)
    assert made["at"] is not None
    spin(0.5)
    gap = ticks.stop()
    session = win.review_session.session
    assert session is not None
    for cid in session.case_ids()[:3] if len(session) < 100_000 else [
            session.case_at(i).id for i in range(3)]:
        session.put_review(CaseReview(cid, "bench", ReviewState.DONE))
    out = {"first": first, "made": made["at"] - started, "made_total": made["at"] - t0,
           "gap": gap, "cases": len(session), "rss": rss_mb()}
    win.close()
    spin(0.2)
    return out


def child_reopen(data: Path, folder: Path) -> dict[str, Any]:
    """Open the dataset again (its session exists): the first case not done painted; then Go
    to Case, key by key."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QLineEdit

    from citeview.gui import dialogs

    app = _app()
    win = make_window(folder)
    spin(1.0)
    painted = PaintWatch(win.answer.viewport(), lambda: shown_id(win) is not None)
    ticks = Ticks()
    ticks.start()
    t0 = time.perf_counter()
    win.open_path(str(data))
    wait_until(lambda: painted.at is not None, 300)
    assert painted.at is not None
    reopen = painted.at - t0
    shown = shown_id(win)
    spin(1.0)
    gap = ticks.stop()
    # Go to Case: the dialog the window opens with Ctrl+G, keys typed into its box.
    assert win.state.dataset is not None
    dlg = dialogs.case_dialog(win, win.state.dataset)
    dlg.show()
    spin(0.3)
    edit = dlg.findChild(QLineEdit)
    target = f"case-{max(0, int(os.environ.get('BENCH_CASES', '1000')) - 877):07d}"
    per_key = []
    completer = edit.completer()
    for ch in target:
        t1 = time.perf_counter()
        QTest.keyClick(edit, ch)
        app.processEvents()
        per_key.append(time.perf_counter() - t1)
    listed = completer.completionCount()
    popup = completer.popup()
    first_listed = (completer.completionModel().index(0, 0).data()
                    if listed else None)
    dlg.reject()
    if popup is not None:
        popup.hide()
    return {"reopen": reopen, "shown": shown, "gap": gap, "keys": per_key,
            "key_max": max(per_key), "key_median": sorted(per_key)[len(per_key) // 2],
            "target": target, "listed": listed, "first_listed": first_listed,
            "cases": len(win.state.dataset), "rss": rss_mb()}


def child_main(args: argparse.Namespace) -> int:
    data, folder = Path(args.data), Path(args.folder) if args.folder else None
    if args.child == "baseline":
        out = child_baseline(data)
    elif args.child == "first":
        assert folder is not None
        out = child_first(data, folder)
    else:
        assert folder is not None
        out = child_reopen(data, folder)
    print(json.dumps(out), flush=True)
    os._exit(0)  # (no teardown of a million-row window: the figures are taken)


def run_child(argv: list[str], cases: int) -> tuple[dict[str, Any], float]:
    """(JSON the child printed, its peak RSS in MB by wait4)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(HERE.parent),
               BENCH_CASES=str(cases))
    env.pop("CITEVIEW_MAX_INPUT", None)  # no flag
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err, env=env,
                                cwd=str(HERE.parent))
        assert proc.stdout is not None
        stdout = proc.stdout.read()
        proc.stdout.close()
        _, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise SystemExit(f"failed: {' '.join(argv)}\n{err.read().decode(errors='replace')}")
    lines = stdout.decode(errors="replace").strip().splitlines()
    return json.loads(lines[-1]), usage.ru_maxrss / 1024


def ensure_data(path: Path, cases: int) -> None:
    from million_data import write_dataset

    stamp = path.with_suffix(path.suffix + ".count")
    if path.exists() and stamp.exists() and stamp.read_text().strip() == str(cases):
        return
    print(f"making {cases} cases in {path} ...", flush=True)
    write_dataset(path, cases)
    stamp.write_text(str(cases))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--data", default=None, help="where the dataset is kept (/tmp/...)")
    parser.add_argument("--child", choices=("baseline", "first", "reopen"))
    parser.add_argument("--folder")
    args = parser.parse_args()
    if args.child:
        return child_main(args)
    data = Path(args.data or f"/tmp/citeview-million-{args.cases}.jsonl")
    ensure_data(data, args.cases)
    size = data.stat().st_size
    print(f"{args.cases} cases, {size / 1e6:.0f} MB ({data})", flush=True)
    me = [sys.executable, str(Path(__file__).resolve())]
    base, base_rss = run_child([*me, "--child", "baseline", "--data", str(data)], args.cases)
    with tempfile.TemporaryDirectory(prefix="bench-million-") as tmp:
        folder = Path(tmp)
        link = folder / data.name
        try:  # the session is made beside it, in the temporary folder (a symbolic link's
            os.link(data, link)  # session would go beside its target)
        except OSError:
            shutil.copy(data, link)
        first, first_rss = run_child([*me, "--child", "first", "--data", str(link),
                                      "--folder", str(folder)], args.cases)
        again, again_rss = run_child([*me, "--child", "reopen", "--data", str(link),
                                      "--folder", str(folder)], args.cases)
    rows = [
        ("first case painted", ms(first["first"]), "-", "-", "< 200 ms"),
        ("review session made", ms(first["made"]), f"json.loads {ms(base['loads'])}",
         f"{first['made'] / base['loads']:.2f}x", "<= 2x"),
        ("peak RSS, window while made", f"{first_rss:.0f} MB", f"{base_rss:.0f} MB", "-",
         "< 1024 MB"),
        ("longest 5 ms tick gap while made", ms(first["gap"]), "-", "-", "< 50 ms"),
        ("reopen: first case not done painted", ms(again["reopen"]), "-", "-", "< 500 ms"),
        ("Go to Case, per key (max)", ms(again["key_max"]),
         f"median {ms(again['key_median'])}", "-", "< 30 ms"),
        ("peak RSS, window on the session", f"{again_rss:.0f} MB", "-", "-", "< 1024 MB"),
    ]
    head = ("work", "ours", "baseline (same run)", "ratio", "target")
    widths = [max(len(r[i]) for r in [*rows, head]) for i in range(5)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    print(f"(reopened at {again['shown']!r}; Go to Case {again['target']!r} listed "
          f"{again['listed']} completions, first {again['first_listed']!r}; "
          f"reopen tick gap {ms(again['gap'])}; session of {first['cases']} cases)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""A throwaway PostgreSQL cluster for the team tests: ``initdb`` in a temporary folder, ``pg_ctl``
start, a Unix socket in that folder (no TCP port), trust authentication for local connections.

As root the cluster runs as ``nobody`` (``initdb`` and ``postgres`` refuse root). Binaries are
found with ``pg_config --bindir`` (or ``CITEVIEW_PG_BINDIR``), then the distribution's
``/usr/lib/postgresql/*/bin``. :func:`unavailable` says why there is no cluster to run; with
``CITEVIEW_REQUIRE_POSTGRES=1`` the tests fail instead of skipping.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

ADMIN = "citeview_admin"
DATABASE = "citeview"


def bindir() -> str | None:
    """The folder of ``initdb`` and ``pg_ctl``, or None."""
    candidates: list[str] = []
    if os.environ.get("CITEVIEW_PG_BINDIR"):
        candidates.append(os.environ["CITEVIEW_PG_BINDIR"])
    if shutil.which("pg_config"):
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            candidates.append(subprocess.run(["pg_config", "--bindir"], capture_output=True,
                                             text=True, check=True).stdout.strip())
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"),
                         key=lambda p: int(p.split("/")[-2]) if p.split("/")[-2].isdigit()
                         else 0, reverse=True)
    for folder in candidates:
        if os.path.exists(os.path.join(folder, "initdb")) and \
                os.path.exists(os.path.join(folder, "pg_ctl")):
            return folder
    return None


def missing(why: str) -> NoReturn:
    """Skip the test for ``why``; fail it instead under ``CITEVIEW_REQUIRE_POSTGRES=1`` (CI,
    where a skipped team test would hide that none ran)."""
    import pytest

    if os.environ.get("CITEVIEW_REQUIRE_POSTGRES") == "1":
        pytest.fail(f"CITEVIEW_REQUIRE_POSTGRES=1 but {why}", pytrace=False)
    pytest.skip(why)


def unavailable() -> str | None:
    """Why the team tests cannot run here, or None."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -e '.[team]')"
    if bindir() is None:
        return "PostgreSQL's initdb/pg_ctl not found (pg_config --bindir)"
    return None


@dataclass(slots=True)
class Cluster:
    """A running cluster: its folder (socket there), port (names the socket) and binaries."""

    folder: Path
    port: int
    bin: str
    run_as: str | None  # the unprivileged user it runs as, when started by root
    # fsync as a real server (the benchmark); the tests skip it (a crash there is a killed
    # server process, never the machine's: what was committed is in the OS's cache)
    durable: bool = False

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def conninfo(self, user: str = ADMIN, database: str = DATABASE) -> str:
        return f"host={self.folder} port={self.port} user={user} dbname={database}"

    def address(self, project: str, user: str = ADMIN) -> str:
        """A project address on this cluster (``postgresql://`` with the socket folder)."""
        return (f"postgresql://{user}@/{DATABASE}?host={self.folder}&port={self.port}"
                f"&project={project}")

    def _as_owner(self, *argv: str) -> list[str]:
        return ["runuser", "-u", self.run_as, "--", *argv] if self.run_as else list(argv)

    def pg_ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(self._as_owner(os.path.join(self.bin, "pg_ctl"), "-D",
                                             str(self.data), "-w", "-t", "60", *args),
                              capture_output=True, text=True, check=check)

    def start(self) -> None:
        opts = (f"-c listen_addresses='' -c unix_socket_directories='{self.folder}' "
                f"-c port={self.port} -c max_connections=100 -c shared_buffers=32MB"
                + ("" if self.durable else " -c fsync=off -c full_page_writes=off"))
        self.pg_ctl("-o", opts, "-l", str(self.folder / "log"), "start")

    def stop(self, mode: str = "fast") -> None:
        self.pg_ctl("-m", mode, "stop", check=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_cluster(*, durable: bool = False) -> Cluster:
    """initdb, start, create the database; the caller stops it (:func:`remove_cluster`).
    ``durable``: fsync and full-page writes on (PostgreSQL's defaults, as a real server)."""
    folder = Path(tempfile.mkdtemp(prefix="citeview-pg-"))
    run_as = "nobody" if os.geteuid() == 0 else None
    if run_as:
        shutil.chown(folder, run_as)
    os.chmod(folder, 0o755)
    found = bindir()
    assert found is not None
    cluster = Cluster(folder, _free_port(), found, run_as, durable)
    subprocess.run(cluster._as_owner(os.path.join(found, "initdb"), "-D", str(cluster.data),
                                     "-U", ADMIN, "-A", "trust", "-E", "UTF8",
                                     "--no-instructions", "--no-sync"),
                   capture_output=True, text=True, check=True)
    cluster.start()
    import psycopg

    with psycopg.connect(cluster.conninfo(database="postgres"), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {DATABASE}")
    return cluster


def remove_cluster(cluster: Cluster) -> None:
    cluster.stop("immediate")
    shutil.rmtree(cluster.folder, ignore_errors=True)

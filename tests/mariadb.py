"""A real MariaDB server for the tests, started by them: `mariadb-install-db` into a temporary
folder, `mariadbd` on a free 127.0.0.1 port with its own socket and data directory, stopped
by its pid. Never a service already running on the machine. Without the binary the tests
skip with one line, except under CI=true, where they fail (CI installs Debian's
mariadb-server)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest

MARIADBD = shutil.which("mariadbd") or next((p for p in ("/usr/sbin/mariadbd", "/usr/sbin/mysqld") if Path(p).exists()), None)
INSTALL = shutil.which("mariadb-install-db") or shutil.which("mysql_install_db")
USER, PASSWORD = "jailcore", "s3cret-pw"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def need_server() -> None:
    if MARIADBD is None or INSTALL is None:
        if os.environ.get("CI") == "true":
            pytest.fail("mariadbd is not installed, and CI must run the MariaDB tests (.ci/run installs mariadb-server)")
        pytest.skip("mariadbd is not installed (.ci/run installs Debian's mariadb-server)")


class MariaServer:
    """One server of its own; `database()` makes an empty database per test and gives its URL."""

    def __init__(self, root: Path):
        self.root = root
        self.data = root / "data"
        self.sock = root / "mariadb.sock"
        self.pidfile = root / "mariadb.pid"
        self.tmp = root / "tmp"
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    def install(self) -> None:
        assert INSTALL is not None
        # A temporary folder of its own: two installs at once in /tmp (the tests of several
        # checkouts on one machine) collided on its temporary tables and one failed.
        self.tmp.mkdir(parents=True, exist_ok=True)
        subprocess.run([INSTALL, "--no-defaults", f"--datadir={self.data}", f"--tmpdir={self.tmp}", "--auth-root-authentication-method=socket",
                        "--skip-test-db", f"--user={_me()}"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)

    def start(self) -> None:
        assert MARIADBD is not None
        self.proc = subprocess.Popen(
            [MARIADBD, "--no-defaults", f"--datadir={self.data}", f"--tmpdir={self.tmp}", f"--socket={self.sock}", f"--port={self.port}",
             "--bind-address=127.0.0.1", f"--pid-file={self.pidfile}", f"--user={_me()}", "--skip-log-bin",
             "--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=2", "--max-connections=500",
             f"--log-error={self.root / 'error.log'}", "--skip-name-resolve"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mariadbd stopped at start: {(self.root / 'error.log').read_text(errors='replace')[-800:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("mariadbd did not start within 60 s")

    def stop(self) -> None:
        """Stopped by its own pid (SIGTERM, a clean shutdown), never by name."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
            self.proc = None

    def admin(self, sql: str) -> None:
        """As the server's root over its own socket."""
        import pymysql

        db = pymysql.connect(unix_socket=str(self.sock), user="root", autocommit=True)
        try:
            with db.cursor() as cur:
                for statement in filter(None, (s.strip() for s in sql.split(";"))):
                    cur.execute(statement)
        finally:
            db.close()

    def setup_user(self) -> None:
        self.admin(f"CREATE USER IF NOT EXISTS '{USER}'@'127.0.0.1' IDENTIFIED BY '{PASSWORD}'; "
                   f"GRANT ALL ON *.* TO '{USER}'@'127.0.0.1'")

    def database(self, name: str | None = None) -> str:
        name = name or f"jc_{uuid.uuid4().hex[:10]}"
        self.admin(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci")
        return self.url(name)

    def url(self, name: str, password: str = PASSWORD) -> str:
        return f"mysql://{USER}:{password}@127.0.0.1:{self.port}/{name}"


def started(root: Path) -> MariaServer:
    """A server of a test's own (to stop, freeze or restart by its pid), up with the tests' user;
    the test stops it (`server.stop()` in its `finally`)."""
    need_server()
    server = MariaServer(root)
    server.install()
    server.start()
    try:
        server.setup_user()
    except BaseException:
        server.stop()
        raise
    return server


def _me() -> str:
    import pwd

    return pwd.getpwuid(os.getuid()).pw_name


@pytest.fixture(scope="session")
def mariadb_server():
    root = Path(tempfile.mkdtemp(prefix="jailcore-mariadb-"))
    server = started(root)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def mariadb(mariadb_server: MariaServer) -> str:
    """The URL of an empty database of its own on the tests' server."""
    return mariadb_server.database()

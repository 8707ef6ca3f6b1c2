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
STARTUP = 600.0  # seconds an install, a start or a stop may take before the test fails: ends as soon as it is done


class Refused(RuntimeError):
    """mariadbd ended at its start; `port_taken`: for want of its port."""

    def __init__(self, message: str, port_taken: bool):
        super().__init__(message)
        self.port_taken = port_taken


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
        # Its output kept, so a failure says why. A wide margin: it writes and syncs the system tables, seconds
        # alone, minutes on a loaded 2-core box whose disk other tests sync too; it returns as soon as it is done.
        with (self.root / "install.log").open("wb") as out:
            done = subprocess.run([INSTALL, "--no-defaults", f"--datadir={self.data}", f"--tmpdir={self.tmp}", "--auth-root-authentication-method=socket",
                                   "--skip-test-db", f"--user={_me()}"], stdout=out, stderr=subprocess.STDOUT, timeout=STARTUP)
        if done.returncode != 0:
            raise RuntimeError(f"mariadb-install-db failed ({done.returncode}): {(self.root / 'install.log').read_text(errors='replace')[-800:]}")

    def start(self) -> None:
        """Up once root logs in over its socket and is answered: the TCP port alone listens (and takes
        connections into its queue) before the server serves them, and its socket comes after it, so
        a test's first statement could fail right after a start. The port is its own: chosen free, and
        taken by another process meanwhile only at the first start (`started` then picks another)."""
        assert MARIADBD is not None
        log = self.root / "error.log"
        told = log.stat().st_size if log.exists() else 0  # this start's lines, not an earlier start's
        self.proc = subprocess.Popen(
            [MARIADBD, "--no-defaults", f"--datadir={self.data}", f"--tmpdir={self.tmp}", f"--socket={self.sock}", f"--port={self.port}",
             "--bind-address=127.0.0.1", f"--pid-file={self.pidfile}", f"--user={_me()}", "--skip-log-bin",
             "--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=2", "--max-connections=500",
             f"--log-error={log}", "--skip-name-resolve"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                said = log.read_bytes()[told:].decode(errors="replace") if log.exists() else ""
                self.proc = None
                raise Refused(f"mariadbd stopped at start: {said[-800:]}", port_taken="Address already in use" in said)
            if self.answers():
                return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"mariadbd did not answer within {STARTUP:.0f} s of its start")

    def answers(self) -> bool:
        import pymysql

        if not self.sock.exists():
            return False
        try:
            pymysql.connect(unix_socket=str(self.sock), user="root", connect_timeout=10, read_timeout=30).close()
        except pymysql.err.OperationalError:
            return False
        return True

    def stop(self) -> None:
        """Stopped by its own pid (SIGTERM, a clean shutdown), never by name."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(STARTUP)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(60)
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
    for tries in range(1, 4):
        try:
            server.start()
            break
        except Refused as exc:  # its free port was taken between our look and its bind: another
            if not exc.port_taken or tries == 3:
                raise
            server.port = free_port()
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

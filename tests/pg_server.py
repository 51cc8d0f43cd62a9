"""A real PostgreSQL server for the tests (and scripts/bench_remote.py), started from the installed
binaries in a temporary folder on a free loopback port, and stopped at the end.

PostgreSQL refuses to run as root, and CI runs as root: there the data folder is made in /tmp (not
under pytest's root-only tmp folders, which the `postgres` user cannot enter), handed to the
`postgres` user, and `initdb`/`pg_ctl` run through `runuser` from inside that folder (the caller's
working directory may be one the `postgres` user cannot enter, such as /root). Binaries are found
on PATH, else under /usr/lib/postgresql/*/bin (Debian's layout). Any failure raises ServerError with the server's own
log: a suite that needs PostgreSQL fails when it cannot start one, it never skips.

The server trusts local socket connections and asks for a password over TCP (scram-sha-256), so the
tests can check that a password in a store address never reaches output. Durability settings are
off (fsync, full-page writes): a test database is thrown away, and this keeps CREATE DATABASE fast.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator
from urllib.parse import quote

SUPERUSER = "postgres"


class ServerError(RuntimeError):
    """PostgreSQL could not be started or used; the message says why and carries its log."""


def find_binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), key=_version_key, reverse=True)
    if candidates:
        return candidates[0]
    raise ServerError(
        f"PostgreSQL's `{name}` is not on PATH nor under /usr/lib/postgresql/*/bin: install the server "
        "(Debian/Ubuntu: apt-get install postgresql) to run the PostgreSQL store tests"
    )


def _version_key(path: str) -> tuple[int, ...]:
    version = Path(path).parent.parent.name
    return tuple(int(part) for part in version.split(".") if part.isdigit()) or (0,)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Server:
    """One running PostgreSQL cluster."""

    folder: Path          # holds data/, the socket and the log
    port: int
    password: str         # of the superuser, asked for over TCP
    run_as: str | None    # the user the server runs as when we are root

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def log(self) -> Path:
        return self.folder / "server.log"

    def url(self, database: str = "postgres", *, password: bool = True) -> str:
        """A TCP address of `database` (with the password unless told otherwise)."""
        secret = f":{quote(self.password, safe='')}" if password else ""
        return f"postgresql://{SUPERUSER}{secret}@127.0.0.1:{self.port}/{database}"

    def socket_url(self, database: str = "postgres") -> str:
        """A socket address (trusted, no password)."""
        return f"postgresql://{SUPERUSER}@/{database}?host={quote(str(self.folder), safe='')}&port={self.port}"

    def _ctl(self, *args: str, timeout: float = 120) -> None:
        command = [find_binary("pg_ctl"), "-D", str(self.data), "-l", str(self.log), *args]
        done = subprocess.run(self._as_owner(command), capture_output=True, text=True, timeout=timeout,
                              cwd=self.folder)
        if done.returncode != 0:
            raise ServerError(f"pg_ctl {' '.join(args[:2])} failed ({done.returncode}): {done.stderr.strip()}\n"
                              f"server log:\n{self.log_text()}")

    def _as_owner(self, command: list[str]) -> list[str]:
        return ["runuser", "-u", self.run_as, "--", *command] if self.run_as else command

    def log_text(self) -> str:
        try:
            return self.log.read_text(errors="replace")[-4000:]
        except OSError:
            return "(no log)"

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
                   "-c full_page_writes=off -c synchronous_commit=off -c max_connections=200")
        self._ctl("-w", "-t", "120", "-o", options, "start")

    def stop(self) -> None:
        self._ctl("-w", "-t", "120", "-m", "fast", "stop")

    def is_running(self) -> bool:
        done = subprocess.run(self._as_owner([find_binary("pg_ctl"), "-D", str(self.data), "status"]),
                              capture_output=True, text=True, cwd=self.folder)
        return done.returncode == 0

    def psql(self, sql: str, database: str = "postgres") -> str:
        """Run SQL over the trusted socket as the superuser (no psycopg needed)."""
        command = [find_binary("psql"), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-h", str(self.folder),
                   "-p", str(self.port), "-U", SUPERUSER, "-d", database, "-c", sql]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise ServerError(f"psql failed: {done.stderr.strip()}")
        return done.stdout.strip()

    def create_database(self, prefix: str = "wtc") -> str:
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self.psql(f'CREATE DATABASE "{name}"')
        return name


def start_server() -> Server:
    """initdb + start in a fresh folder; the caller stops it (`stop_server`)."""
    initdb = find_binary("initdb")
    run_as = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(SUPERUSER)
        except KeyError:
            raise ServerError("running as root, and there is no `postgres` user to run PostgreSQL as "
                              "(it refuses to run as root): create one (useradd -r postgres) or run as "
                              "another user") from None
        run_as = SUPERUSER
    folder = Path(tempfile.mkdtemp(prefix="wtc-pg-", dir="/tmp"))
    folder.chmod(0o700)
    if run_as:
        owner = pwd.getpwnam(run_as)
        os.chown(folder, owner.pw_uid, owner.pw_gid)
    server = Server(folder=folder, port=free_port(), password=f"pw-{uuid.uuid4().hex}", run_as=run_as)
    secret = folder / "pwfile"
    secret.write_text(server.password + "\n")
    if run_as:
        os.chown(secret, pwd.getpwnam(run_as).pw_uid, -1)
    done = subprocess.run(server._as_owner([initdb, "-D", str(server.data), "-U", SUPERUSER, "--auth-local=trust",
                                            "--auth-host=scram-sha-256", f"--pwfile={secret}", "-E", "UTF8",
                                            "--no-instructions"]),
                          capture_output=True, text=True, timeout=300, cwd=folder)
    secret.unlink()
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise ServerError(f"initdb failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    for attempt in range(3):  # the free port may be taken between the probe and the start
        try:
            server.start()
            return server
        except ServerError:
            if attempt == 2:
                log = server.log_text()
                shutil.rmtree(folder, ignore_errors=True)
                raise ServerError(f"PostgreSQL did not start on 127.0.0.1:{server.port}; server log:\n{log}") from None
            server.port = free_port()
    raise AssertionError("unreachable")


def stop_server(server: Server) -> None:
    with contextlib.suppress(ServerError):
        if server.is_running():
            server.stop()
    shutil.rmtree(server.folder, ignore_errors=True)


@contextlib.contextmanager
def running_server() -> Iterator[Server]:
    server = start_server()
    try:
        yield server
    finally:
        stop_server(server)

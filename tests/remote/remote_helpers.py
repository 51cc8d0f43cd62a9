"""Machines sharing a git remote: a bare repository served by a real `git daemon` (receive-pack on)
on a free loopback port, and clones of it standing for machines (each its own folder and HOME).

The daemon is a real transport: fetches and pushes cross a TCP socket, so a stopped daemon is a
network outage the way a sandbox sees one (connection refused)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.conftest import GIT_ENV, git, wtc
from tests.pg_server import free_port


class GitDaemon:
    """`git daemon` serving every repository under `root` (push enabled) on 127.0.0.1:port."""

    def __init__(self, root: Path, port: int | None = None):
        self.root = root
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def start(self) -> None:
        log = open(self.root.parent / f"git-daemon-{self.port}.log", "ab")
        self.process = subprocess.Popen(
            ["git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack", "--informative-errors",
             f"--base-path={self.root}", "--listen=127.0.0.1", f"--port={self.port}", str(self.root)],
            stdout=log, stderr=log, env=dict(os.environ, **GIT_ENV), start_new_session=True)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError(f"git daemon did not start on port {self.port}: "
                           f"{(self.root.parent / f'git-daemon-{self.port}.log').read_text()}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)   # the daemon and the children serving requests
            self.process.wait(timeout=15)
        self.process = None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:   # until nothing answers on the port
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", self.port)) != 0:
                    return
            time.sleep(0.05)


@dataclass(eq=False)
class Machine:
    """One clone of the remote with its own HOME: what one sandbox holds."""

    name: str
    repo: Path
    home: Path
    env: dict[str, str] = field(default_factory=dict)

    def wtc(self, *args: str, timeout: float = 120, **extra: str) -> tuple[int, dict]:
        return wtc(self.repo, *args, env=self.env | extra, timeout=timeout)

    def git(self, *args: str) -> str:
        return git(self.repo, *args)


def serve(tmp_path: Path, source: Path) -> tuple[GitDaemon, str]:
    """A bare copy of `source` as `repo.git` under a served folder; returns the daemon and its URL."""
    served = tmp_path / "served"
    served.mkdir()
    git(tmp_path, "clone", "-q", "--bare", str(source), str(served / "repo.git"))
    bare = served / "repo.git"
    git(bare, "config", "uploadpack.allowFilter", "true")          # partial clones
    git(bare, "config", "uploadpack.allowAnySHA1InWant", "true")    # a pin fetched by its id (protocol v0 too)
    daemon = GitDaemon(served)
    daemon.start()
    return daemon, daemon.url("repo.git")


def machine(tmp_path: Path, name: str, url: str, store: str, *, partial: bool = False) -> Machine:
    """A clone of `url` in its own folder with its own HOME, wired to the shared store `store`."""
    root = tmp_path / name
    home = root / "home"
    home.mkdir(parents=True)
    args = ["clone", "-q"] + (["--filter=blob:none", "--no-checkout"] if partial else []) + [url, str(root / "repo")]
    git(root, *args)
    repo = root / "repo"
    if partial:
        git(repo, "sparse-checkout", "set", "--cone")   # the main checkout: root files only
        git(repo, "checkout", "-q", "main")
    return Machine(name, repo, home, {"HOME": str(home), "WTC_STORE": store, "XDG_CONFIG_HOME": str(home / ".config")})


def remote_tip(bare: Path, ref: str) -> str | None:
    done = subprocess.run(["git", "rev-parse", "--verify", "-q", ref], cwd=bare, capture_output=True, text=True)
    return done.stdout.strip() or None


def cleanup(daemon: GitDaemon) -> None:
    daemon.stop()
    shutil.rmtree(daemon.root, ignore_errors=True)

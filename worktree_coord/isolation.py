"""Network isolation: the one place that decides how a command wtc starts for a task reaches the network.

Stage: below every spawner (the coordinator's verification gate and worktree setup command, fanout's
agents, `wtc task exec`). Input: the run's network setting (`isolated` or `shared`) and a command
(argv, or a shell string). Output: a `Spawn` whose `argv`/`shell` give the command line to hand to
`subprocess`, unchanged in everything but the network: the same process (the helper execs the
command in place, so its pid, process group, session, environment, working folder and exit code
are the command's own), only in a network namespace of its own with its loopback up. A test suite
that binds 127.0.0.1:8000 then binds it in every task at once.

How (Linux): a small Python helper (`sys.executable -I -S -c HELPER`, no import of this package)
calls `unshare(CLONE_NEWNET)` (root), or `unshare(CLONE_NEWUSER | CLONE_NEWNET)` with the caller's
own uid and gid mapped (everyone else, where the kernel allows user namespaces), brings `lo` up with
an ioctl, then execs the command. Python 3.11 has no `os.unshare`, and a `preexec_fn` is unsafe in
fanout's threaded runner, hence a helper process that execs rather than code run in the child.

Invariants:
- support is probed once per process (one helper run of `/bin/true`), cached, and never silently
  lost: a run asking `isolated` on a machine that cannot gets `shared` with a one-line note
  (`Spawn.note`) that every result carrying the spawn repeats;
- an isolated command has a loopback of its own and no other interface: nothing it binds is seen by
  another task, and it reaches nothing outside (no DNS, no internet: docs/configuration.md);
- a helper that cannot isolate a command after the probe said it could exits 125 (the convention
  of `env`/`timeout` for "the wrapper failed") with one line on stderr, never runs it shared.
"""

from __future__ import annotations

import enum
import os
import sys
import threading
from typing import Any, Sequence

from .errors import UsageError
from .frozen import value_class

HELPER_FAILED = 125   # the helper's own exit code: it could not isolate (the command never ran)

# The helper, run as `python -I -S -c HELPER COMMAND...`. Self-contained (standard library only, no
# site): it is started once per command, so it must start fast.
HELPER = r"""
import _socket, ctypes, fcntl, os, struct, sys
NEWNET, NEWUSER = 0x40000000, 0x10000000
libc = ctypes.CDLL(None, use_errno=True)
uid, gid = os.geteuid(), os.getegid()
def fail(what):
    sys.stderr.write("wtc: network isolation failed: " + what + "\n")
    sys.exit(125)
def unshare(flags):
    return libc.unshare(flags) == 0 or ctypes.get_errno()
if uid != 0 or unshare(NEWNET) is not True:   # root needs no user namespace (unless a policy forbids it)
    error = unshare(NEWUSER | NEWNET)
    if error is not True:
        fail("unshare: " + os.strerror(error))
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)),
                           ("gid_map", "%d %d 1" % (gid, gid))):
            with open("/proc/self/" + name, "w") as f:
                f.write(text)
    except OSError as e:
        fail("user namespace map: " + str(e))
try:
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)   # not `socket`: it imports enum, selectors
    got = fcntl.ioctl(s.fileno(), 0x8913, struct.pack("16sH22x", b"lo", 0))
    flags = struct.unpack("16sH22x", got)[1]
    fcntl.ioctl(s.fileno(), 0x8914, struct.pack("16sH22x", b"lo", flags | 1))
    s.close()
except OSError as e:
    fail("loopback up: " + str(e))
argv = sys.argv[1:]
try:
    os.execvp(argv[0], argv)
except OSError as e:
    sys.stderr.write("wtc: cannot run %s: %s\n" % (argv[0], e.strerror))
    sys.exit(127 if isinstance(e, FileNotFoundError) else 126)
"""


class NetworkMode(str, enum.Enum):
    """A run's network: `isolated` (each command wtc starts has its own loopback) or `shared` (the host's)."""

    ISOLATED = "isolated"
    SHARED = "shared"

    @classmethod
    def parse(cls, value: "NetworkMode | str") -> "NetworkMode":
        try:
            return cls(value)
        except ValueError:
            raise UsageError(f"network {value!r} is not one of isolated, shared",
                             fix='pass --network isolated|shared (or network = "shared" in the config)') from None


@value_class
class Support:
    """Whether this machine isolates: `ok`, else `why` not (one phrase)."""

    ok: bool
    why: str = ""


_support: Support | None = None
_support_lock = threading.Lock()


def isolation_support() -> Support:
    """Whether this process can start commands in a network namespace of their own: probed once (a
    helper run of `true`), then cached for the process's life."""
    global _support
    with _support_lock:
        if _support is None:
            _support = _probe()
        return _support


def _probe() -> Support:
    import subprocess
    if not sys.platform.startswith("linux"):
        return Support(False, f"network namespaces are Linux only (this is {sys.platform})")
    try:
        done = subprocess.run([sys.executable, "-I", "-S", "-c", HELPER, "true"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Support(False, f"the probe did not run ({error})")
    if done.returncode == 0:
        return Support(True)
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    why = said[-1].removeprefix("wtc: network isolation failed: ") if said else f"the probe exited {done.returncode}"
    if "unshare" in why and os.geteuid() != 0:
        why += " (user namespaces are off here: kernel.unprivileged_userns_clone, user.max_user_namespaces, or an " \
               "AppArmor/container policy)"
    return Support(False, why)


@value_class
class Spawn:
    """How the commands of one run start. `asked`: the run's setting; `isolated`: what this process
    does (False when asked `shared`, or when the machine cannot: then `note` says why)."""

    asked: NetworkMode
    isolated: bool
    note: str | None = None

    def argv(self, argv: Sequence[str]) -> list[str]:
        """`argv` as it is started: inside the helper when isolated, as it is otherwise."""
        command = list(argv)
        if not command:
            raise ValueError("an empty command")
        return [sys.executable, "-I", "-S", "-c", HELPER, *command] if self.isolated else command

    def shell(self, command: str) -> list[str]:
        """A shell command line (what `shell=True` runs) as an argv for `subprocess` without a shell."""
        return self.argv(["/bin/sh", "-c", command])

    @property
    def network(self) -> str:
        """What the command gets: `isolated` or `shared`."""
        return (NetworkMode.ISOLATED if self.isolated else NetworkMode.SHARED).value

    def to_json(self) -> dict[str, Any]:
        return {"network": self.network, "asked": self.asked.value} | ({"note": self.note} if self.note else {})


def spawn_for(mode: NetworkMode | str) -> Spawn:
    """The `Spawn` for a run whose network setting is `mode`, on this machine."""
    asked = NetworkMode.parse(mode)
    if asked is NetworkMode.SHARED:
        return Spawn(asked, False)
    support = isolation_support()
    if support.ok:
        return Spawn(asked, True)
    return Spawn(asked, False, f"network isolation unavailable: {support.why}; tasks share the host network, "
                               "use the port block in .wtc/env")

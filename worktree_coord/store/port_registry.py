"""Port blocks leased across the machine: one registry per user, so two repositories on one machine
never hand out the same ports.

Stage: under `task start`'s worktree preparation (coordinator/worktree_setup.py), beside the
repository's own store, which records each task's block (`wtc status` shows it) and keeps the
tasks of that store apart. Input: a holder (its store, run, task and worktree) and a range of ports.
Output: the range claimed for the holder, or the answer that a live task of another store holds it.

Where: the folder `ports/` in the user's state folder (`config.user_state_dir()`: `$WTC_STATE_DIR`,
else `$XDG_STATE_HOME/worktree-coord`, else `~/.local/state/worktree-coord`). A lease is one small
file (its holder's store, run, task, worktree, range and a random claim token) with one name per
port it holds, `ports/<port>`, all hard links of that file. A start claims a range by linking the
file at each of its ports (link(2) fails when the name exists, so two claims of one port cannot
both succeed): no machine-wide lock and no walk, whatever the number of repositories, stores and
leases on the machine. A claim that meets a held port undoes its own links (in the order made:
claims go up the port line, so of two claims racing for overlapping ranges one always wins).

Lease rules (the store's own for its blocks): a range is held while its task holds it in its own
store (`TaskState.holds_ports`: live, i.e. started, rejected or conflict, or finished and waiting for
its merge, which may conflict and bring the task back to its agent, whose servers may still bind
the range, or failed its verification, which `task update` brings back alike). A lease is released (its names unlinked) when its task ends (merged, empty, abandoned:
`_drop_worktree` with `ended`) or its start rolled back, not when a finish drops the worktree. A
leftover (a start or finish killed midway) is reclaimed only when a claim meets it: its store is
asked then. A port's name that does not read as a lease (a torn write: a full disk, a power cut) is
never a claim at work, since a claim links its file only once written whole; once older than
UNREADABLE_LEASE_SECONDS it is a leftover too, reclaimed by the claim that meets it and by `wtc gc`
(younger, it is kept: it may be the claim of another version writing another way). A lease
whose store is gone, or whose task is no longer live there (it ended, or its start was rolled
back), is reclaimed. A task of a PostgreSQL store, which this registry cannot read (its password is
never written here), holds its range while its worktree exists. A store that cannot be read says
nothing: its lease is kept (a block never handed out twice matters more than one kept too long).
A lease of the claimer's own store at a block that store finds free is a leftover: the store's
allocation runs in its own write transaction, so no other start of that store claims meanwhile.

Cost: a claim whose range is free is one small file written, one link per port and one unlink,
whatever else the machine holds. A claim that meets another holder's lease reads it (one file)
and asks its store once per claim (its live tasks, a read-only open); what was read is kept in
`ports/.seen.json` (one file for every store) with the store's mark (its SQLite file's and WAL's
size and modification time) and trusted while the mark has not moved, so a store whose tasks
cannot have changed is not opened again. So a start pays for the live leases of other repositories below the block it gets, not for
ended tasks (released, or reclaimed once) nor for the number of stores on the machine. A leftover
met is read once, not once a port (its names are one file), and a gone store's by a stat of its
store, nothing opened. `wtc gc`, the one walk of the folder, reads one name of each lease (the
walk gives each name's inode), judges each store once the same way (trusting `.seen.json`), and
removes the leftovers under one taking of the lock: its cost grows with the leases, not the names,
and no store is opened twice.

Removals take an flock of `ports.lock` (a release, a reclaim, the migration below): each checks,
under the lock, that the name still holds the very lease it means to remove (by its claim token,
read from one of its names and that file kept open, so its inode cannot be reused meanwhile: a
name linking that inode is that lease), so a reclaim never removes a lease claimed since. The kernel drops the lock when its holder dies,
so a killed process never leaves the registry locked; a start that finds every port it wants free
never takes it.

Upgrade: a `ports.json` left by an earlier version (one file rewritten whole under that lock) is
read once, under the lock, by the first claim that finds it: its live entries (by the rules above)
become lease files, and it is renamed `ports.json.migrated`, so a swarm upgraded while it runs
hands out no block twice.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Iterable, Sequence

from .. import filelock
from ..config import user_state_dir
from ..frozen import value_class
from ..model import TaskState

LEASES_FOLDER = "ports"
LOCK_FILE = "ports.lock"
SEEN_FILE = ".seen.json"              # other stores' live tasks as last read, by the store's mark
REGISTRY_FILE = "ports.json"          # an earlier version's registry, migrated once (see the docstring)
MIGRATED_SUFFIX = ".migrated"
SCHEMA = "wtc.port-lease/1"
STALE_TEMPORARY_SECONDS = 3600.0      # a claim's unlinked temporary file older than this is a killed claim's
UNREADABLE_LEASE_SECONDS = 600.0      # a port's name that reads as no lease, this old, is a torn write's leftover
# The states in which a task holds its block (`TaskState.holds_ports`): live, finished and waiting
# for its merge, which may conflict and bring it back with its block, or failed its verification.
_LIVE = tuple(state.value for state in TaskState if state.holds_ports)


@value_class
class PortLease:
    """One task's range of ports: `first`..`last` (inclusive), held for `task` of `run` in the store
    at `store` (its location: a SQLite file, or a PostgreSQL address without its password)."""

    store: str
    run: str
    task: str
    worktree: str
    first: int
    last: int

    def holds(self, store: str, run: str, task: str) -> bool:
        return (self.store, self.run, self.task) == (store, run, task)

    def overlaps(self, first: int, last: int) -> bool:
        return self.first <= last and first <= self.last


@value_class
class _Found:
    """A lease as read at one port's name: the lease and its claim token."""

    lease: PortLease
    token: str


def leases_folder() -> Path:
    return user_state_dir() / LEASES_FOLDER


def registry_path() -> Path:
    """The earlier version's registry file (read once, then renamed)."""
    return user_state_dir() / REGISTRY_FILE


class PortClaim:
    """One holder's claims during one allocation: `claim` a range (the store's allocation asks block
    after block), `undo` the last claim (a block found unusable afterwards), `done` when the store
    recorded the block (the temporary file goes). `timeout`: how long a removal waits for the lock."""

    def __init__(self, store: str, run: str, task: str, worktree: str, *, timeout: float) -> None:
        self.store, self.run, self.task, self.worktree = store, run, task, worktree
        self.timeout = timeout
        self.folder = leases_folder()
        self._prefix = f"{self.folder}{os.sep}"   # names joined as strings: pathlib costs more than the link
        self.claimed: PortLease | None = None       # the last range claimed by this object, not yet undone
        self._claimed_new: list[int] = []           # the ports whose names that claim made
        self._temporary: str | None = None
        self._token = ""
        self._stores = _Stores(self.folder)       # other stores' live tasks, each read once a claim
        os.makedirs(self.folder, exist_ok=True)
        _migrate_if_needed(self.folder.parent, timeout)

    def claim(self, first: int, last: int) -> str | None:
        """Claim `first`..`last` for the holder: "new" when claimed now, "own" when the holder held
        exactly this range already (a re-created worktree), None when a live task of another store
        holds a port of it (nothing of this call's is left in the range then)."""
        lease = PortLease(store=self.store, run=self.run, task=self.task, worktree=self.worktree, first=first,
                          last=last)
        if self._met_holder(lease):
            return None
        source = self._source(lease)
        linked: list[int] = []
        own = 0
        port = first
        attempts = 0
        while port <= last:
            name = f"{self._prefix}{port}"
            try:
                os.link(source, name)
                linked.append(port)
                port += 1
                continue
            except FileExistsError:
                pass
            found = _read_lease(Path(name))
            if found is not None and found.lease == lease:
                own += 1           # this holder's, from an earlier start of the task: kept as it is
                port += 1
                continue
            attempts += 1
            if attempts <= 2 * (last - first + 1) + 2 and (
                    (found is not None and not self._held(found.lease))
                    or (found is None and _remove_unreadable(self.folder, port, self.timeout))):
                if found is not None:
                    _remove(self.folder, found, self.timeout)
                continue           # link again (another claim may have taken the name meanwhile)
            self._unlink(linked)
            return None
        self.claimed = lease
        self._claimed_new = linked
        return "own" if own == last - first + 1 else "new"

    def _met_holder(self, lease: PortLease) -> bool:
        """Whether a port of `lease`'s range is named already by a lease that still holds, looked at
        before anything is written (a start asks block after block, and a machine's other live
        tasks may fill the first blocks): an open a port, a read and a judgement a lease met. Only a
        shortcut: the links decide, should a claim come in between."""
        leftovers: dict[str, _Found] = {}
        port = lease.first
        while port <= lease.last:
            found = _read_lease_at(f"{self._prefix}{port}")    # one open: no stat first, no pathlib
            port += 1
            if found is None or found.lease == lease:
                continue
            if self._held(found.lease):
                return True
            # A leftover names each port of its range: read once, not once a port (its names past
            # this one are the same file), and reclaimed here, so the links below find them free.
            leftovers[found.token] = found
            port = max(port, found.lease.last + 1)
        if leftovers:
            with _lock(self.folder.parent, self.timeout):
                for found in leftovers.values():
                    _remove_locked(self.folder, found)
        return False

    def undo(self) -> None:
        """Give back the last claim's names made by this object (an own earlier lease stays)."""
        if self.claimed is not None:
            self._unlink(self._claimed_new)
            self.claimed = None

    def done(self) -> None:
        """The claim is recorded by the store (or abandoned): the temporary name goes, and what this
        claim read of other stores is kept for the next."""
        self._stores.save()
        if self._temporary is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self._temporary)
            self._temporary = None

    def _source(self, lease: PortLease) -> str:
        """The lease's file, written whole under a temporary name before any port's name links it,
        so a reader of `ports/<port>` never sees half a lease."""
        self.done()
        self._token = os.urandom(8).hex()
        temporary = f"{self._prefix}.claim-{os.getpid()}-{self._token}.tmp"
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            os.write(descriptor, (json.dumps({"schema": SCHEMA, **vars(lease), "token": self._token},
                                             separators=(",", ":")) + "\n").encode())
        finally:
            os.close(descriptor)
        self._temporary = temporary
        return temporary

    def _unlink(self, ports: Iterable[int]) -> None:
        # Names this call linked a moment ago: nobody removes a live claimer's lease (its task is live,
        # or its store's transaction is still open), so they are still this call's.
        for port in ports:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{self._prefix}{port}")

    def _held(self, lease: PortLease) -> bool:
        """Whether `lease` (another holder's) still holds its range (the module docstring's rules)."""
        if lease.store == self.store:
            if lease.run == self.run and lease.task == self.task:
                return False   # the holder's own earlier range (another size, another block): replaced
            # The store found this block free of its live tasks, in its own write transaction.
            return False
        return self._stores.held(lease)


class _Stores:
    """Whether other stores' leases still hold, each store asked at most once (a claim's, or a
    gc's): a PostgreSQL task by its worktree, a gone store's by one stat (nothing opened), a SQLite
    store by its live tasks, read once (`live_tasks`) however many of its leases are met."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._exists: dict[str, bool] = {}
        self._live: dict[str, set[tuple[str, str]] | None] = {}   # store -> its live tasks (None: unreadable)
        self._seen: dict[str, dict[str, object]] | None = None      # `ports/.seen.json`, read on first need
        self._updates: dict[str, dict[str, object]] = {}

    def held(self, lease: PortLease) -> bool:
        if "://" in lease.store:
            return lease_held(lease)
        if lease.store not in self._exists:
            self._exists[lease.store] = os.path.isfile(lease.store)
        if not self._exists[lease.store]:
            return False              # the repository (or its store) is gone: nothing of it runs
        if lease.store not in self._live:
            self._live[lease.store] = self.live_tasks(lease.store)
        live = self._live[lease.store]
        return live is None or (lease.run, lease.task) in live

    def live_tasks(self, store: str) -> set[tuple[str, str]] | None:
        """The live tasks of the SQLite store `store` (None: it cannot be read). Kept in
        `ports/.seen.json` with the store's mark (`_store_mark`) when read (written back by `save`):
        a store whose mark has not moved since is not opened again (a machine whose other
        repositories' live tasks sit below the block a start gets meets them at every start; their
        stores mostly idle). One file for every store: one read a claim, however many it meets."""
        if self._seen is None:
            self._seen = _read_seen(self.folder / SEEN_FILE)
        mark = _store_mark(store)          # taken before the read: a write during it moves the mark
        entry = self._seen.get(store)
        if mark is not None and isinstance(entry, dict) and entry.get("mark") == mark:
            with contextlib.suppress(TypeError, ValueError):
                return {(str(run), str(task)) for run, task in entry["live"]}  # type: ignore[union-attr,attr-defined]
        from .sqlite import live_tasks_at

        live = live_tasks_at(store, _LIVE)
        if live is not None and mark is not None:
            self._updates[store] = self._seen[store] = {"mark": mark, "live": sorted(live)}
        return live

    def save(self) -> None:
        if self._updates:
            _write_seen(self.folder / SEEN_FILE, self._updates)
            self._updates = {}


def _read_seen(path: Path) -> dict[str, dict[str, object]]:
    try:
        stores = json.loads(path.read_bytes())["stores"]
        return stores if isinstance(stores, dict) else {}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def _write_seen(path: Path, updates: dict[str, dict[str, object]]) -> None:
    """Merge `updates` into the file (read again first, so another claim's entries mostly stay; one
    lost to a race costs a store read, never a wrong answer: each entry carries its mark)."""
    stores = _read_seen(path) | updates
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with contextlib.suppress(OSError):
        temporary.write_text(json.dumps({"stores": stores}, separators=(",", ":")))
        temporary.replace(path)


def _store_mark(store: str) -> list[int] | None:
    """What changes whenever a SQLite store is written: its file's and its WAL's size and
    modification time (a WAL-mode write appends to the WAL; a checkpoint rewrites the file, and a
    WAL started again after one is written with a new time)."""
    mark: list[int] = []
    for name in (store, store + "-wal"):
        try:
            info = os.stat(name)
        except FileNotFoundError:
            mark += [-1, -1]
            continue
        except OSError:
            return None
        mark += [info.st_size, info.st_mtime_ns]
    return mark


def lease_held(lease: PortLease) -> bool:
    """Whether another store's `lease` is still held: its task live in its store, a PostgreSQL task's
    worktree still there, or its store unreadable."""
    if "://" in lease.store:      # PostgreSQL: its worktree says whether the task still runs here
        return Path(lease.worktree).exists()
    if not Path(lease.store).is_file():
        return False              # the repository (or its store) is gone: nothing of it runs
    from .sqlite import task_states_at

    states = task_states_at(lease.store, [(lease.run, lease.task)])
    if states is None:
        return True
    return states.get((lease.run, lease.task)) in _LIVE


def release(store: str, run: str, task: str, first: int, last: int, *, timeout: float) -> None:
    """Unlink the holder's names in `first`..`last` (its task's worktree is gone, or its start rolled
    back). Nothing to do, and no lock taken, when no name there is the holder's."""
    release_many(store, [(run, task, first, last)], timeout=timeout)


def release_many(store: str, blocks: Sequence[tuple[str, str, int, int]], *, timeout: float) -> None:
    """`release` of several holders' ranges, (run, task, first, last) each (the tasks one drain
    merged), under one taking of the lock; no lock when no name of them is its holder's."""
    folder = leases_folder()
    try:
        # Names looked up relative to the folder's descriptor: a drain of 200 tasks stats and unlinks
        # 2,000 names, and a path built and resolved from the root for each cost more than the call.
        where = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except FileNotFoundError:
        return    # no lease recorded on this machine: nothing to give back
    try:
        if not any(_holders_names(where, store, *block) for block in blocks):
            return
        with _lock(folder.parent, timeout):
            for block in blocks:
                for port in _holders_names(where, store, *block):   # again, under the lock
                    try:
                        os.unlink(str(port), dir_fd=where)
                    except FileNotFoundError:
                        pass
    finally:
        os.close(where)


def _holders_names(where: int, store: str, run: str, task: str, first: int, last: int) -> list[int]:
    """The ports in `first`..`last` whose name (in the leases folder open as `where`) holds the lease
    of (store, run, task). A lease's names are links of one file: each file is read once, from the
    first of its names met, and kept open while the others are told by their inode (an open file's
    inode cannot be reused), so a range costs one read and a stat a port, not a read a port."""
    held: dict[tuple[int, int], bool] = {}
    opened: list[int] = []
    mine: list[int] = []
    try:
        for port in range(first, last + 1):
            name = str(port)
            try:
                status = os.stat(name, dir_fd=where)
            except OSError:
                continue
            key = (status.st_dev, status.st_ino)
            if key not in held:
                try:
                    descriptor = os.open(name, os.O_RDONLY, dir_fd=where)
                except OSError:
                    continue
                opened.append(descriptor)
                status = os.fstat(descriptor)   # the file read (the name may link another since the stat)
                key = (status.st_dev, status.st_ino)
                found = _read_lease_from(descriptor)
                held[key] = found is not None and found.lease.holds(store, run, task)
            if held[key]:
                mine.append(port)
    finally:
        for descriptor in opened:
            os.close(descriptor)
    return mine


def recorded_leases(state: Path | None = None) -> list[PortLease]:
    """Every lease recorded on the machine (each once, by first port), stale ones too: a walk of
    the folder, for `wtc gc` and for reading the registry as a whole. `state`: another user state
    folder than this process's."""
    folder = (state if state is not None else user_state_dir()) / LEASES_FOLDER
    found: dict[str, PortLease] = {}
    if folder.is_dir():
        for entry in os.scandir(folder):
            if not entry.name.startswith("."):
                lease = _read_lease(Path(entry.path))
                if lease is not None:
                    found.setdefault(lease.token, lease.lease)
    return sorted(found.values(), key=lambda lease: lease.first)


def reclaim_leftovers(*, timeout: float) -> int:
    """Remove every lease no longer held (`lease_held`) and killed claims' temporary files: `wtc gc`'s
    sweep, the one walk of the folder. Returns how many leases went.

    Cost: one read a lease, not one a port (a lease's names are hard links of one file: the walk
    gives each name's inode, and one name of each is read); a lease of a gone store is judged by a
    stat of its store, nothing opened; a live store is asked once, however many of its leases
    there are, and not at all while its mark has not moved since a claim or gc read it
    (`ports/.seen.json`). The leftovers found go under one taking of the lock."""
    folder = leases_folder()
    if not folder.is_dir():
        return 0
    now = time.time()
    by_inode: dict[int, list[os.DirEntry[str]]] = {}
    for entry in os.scandir(folder):
        if entry.name == SEEN_FILE:
            _prune_seen(folder, Path(entry.path), timeout)
        elif entry.name.endswith(".tmp"):
            with contextlib.suppress(FileNotFoundError):
                if now - entry.stat().st_mtime > STALE_TEMPORARY_SECONDS:
                    os.unlink(entry.path)
        elif entry.name.isdigit():
            by_inode.setdefault(entry.inode(), []).append(entry)
    stores = _Stores(folder)
    leftovers: dict[str, _Found] = {}
    judged: set[str] = set()
    removed = 0
    for entries in by_inode.values():
        for entry in entries:
            found = _read_named(entry)
            if isinstance(found, bool):
                continue              # this name went or moved on since the walk: read another
            if found is None:
                removed += _remove_unreadable(folder, int(entry.name), timeout)
                continue
            if found.token not in judged:
                judged.add(found.token)
                if not stores.held(found.lease):
                    leftovers[found.token] = found
            break                     # the other names of this inode are this same lease
    stores.save()
    if leftovers:
        with _lock(folder.parent, timeout):
            for found in leftovers.values():
                _remove_locked(folder, found)
    return removed + len(leftovers)


def _read_named(entry: os.DirEntry[str]) -> _Found | None | bool:
    """The lease at a walked name, read only if the name still links the inode the walk saw (False
    otherwise: gone, or another lease's now); None when it reads as no lease."""
    try:
        descriptor = os.open(entry.path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        if os.fstat(descriptor).st_ino != entry.inode():
            return False
        return _read_lease_from(descriptor)
    finally:
        os.close(descriptor)


def _prune_seen(folder: Path, path: Path, timeout: float) -> None:
    """Drop `.seen.json`'s entries of stores that are gone."""
    with _lock(folder.parent, timeout):
        stores = _read_seen(path)
        kept = {store: seen for store, seen in stores.items() if os.path.isfile(store)}
        if kept != stores:
            with contextlib.suppress(OSError):
                os.unlink(path)
            _write_seen(path, kept)


def _remove(folder: Path, found: _Found, timeout: float) -> None:
    """Unlink a lease's names that still hold it (its token), under the lock."""
    with _lock(folder.parent, timeout):
        _remove_locked(folder, found)


def _remove_locked(folder: Path, found: _Found) -> None:
    """`_remove` with the lock held. One read of the lease (its token), not one a port: the file
    read is kept open, so its inode cannot be freed and given to another file meanwhile, and a
    name linking that same inode is that same lease."""
    prefix = f"{folder}{os.sep}"    # names joined as strings: pathlib costs more than the unlink
    names = [f"{prefix}{port}" for port in range(found.lease.first, found.lease.last + 1)]
    for at, name in enumerate(names):
        try:
            descriptor = os.open(name, os.O_RDONLY)
        except FileNotFoundError:
            continue
        try:
            now = _read_lease_from(descriptor)
            if now is None or now.token != found.token:
                continue       # another lease (or none) here now: the ports past it are asked on
            held = os.fstat(descriptor)
            os.unlink(name)
            for other in names[at + 1:]:
                with contextlib.suppress(FileNotFoundError):
                    info = os.lstat(other)
                    if (info.st_ino, info.st_dev) == (held.st_ino, held.st_dev) or _token_at(other) == found.token:
                        os.unlink(other)    # (a name of another inode is read: a copy that split the links)
            return
        finally:
            os.close(descriptor)


def _token_at(name: str) -> str | None:
    found = _read_lease(Path(name))
    return found.token if found is not None else None


def _remove_unreadable(folder: Path, port: int, timeout: float) -> bool:
    """Unlink the port's name when it reads as no lease and was last written UNREADABLE_LEASE_SECONDS
    ago or more (a torn write's leftover: see the module docstring); True when it went, or was gone
    already (the caller links again). Checked again under the lock: a removal by another process
    and a claim since (a whole lease) are left alone."""
    name = folder / str(port)

    def leftover() -> bool | None:     # None: the name is gone
        try:
            written = os.lstat(name).st_mtime
        except FileNotFoundError:
            return None
        return time.time() - written >= UNREADABLE_LEASE_SECONDS and _read_lease(name) is None \
            and os.path.lexists(name)

    if leftover() is False:
        return False
    with _lock(folder.parent, timeout):
        now = leftover()
        if now:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
    return now is not False


def _read_lease(name: Path) -> _Found | None:
    """The lease at `name`; None when there is none, or its file cannot be read as a lease (then it
    is kept: nothing can be said of its holder)."""
    try:
        return _parse_lease(name.read_bytes())
    except OSError:
        return None


def _read_lease_at(name: str) -> _Found | None:
    """`_read_lease` of a name given as a string (a claim's look-ahead reads one a block it walks)."""
    try:
        descriptor = os.open(name, os.O_RDONLY)
    except OSError:
        return None
    try:
        return _read_lease_from(descriptor)
    finally:
        os.close(descriptor)


def _read_lease_from(descriptor: int) -> _Found | None:
    """The lease in the open file `descriptor` (as `_read_lease`)."""
    try:
        return _parse_lease(os.read(descriptor, 65536))
    except OSError:
        return None


def _parse_lease(text: bytes) -> _Found | None:
    try:
        data = json.loads(text)
        return _Found(PortLease(**{field: data[field] for field in
                                   ("store", "run", "task", "worktree", "first", "last")}), str(data["token"]))
    except (ValueError, TypeError, KeyError):
        return None


def _lock(state: Path, timeout: float) -> contextlib.AbstractContextManager[None]:
    return filelock.exclusive(state / LOCK_FILE, timeout=timeout, what="the machine's port registry",
                              fix="retry; many tasks are starting or ending at once on this machine")


# ---- the earlier version's ports.json, read once ----------------------------------------------------

def _migrate_if_needed(state: Path, timeout: float) -> None:
    """Turn an earlier version's `ports.json` into lease files (its live entries), once: one stat
    when there is none."""
    path = state / REGISTRY_FILE
    if not path.exists():
        return
    with _lock(state, timeout):
        if not path.exists():
            return     # another process migrated it while this one waited
        folder = state / LEASES_FOLDER
        for lease in _still_held(_read_registry(path)):
            token = os.urandom(8).hex()
            temporary = folder / f".claim-{os.getpid()}-{token}.tmp"
            temporary.write_text(json.dumps({"schema": SCHEMA, **vars(lease), "token": token},
                                            separators=(",", ":")) + "\n")
            try:
                for port in range(lease.first, lease.last + 1):
                    with contextlib.suppress(FileExistsError):
                        os.link(temporary, folder / str(port))
            finally:
                os.unlink(temporary)
        path.replace(path.with_name(REGISTRY_FILE + MIGRATED_SUFFIX))


def _read_registry(path: Path) -> list[PortLease]:
    try:
        data = json.loads(path.read_text())
        return [PortLease(**row) for row in data.get("leases", [])]
    except FileNotFoundError:
        return []
    except (ValueError, TypeError, AttributeError):
        return []      # a registry nobody can read holds nothing anyone can check (as it always was)


def _still_held(leases: list[PortLease]) -> list[PortLease]:
    """The earlier registry's leases that still hold (`lease_held`), each store asked once."""
    judged: dict[str, dict[tuple[str, str], str] | None] = {}
    live = set(_LIVE)
    kept: list[PortLease] = []
    for lease in leases:
        if "://" in lease.store or not Path(lease.store).is_file():
            if lease_held(lease):
                kept.append(lease)
            continue
        if lease.store not in judged:
            from .sqlite import task_states_at

            judged[lease.store] = task_states_at(lease.store, [(other.run, other.task) for other in leases
                                                               if other.store == lease.store])
        states = judged[lease.store]
        if states is None or states.get((lease.run, lease.task)) in live:
            kept.append(lease)
    return kept


__all__ = ["PortClaim", "PortLease", "leases_folder", "lease_held", "reclaim_leftovers", "recorded_leases", "registry_path", "release"]

"""What `wtc serve` computes once before it forks its calls: not only the modules, but the data every
call would otherwise rebuild from the package (compiled tree-sitter queries, the profiles' index,
the line diff's library binding). A served finish compiled its languages' queries (~40 ms of its
CPU for Python) and parsed 27 profile heads in each call; a served call now finds them ready."""

from __future__ import annotations

import subprocess
import sys

PROBE = r'''
import glob, tomllib
from worktree_coord.serve import server
server.preload()

from worktree_coord.merge.checks import symbols
from worktree_coord.merge.languages.profiles import profile_for_path
from worktree_coord.merge.lines import line

compiled, parsed, globbed = [], [], []
real_compile, real_loads, real_glob = symbols._compile, tomllib.loads, glob.glob
symbols._compile = lambda profile, text: compiled.append(profile.name) or real_compile(profile, text)
tomllib.loads = lambda *a, **k: parsed.append(1) or real_loads(*a, **k)
glob.glob = lambda *a, **k: globbed.append(a) or real_glob(*a, **k)

# what a finish's semantic check and line merge ask of a Python and a TypeScript file
for path, source in (("pkg/a.py", b"import os\n\ndef f():\n    return os.sep\n"),
                     ("web/b.ts", b"import { h } from './h';\nexport function g() { return h(); }\n")):
    profile = profile_for_path(path)
    assert profile is not None, path
    found = symbols.extract(profile, source)
    assert found.definitions, (path, found)
    symbols.extract(profile, source, uses=False)
    symbols.query_for(profile, False, True)
    symbols.query_for(profile, True)          # spelled as another caller spells it: the same query
    symbols.fingerprint(profile)
assert line.libgit2_hunks(b"a\nb\n", b"a\nc\n") == ((2, 1, 2, 1),)
assert (compiled, parsed, globbed) == ([], [], []), (compiled, parsed, globbed)
print("ready")
'''


def test_a_served_call_finds_queries_profiles_and_the_line_binding_ready() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ready", done.stderr[-3000:]


CALLS = r'''
import io, json, os, sys
from pathlib import Path
from worktree_coord.serve import server
server.preload()
from worktree_coord import cli

repo = sys.argv[1]


def served(*argv):
    """One call as the server runs it: in a forked child; (its JSON answer, modules it imported)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        before = set(sys.modules)
        sys.stdout = io.StringIO()
        code = cli.main([*argv, "--repo", repo, "--json"])   # given its argv, main returns the exit code
        out = json.dumps([sys.stdout.getvalue(), sorted(set(sys.modules) - before), code]).encode()
        os.write(write, out)
        os._exit(0)
    os.close(write)
    data = b""
    while chunk := os.read(read, 1 << 16):
        data += chunk
    os.waitpid(pid, 0)
    answer, imported, code = json.loads(data)
    assert code == 0, (argv, code, answer)   # a call that failed would import less: it must have done its work
    return json.loads(answer.strip().splitlines()[-1]), imported


found = {}
served("run", "start", "--run", "r1")
body, found["task start"] = served("task", "start", "t1", "--run", "r1", "--own", "packages/api/**", "--sparse")
(Path(body["worktree"]) / "packages/api/index.js").write_text("export function api() {\n  return 10;\n}\n")
body, found["task finish"] = served("task", "finish", "t1", "--run", "r1", "-m", "t1")
assert body["state"] == "merged", body
for argv in (("status", "--run", "r1"), ("merge", "--run", "r1"), ("gc",), ("report", "--run", "r1")):
    found[" ".join(argv[:1])] = served(*argv)[1]
assert not any(found.values()), found
print("ready")
'''


def test_a_served_call_imports_no_module(repo) -> None:
    """What the server preloads is what its calls import: start, finish with its merge, status,
    merge, gc and report, each run as the server runs it (a child forked after the preload), import
    nothing more (typer's click decorators and the ASCII codec were imported by every call)."""
    done = subprocess.run([sys.executable, "-c", CALLS, str(repo)], capture_output=True, text=True, timeout=300,
                          cwd=repo)
    assert done.returncode == 0 and done.stdout.strip() == "ready", done.stdout[-2000:] + done.stderr[-3000:]

"""The layers of docs/architecture.md, enforced: imports point down, never up.

Every module of `worktree_coord` is parsed (not imported) and each of its imports is checked against
the rules below, function-local imports and `if TYPE_CHECKING:` imports included: a lazy import is
still a dependency, it only moves the cost. The layer table is data, here and nowhere else; a new
package must be placed in it before the suite passes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "worktree_coord"
SOURCE = Path(__file__).resolve().parents[1] / PACKAGE

# ---- the layer table: every part of the package (a subpackage or a top-level module), by layer ----

FACES = frozenset({"cli", "ci", "hooks", "mcp", "fanout", "ui", "serve", "__main__", "entry", "fastcli", "cli_help",
                   "merge_file_command"})   # parse, call, render (entry: the script that starts cli)
DISPATCHERS = frozenset({"cli", "serve", "__main__", "entry", "fastcli", "merge_file_command"})   # the command line and what starts it (serve: runs its main in a forked child)
OUTPUT = frozenset({"output"})                                    # what every face prints: tagging, text, progress words
COORDINATOR = frozenset({"coordinator"})                          # the API and its own bookkeeping
CHECK = frozenset({"check"})                                      # composes the capabilities below
CAPABILITIES = frozenset({"boundary", "merge", "integrate", "consolidate", "telemetry"})
INFRASTRUCTURE = frozenset({"gitrepo", "store"})
VOCABULARY = frozenset({"model", "frozen", "process_table", "lean_dataclasses", "digest", "kept_on_disk", "lazy_names", "results", "records", "errors", "config", "events",
                        "crashpoints", "process_end", "member_globs", "filelock", "serving", "isolation", "task_worktree", ""})                         # "" is the package itself (__init__)
EVERYTHING = FACES | OUTPUT | COORDINATOR | CHECK | CAPABILITIES | INFRASTRUCTURE | VOCABULARY


@dataclass(frozen=True)
class Rule:
    name: str
    importers: frozenset[str]
    imported: frozenset[str]


RULES = (
    Rule("nothing below the faces imports a face", EVERYTHING - FACES, FACES),
    Rule("only the command line's own starters import the CLI: the other faces share output/ (tagging, text, "
         "progress words) with it", FACES - DISPATCHERS, frozenset({"cli"})),
    Rule("the check, the capabilities and the infrastructure do not import the coordinator",
         CHECK | CAPABILITIES | INFRASTRUCTURE | VOCABULARY, COORDINATOR),
    Rule("the check composes the capabilities; they do not import it",
         CAPABILITIES | INFRASTRUCTURE | VOCABULARY, CHECK),
    Rule("the git layer and the store know no policy: they import no capability",
         INFRASTRUCTURE, CAPABILITIES),
    Rule("the git layer and the store are independent of each other (either may be swapped: remote git, "
         "PostgreSQL)", frozenset({"gitrepo"}), frozenset({"store"})),
    Rule("the git layer and the store are independent of each other (either may be swapped: remote git, "
         "PostgreSQL)", frozenset({"store"}), frozenset({"gitrepo"})),
    Rule("merge/ is a pure library (bytes in, bytes out): it imports no other capability and no "
         "infrastructure", frozenset({"merge"}), (CAPABILITIES - {"merge"}) | INFRASTRUCTURE),
    Rule("telemetry listens to events and imports nothing but the vocabulary (any layer may use it)",
         frozenset({"telemetry"}), EVERYTHING - VOCABULARY - {"telemetry"}),
    Rule("the public vocabulary imports only the public vocabulary", VOCABULARY - {""},
         EVERYTHING - VOCABULARY),
)


# ---- reading imports ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Import:
    importer: str    # dotted module name
    imported: str    # dotted module name (a name imported from a package resolves to its submodule)
    line: int


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def lazy_names() -> dict[str, str]:
    """`from worktree_coord import Coordinator` loads worktree_coord.coordinator through the package's
    PEP 562 table: read that table, so a lazy re-export cannot hide an upward import."""
    tree = ast.parse((SOURCE / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            target = node.target if isinstance(node, ast.AnnAssign) else node.targets[0]
            if isinstance(target, ast.Name) and target.id == "_LAZY" and isinstance(node.value, ast.Dict):
                return {ast.literal_eval(k): ast.literal_eval(v)[0] for k, v in zip(node.value.keys, node.value.values)
                        if k is not None}
    return {}


def imports_of(module: str, source: str, *, is_package: bool, known: set[str], lazy: dict[str, str]) -> list[Import]:
    """Every import of a worktree_coord module in `source`, at any depth of the syntax tree."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [Import(module, alias.name, node.lineno) for alias in node.names
                      if alias.name.split(".")[0] == PACKAGE]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in known:
                    found.append(Import(module, submodule, node.lineno))
                elif target == PACKAGE and alias.name in lazy:
                    found.append(Import(module, lazy[alias.name], node.lineno))
                else:
                    found.append(Import(module, target, node.lineno))
    return found


def part_of(module: str) -> str:
    """The layer-table entry a module belongs to: its subpackage, or itself at the top level."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def broken_rules(found: list[Import]) -> list[str]:
    messages = []
    for item in found:
        source, target = part_of(item.importer), part_of(item.imported)
        for rule in RULES:
            if source in rule.importers and target in rule.imported:
                messages.append(f"{item.importer} imports {item.imported} (line {item.line}): breaks the rule "
                                f"'{rule.name}' ({source or PACKAGE} -> {target or PACKAGE})")
    return messages


def package_modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(SOURCE.rglob("*.py"))}


def all_imports() -> list[Import]:
    modules = package_modules()
    known = set(modules)
    lazy = lazy_names()
    found = []
    for name, path in modules.items():
        found += imports_of(name, path.read_text(), is_package=path.name == "__init__.py", known=known, lazy=lazy)
    return found


# ---- the tests ----------------------------------------------------------------------------------

def test_imports_point_down_the_layers():
    found = all_imports()
    assert len(found) > 200, "the import reader found almost nothing: it is broken, not the code clean"
    problems = broken_rules(found)
    assert not problems, "imports that point up a layer:\n  " + "\n  ".join(problems)


def test_every_part_of_the_package_has_a_place_in_the_layer_table():
    parts = {part_of(name) for name in package_modules()}
    unplaced = sorted(parts - EVERYTHING)
    assert not unplaced, (f"{unplaced} are in no layer: add each to the layer table in {Path(__file__).name} "
                          "(and to docs/architecture.md)")


def test_no_import_cycles_below_the_faces():
    # A cycle hides a layer inside a layer (e.g. an error class in a dispatcher that imports every
    # editor which imports the error back). The faces' own registration (cli/__init__ imports each
    # command module, which adds itself to cli's app) is left out: it is the typer app's pattern.
    import networkx as nx

    graph = nx.DiGraph()
    for item in all_imports():
        if part_of(item.importer) not in FACES and part_of(item.imported) not in FACES \
                and item.importer != item.imported:
            graph.add_edge(item.importer, item.imported)
    cycles = sorted(nx.simple_cycles(graph), key=len)
    assert not cycles, "import cycles:\n  " + "\n  ".join(" -> ".join(c + [c[0]]) for c in cycles[:10])


@pytest.mark.parametrize(("module", "source", "rule"), [
    ("worktree_coord.merge.cascade", "def f():\n    from ..coordinator import Coordinator\n",
     "the check, the capabilities and the infrastructure do not import the coordinator"),
    ("worktree_coord.gitrepo.repository", "if True:\n    from ..integrate import FileToResolve\n",
     "the git layer and the store know no policy: they import no capability"),
    ("worktree_coord.check.pipeline", "import worktree_coord.ci.formats\n",
     "nothing below the faces imports a face"),
    ("worktree_coord.output.render", "from ..cli.common import coordinator\n",
     "nothing below the faces imports a face"),
    ("worktree_coord.mcp.calls", "from ..cli.output import tagged\n",
     "only the command line's own starters import the CLI"),
    ("worktree_coord.store.leases", "from worktree_coord import Coordinator\n",
     "the check, the capabilities and the infrastructure do not import the coordinator"),
    ("worktree_coord.merge.lines.line", "from ...integrate.resolve import FileToResolve\n",
     "merge/ is a pure library (bytes in, bytes out): it imports no other capability and no infrastructure"),
])
def test_the_reader_catches_an_upward_import_wherever_it_hides(module, source, rule):
    found = imports_of(module, source, is_package=False, known=set(package_modules()), lazy=lazy_names())
    problems = broken_rules(found)
    assert len(problems) == 1 and rule in problems[0] and module in problems[0], problems


def test_a_downward_import_is_no_problem():
    found = imports_of("worktree_coord.coordinator.tasks", "from ..check import check\nfrom .. import errors\n",
                       is_package=False, known=set(package_modules()), lazy=lazy_names())
    assert [i.imported for i in found] == ["worktree_coord.check", "worktree_coord.errors"]
    assert broken_rules(found) == []


# ---- inside merge/: rooms, each reading only the rooms below it ---------------------------------

# merge/ holds its public face (`__init__`), the contract every caller reads (`result`), the cascade
# of one file's attempts (`cascade`) and the tree level (`tree`); everything else lives in a room
# (docs/architecture.md). A room imports only the rooms listed before it and `merge.result`, never
# the cascade, the tree level or the face, so the order below is the order to read them in.
MERGE_ROOMS = ("languages", "lines", "syntax", "precision", "inventory", "appended", "ecosystems", "checks")
MERGE_TOP = frozenset({"", "result", "cascade", "tree"})    # "" is merge/__init__


def merge_place(module: str) -> str | None:
    """The room (or top-level module) of merge/ a module is in, or None outside merge/."""
    parts = module.split(".")
    if parts[:2] != [PACKAGE, "merge"]:
        return None
    return parts[2] if len(parts) > 2 else ""


def room_problems(found: list[Import]) -> list[str]:
    messages = []
    for item in found:
        source, target = merge_place(item.importer), merge_place(item.imported)
        if source is None or target is None or source in MERGE_TOP or source == target or target == "result":
            continue
        if target not in MERGE_ROOMS or source not in MERGE_ROOMS \
                or MERGE_ROOMS.index(target) > MERGE_ROOMS.index(source):
            messages.append(f"{item.importer} imports {item.imported} (line {item.line}): merge/{source} may "
                            f"import only the rooms before it in MERGE_ROOMS and merge.result")
    return messages


def test_merge_rooms_import_only_the_rooms_below_them():
    problems = room_problems(all_imports())
    assert not problems, "imports that point up merge/'s rooms:\n  " + "\n  ".join(problems)


def test_every_module_of_merge_is_in_a_room():
    places = {merge_place(name) for name in package_modules()} - {None}
    unplaced = sorted(places - MERGE_TOP - set(MERGE_ROOMS))
    assert not unplaced, (f"merge/{unplaced} are in no room: put each module in the room of its job, or add a "
                          f"room to MERGE_ROOMS in {Path(__file__).name} (and to docs/architecture.md)")


@pytest.mark.parametrize(("module", "source"), [
    ("worktree_coord.merge.languages.profiles", "from ..syntax.members import Member\n"),
    ("worktree_coord.merge.checks.semantic", "def f():\n    from ..cascade import merge_file\n"),
    ("worktree_coord.merge.syntax.structured", "from .. import tree\n"),
])
def test_the_room_reader_catches_an_import_up_the_rooms(module, source):
    found = imports_of(module, source, is_package=False, known=set(package_modules()), lazy=lazy_names())
    problems = room_problems(found)
    assert len(problems) == 1 and module in problems[0], problems


# ---- who runs git -------------------------------------------------------------------------------

def git_invocations(source: str) -> list[int]:
    """Lines of `subprocess.run/Popen/check_output/call([... "git" ...])` whose argument list names the
    git program as a literal (first, or after a wrapper such as `stdbuf -o0`)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"run", "Popen", "check_output", "check_call", "call"}
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "subprocess" and node.args):
            continue
        argv = node.args[0]
        if isinstance(argv, ast.List | ast.Tuple):
            literals = [e.value for e in argv.elts[:3] if isinstance(e, ast.Constant)]
            if "git" in literals:
                lines.append(node.lineno)
    return lines


def test_below_the_faces_only_the_git_layer_runs_git():
    # One place runs git, so a remote-backed run (issue 16) teaches one package about remotes and every
    # caller gets it. Faces may run git at the edge of a process (git's merge driver reads attributes
    # before any repository is opened; the demo builds its example repository with the git CLI).
    offenders = []
    for name, path in package_modules().items():
        if part_of(name) in FACES or part_of(name) == "gitrepo":
            continue
        offenders += [f"{name} line {line}" for line in git_invocations(path.read_text())]
    assert not offenders, "git run outside the git layer (give GitRepo or gitrepo/ the operation):\n  " + \
        "\n  ".join(offenders)
    inside = [line for name, path in package_modules().items() if part_of(name) == "gitrepo"
              for line in git_invocations(path.read_text())]
    assert len(inside) >= 3, "the reader found no git call even in the git layer: it is broken"


def test_the_git_reader_sees_a_git_call_wherever_it_is_written():
    source = ("import subprocess\ndef f(p):\n    subprocess.run(['git', 'merge-file', p])\n"
              "    subprocess.Popen([w, '-o0', 'git', 'merge-tree'])\n    subprocess.run(['ls'])\n")
    assert git_invocations(source) == [3, 4]

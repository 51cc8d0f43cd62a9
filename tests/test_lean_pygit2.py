"""gitrepo/lean_pygit2.py: pygit2 loaded without the ssl module gives libgit2 the same certificate
locations as pygit2 loaded with it, and leaves the real ssl to every later importer.

Each case runs in a fresh interpreter (the finder acts on a process's first import of pygit2),
once with `install()` and once without, and compares what pygit2.settings holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.serve.test_startup_imports import task_with_one_edit

PROBE = r"""
import json, sys
if sys.argv[1] == "lean":
    from worktree_coord.gitrepo.lean_pygit2 import install
    install()
ssl_before = "ssl" in sys.modules
try:
    import pygit2
    s = pygit2.settings
    answer = {"file": s.ssl_cert_file, "dir": s.ssl_cert_dir,
              "paths": list(s._default_tls_verify_paths) if s._default_tls_verify_paths else None}
except Exception as error:   # the same refusal either way is the same behaviour
    answer = {"error": f"{type(error).__name__}: {error}"}
answer["ssl_loaded_by_pygit2"] = "ssl" in sys.modules and not ssl_before
import ssl
answer["real_ssl"] = hasattr(ssl, "SSLContext") and ssl.get_default_verify_paths().__class__.__module__ == "ssl"
answer["context"] = ssl.create_default_context().verify_mode == ssl.CERT_REQUIRED
print(json.dumps(answer))
"""


def probe(mode: str, env: dict[str, str] | None = None) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True,
                          env=dict(os.environ, **(env or {})), cwd=Path(__file__).parent)
    return json.loads(done.stdout)


def test_pygit2_without_ssl_sets_the_same_certificate_locations(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.pem"
    bundle.write_text("")
    folder = tmp_path / "certs"
    folder.mkdir()
    for env in ({}, {"SSL_CERT_FILE": str(bundle)}, {"SSL_CERT_DIR": str(folder)},
                {"SSL_CERT_FILE": str(bundle), "SSL_CERT_DIR": str(folder)},
                {"SSL_CERT_FILE": str(tmp_path / "absent.pem")},
                {"SSL_CERT_FILE": str(tmp_path / "absent.pem"), "SSL_CERT_DIR": str(tmp_path / "absent")}):
        lean, plain = probe("lean", env), probe("plain", env)
        assert plain["ssl_loaded_by_pygit2"] is True or "error" in plain, env   # what the finder saves
        assert lean.pop("ssl_loaded_by_pygit2") is False, env
        plain.pop("ssl_loaded_by_pygit2")
        assert lean == plain, env
        assert lean["real_ssl"] and lean["context"], env


def test_install_leaves_a_process_that_already_loaded_ssl_alone() -> None:
    code = ("import sys, ssl\nfrom worktree_coord.gitrepo import lean_pygit2\nlean_pygit2.install()\n"
            "import pygit2\nprint(lean_pygit2._Finder in sys.meta_path, sys.modules['ssl'] is ssl,"
            " sys.modules['pygit2.settings'].get_default_verify_paths is ssl.get_default_verify_paths)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "True"]


def test_the_stand_in_reads_other_names_from_the_real_module() -> None:
    code = ("import sys\nfrom worktree_coord.gitrepo import lean_pygit2\nstand_in = lean_pygit2._SslStandIn()\n"
            "sys.modules['ssl'] = stand_in\nprotocol = stand_in.PROTOCOL_TLS_CLIENT\n"
            "import ssl\nprint(ssl is not stand_in, protocol is ssl.PROTOCOL_TLS_CLIENT, hasattr(stand_in, '__path__'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "True", "False"]


HAND_OVER = r"""
import json, sys
if sys.argv[1] == "lean":
    from worktree_coord.gitrepo.lean_pygit2 import install
    install()
import pygit2
answer = {"_ssl_at_import": "_ssl" in sys.modules}
try:
    pygit2.clone_repository(sys.argv[2], sys.argv[3])
    answer["cloned"] = True
except Exception as error:
    answer["error"] = f"{type(error).__name__}: {error}"
try:
    answer["file"], answer["dir"] = pygit2.settings.ssl_cert_file, pygit2.settings.ssl_cert_dir
except Exception as error:   # the refusal again: the settings still wait for their hand-over
    answer["settings_error"] = f"{type(error).__name__}: {error}"
print(json.dumps(answer))
"""


def _hand_over_probe(mode: str, env: dict[str, str], source: Path, target: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", HAND_OVER, mode, source.as_uri(), str(target)], capture_output=True,
                          text=True, env=dict(os.environ, **env), cwd=Path(__file__).parent)
    assert done.stdout, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_certificate_bundle_reaches_libgit2_before_its_first_connection_not_at_import(tmp_path: Path) -> None:
    """In a `wtc` process libgit2 is handed the certificate locations (and parses the bundle) only
    when pygit2 is first asked something that can connect: here a clone, which with a bundle libgit2
    refuses fails as the plain import fails, and with the machine's bundle clones as before."""
    source = tmp_path / "source"
    subprocess.run(["git", "init", "-q", str(source)], check=True)
    subprocess.run(["git", "-C", str(source), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                    "--allow-empty", "-m", "one"], check=True)
    refused = tmp_path / "refused.pem"
    refused.write_text("")
    lean = _hand_over_probe("lean", {}, source, tmp_path / "lean")
    plain = _hand_over_probe("plain", {}, source, tmp_path / "plain")
    assert lean.pop("_ssl_at_import") is False and plain.pop("_ssl_at_import") is True
    assert lean == plain and lean["cloned"] is True
    # A bundle libgit2 refuses: the plain import raises; the lean one raises the same at the clone.
    plain_refusal = subprocess.run([sys.executable, "-c", "import pygit2"], capture_output=True, text=True,
                                   env=dict(os.environ, SSL_CERT_FILE=str(refused)))
    assert plain_refusal.returncode != 0 and "failed to load certificates" in plain_refusal.stderr
    lean = _hand_over_probe("lean", {"SSL_CERT_FILE": str(refused)}, source, tmp_path / "lean-refused")
    assert "failed to load certificates" in str(lean.get("error")), lean
    assert "failed to load certificates" in str(lean.get("settings_error")), lean
    assert not (tmp_path / "lean-refused").exists()


def test_every_pygit2_call_that_can_connect_hands_the_certificates_over_first() -> None:
    """pygit2's sources, read: each function that calls one of libgit2's network entry points is one
    of NETWORK_CALLS (a pygit2 that adds one fails here, not silently without certificates)."""
    import ast

    import pygit2

    from worktree_coord.gitrepo.lean_pygit2 import NETWORK_CALLS

    network = {"git_clone", "git_remote_connect", "git_remote_fetch", "git_remote_push", "git_remote_ls",
               "git_remote_prune", "git_remote_upload", "git_remote_download", "git_submodule_update",
               "git_submodule_clone", "git_remote_connect_ext"}
    found: set[tuple[str, str | None, str]] = set()
    folder = Path(pygit2.__file__).parent
    for path in sorted(folder.glob("*.py")):
        module = "pygit2" if path.stem == "__init__" else f"pygit2.{path.stem}"
        tree = ast.parse(path.read_text())

        def visit(node: ast.AST, owner: str | None, function: str | None) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.ClassDef):
                    visit(child, child.name, None)
                elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    visit(child, owner, function or child.name)
                else:
                    if (isinstance(child, ast.Attribute) and isinstance(child.value, ast.Name)
                            and child.value.id == "C" and child.attr in network):
                        found.add((module, owner, function or "<module>"))
                    visit(child, owner, function)
        visit(tree, None, None)
    assert found, "no call into libgit2's network found: the reading above no longer fits pygit2"
    assert found <= set(NETWORK_CALLS), sorted(found - set(NETWORK_CALLS))


def test_a_finish_runs_with_a_certificate_bundle_libgit2_refuses(repo: Path, tmp_path: Path) -> None:
    """`SSL_CERT_FILE` naming a file libgit2 cannot load made every `wtc` call that opens libgit2 fail
    at pygit2's import, though no call of a run connects through libgit2: a finish that merges now
    runs, and its task is merged."""
    refused = tmp_path / "refused.pem"
    refused.write_text("")
    env = dict(os.environ, WTC_NO_SERVE="1", SSL_CERT_FILE=str(refused))
    task_with_one_edit(repo, env)
    done = subprocess.run([sys.executable, "-m", "worktree_coord", "task", "finish", "t1", "--run", "r1", "--json"],
                          cwd=repo, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["state"] == "merged"


READS = r"""
import json, os, subprocess, sys

def read_so_far() -> int:   # bytes this process has read through read(2) and the like
    with open("/proc/self/io") as io:
        return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))

from worktree_coord.gitrepo import lean_pygit2
lean_pygit2.install()
before = read_so_far()
import pygit2
at_import = read_so_far() - before
os_environ = os.environ["SSL_CERT_FILE"]
child_environ = subprocess.run(["sh", "-c", 'printf %s "$SSL_CERT_FILE"'], capture_output=True, text=True).stdout
before = read_so_far()
lean_pygit2.hand_over()
print(json.dumps({"at_import": at_import, "at_hand_over": read_so_far() - before, "environ": os_environ,
                  "child_environ": child_environ}))
"""


def _one_certificate() -> str:
    import ssl

    paths = ssl.get_default_verify_paths()
    bundle = Path(os.environ.get("SSL_CERT_FILE") or paths.cafile or paths.openssl_cafile)
    text = bundle.read_text()
    end = "-----END CERTIFICATE-----"
    start = text.index("-----BEGIN CERTIFICATE-----")
    return text[start:text.index(end, start) + len(end)] + "\n"


def test_libgit2_reads_the_certificate_file_at_the_hand_over_not_when_pygit2_loads(tmp_path: Path) -> None:
    """libgit2's own set-up (git_libgit2_init, run as pygit2's C module loads) asked OpenSSL for its
    default verify paths, and OpenSSL read the file SSL_CERT_FILE names right then, in every `wtc`
    process that loads pygit2. Now that file is read once, at the hand-over before a connection
    (`hand_over`), and SSL_CERT_FILE is as it was for the process and its children. A bundle of one
    certificate and 8 MB of lines OpenSSL skips tells the reads apart by their size."""
    bundle = tmp_path / "bundle.pem"
    padding = "# a comment line OpenSSL's PEM reader reads past, padding this bundle out\n" * 110_000
    bundle.write_text(padding + _one_certificate())
    size = bundle.stat().st_size
    done = subprocess.run([sys.executable, "-c", READS], capture_output=True, text=True,
                          env=dict(os.environ, SSL_CERT_FILE=str(bundle)), cwd=Path(__file__).parent)
    assert done.returncode == 0, done.stderr[-2000:]
    reads = json.loads(done.stdout)
    assert reads["environ"] == reads["child_environ"] == str(bundle)
    assert reads["at_import"] < size, reads        # pygit2's own files are far smaller than the bundle
    assert reads["at_hand_over"] >= size, reads    # libgit2 holds the certificates before any connection

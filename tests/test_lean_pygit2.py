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

"""The line merge's libgit2 (merge/lines/line.py) is set up without reading the certificate bundle
SSL_CERT_FILE names: libgit2's init loads it for https (5-10 ms of CPU), and a `wtc merge-file`,
which git starts once per conflicted file, makes no connection. The variable is put back at once,
and a later pygit2 import in the process gives libgit2 the certificate locations as before."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

BASE = "import os\n\n\ndef alpha(x):\n    return x + 1\n\n\ndef gamma(x):\n    return x - 3\n"


def test_a_merge_file_process_reads_no_certificate_bundle(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.pem"
    os.mkfifo(bundle)     # whoever opens it to read waits for a writer: the test sees the open
    for name, text in (("base.py", BASE), ("left.py", BASE.replace("x + 1", "x + 10")),
                       ("right.py", BASE.replace("x - 3", "x - 30"))):
        (tmp_path / name).write_text(text)
    process = subprocess.Popen([sys.executable, "-m", "worktree_coord", "merge-file", "base.py", "left.py",
                                "right.py", "--path", "m.py", "-o", "out.py"], cwd=tmp_path,
                               env=dict(os.environ, SSL_CERT_FILE=str(bundle), WTC_NO_SERVE="1"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    opened = False
    while process.poll() is None:
        try:
            writer = os.open(bundle, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:          # ENXIO: nobody has it open to read
            time.sleep(0.01)
            continue
        opened = True
        os.close(writer)         # the reader reads an empty bundle and goes on
    out, err = process.communicate(timeout=120)
    assert not opened, "the merge read the certificate bundle"
    assert process.returncode == 0, err
    expected = subprocess.run(["git", "merge-file", "-p", "left.py", "base.py", "right.py"], cwd=tmp_path,
                              capture_output=True, check=True).stdout
    assert (tmp_path / "out.py").read_bytes() == expected


def test_pygit2_imported_after_the_line_merge_gets_the_bundle(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle.pem"   # one certificate of its own: pygit2 refuses a file that holds none
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", str(tmp_path / "key.pem"), "-out", str(bundle), "-subj", "/CN=wtc-test", "-days", "1"],
                   check=True, capture_output=True)
    script = (
        "import os\n"
        "from worktree_coord.merge.lines.line import _binding\n"
        "assert _binding() is not None\n"
        f"assert os.environ['SSL_CERT_FILE'] == {str(bundle)!r}\n"
        "import pygit2\n"
        f"assert pygit2.settings.ssl_cert_file == {str(bundle)!r}, pygit2.settings.ssl_cert_file\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, SSL_CERT_FILE=str(bundle)),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

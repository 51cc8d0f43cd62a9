"""Python: a member read only inside a test that the object has it (`if hasattr(StreamMixer, "__del__"):`)
is no use left behind by its removal.

Found by the false block hunt on pallets/click: ae46cfd6bc99 removed `StreamMixer.__del__` and added a
test reading it only `if hasattr(StreamMixer, "__del__")` (through a name bound to that test); the
check blocked the commit click made and kept. merge/checks/attribute_guards.py, profile
`attribute_guards`.
"""

from __future__ import annotations

import pytest

from tests.core.test_uses_left_behind import _removal_merged, _removal_refused

MIXER = "class StreamMixer:\n    def __init__(self):\n        self.a = 1\n\n    def close_all(self):\n        return 1\n"
GONE = MIXER.replace("    def close_all(self):\n        return 1\n", "")
HEAD = "from pkg.testing import StreamMixer\n\n\n"


@pytest.mark.parametrize("user", [
    HEAD + "def test_it():\n    has = hasattr(StreamMixer, 'close_all')\n    if has:\n        assert StreamMixer.close_all\n",
    HEAD + "def test_it():\n    if hasattr(StreamMixer, \"close_all\"):\n        assert StreamMixer.close_all is not None\n",
    HEAD + "A = hasattr(StreamMixer, 'close_all') and StreamMixer.close_all\n",
], ids=["bound-flag", "if-test", "same-line"])
def test_a_read_guarded_by_hasattr_is_no_use(tmp_path, user):
    _removal_merged(tmp_path, {"pkg/__init__.py": "", "pkg/testing.py": MIXER, "pkg/test_it.py": user},
                    {"pkg/testing.py": GONE})


@pytest.mark.parametrize("user, line", [
    (HEAD + "def test_it():\n    if hasattr(StreamMixer, 'close_all'):\n        pass\n    assert StreamMixer.close_all\n", 7),
    (HEAD + "def test_it():\n    if not hasattr(StreamMixer, 'close_all'):\n        assert StreamMixer.close_all\n", 6),
    (HEAD + "def test_it():\n    if hasattr(StreamMixer, 'other'):\n        assert StreamMixer.close_all\n", 6),
], ids=["after-the-block", "negated", "another-name"])
def test_an_unguarded_read_is_still_left_behind(tmp_path, user, line):
    _, left = _removal_refused(tmp_path, {"pkg/__init__.py": "", "pkg/testing.py": MIXER, "pkg/test_it.py": user},
                               "pkg/testing.py", {"pkg/testing.py": GONE})
    assert len(left) == 1 and left[0].startswith(f"pkg/test_it.py:{line} still uses StreamMixer.close_all"), left

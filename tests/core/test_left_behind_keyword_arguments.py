"""Python: a parameter renamed or dropped leaves every call passing it by keyword failing
(`TypeError: render() got an unexpected keyword argument 'max_width'`), as a dropped positional one does.

Found probing the shapes of the drive on Textualize/rich: a task renamed `max_width` to `width` and
`fill` to `pad`; the calls `render("abc", max_width=2)` and `b.draw(fill="x")` in another file merged
clean (the signature check counted arguments, and a keyword argument made the count unknown). The
profile now names what a call may pass by keyword (`[semantic.signatures] keywords`, `keyword_open`,
`positional_only`, `keyword_arguments`), signatures.py's `Keywords`.
"""

from __future__ import annotations

import pytest

from tests.conftest import wtc_in_process
from tests.core.test_uses_left_behind import _removal_merged, _second_finish, _task_edited

CORE = ('def render(text, max_width=80):\n    return text[:max_width]\n\n\n'
        'def fetch(url, *, timeout=None):\n    return url\n\n\n'
        'class Box:\n    def draw(self, width=10, fill=" "):\n        return fill * width\n')
HEAD = "from pkg.core import Box, fetch, render\n\n\n"


@pytest.mark.parametrize("core, user, name, line", [
    (CORE.replace("max_width", "width"), HEAD + "def f():\n    return render('abc', max_width=2)\n", "render", 5),
    (CORE.replace("timeout=None", "deadline=None"), HEAD + "def f():\n    return fetch('u', timeout=3)\n", "fetch", 5),
    (CORE.replace('fill=" "):\n        return fill', 'pad=" "):\n        return pad'),
     HEAD + "def f():\n    b = Box()\n    return b.draw(fill='x')\n", "Box.draw", 6),
    (CORE.replace("def render(text, max_width=80):\n    return text[:max_width]", "def render(text):\n    return text"),
     HEAD + "A = render('abc', max_width=2)\n", "render", 4),
], ids=["renamed", "keyword-only", "method", "dropped"])
def test_a_call_passing_a_keyword_the_function_no_longer_names_is_left_behind(tmp_path, core, user, name, line):
    files = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": user}
    repo = _task_edited(tmp_path, files, "rm", ("pkg/core.py",), {"pkg/core.py": core}, None)
    code, check = wtc_in_process(repo, "task", "check", "rm", "--run", "r1")
    assert code == 1 and check["left_behind_blocks"] is True, check
    code, body = wtc_in_process(repo, "task", "finish", "rm", "--run", "r1")
    assert (code, body["state"]) == (1, "conflict"), body
    left = [note for note in body["notes"] if "still call" in note]
    assert len(left) == 1 and left[0].startswith(f"pkg/use.py:{line} still calls {name} the old way (the keyword "), left


@pytest.mark.parametrize("core, user", [
    # it takes any keyword now
    (CORE.replace("def render(text, max_width=80):", "def render(text, width=80, **options):"),
     HEAD + "A = render('abc', max_width=2)\n"),
    # the call passes it by position
    (CORE.replace("max_width", "width"), HEAD + "A = render('abc', 2)\n"),
    # the keyword the call passes is still there
    (CORE.replace('fill=" "):\n        return fill', 'fill=" ", pad=0):\n        return fill'),
     HEAD + "A = Box().draw(fill='x')\n"),
    # a positional-only parameter was never passed by keyword
    (CORE.replace("def render(text, max_width=80):", "def render(text, max_width=80, /):").replace("max_width", "width"),
     HEAD + "A = render('abc', 2)\n"),
], ids=["takes-kwargs", "positional-call", "keyword-kept", "positional-only"])
def test_a_call_the_new_shape_still_takes_is_no_use(tmp_path, core, user):
    _removal_merged(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": user}, {"pkg/core.py": core})


def test_a_call_another_task_added_with_the_old_keyword_is_caught_at_its_merge(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/core.py": CORE, "pkg/use.py": HEAD + "A = 1\n"}
    code, body = _second_finish(tmp_path, files, ("rename", "pkg/core.py", {"pkg/core.py": CORE.replace("max_width", "width")}),
                                ("call", "pkg/use.py", {"pkg/use.py": HEAD + "A = render('abc', max_width=2)\n"}))
    assert code == 1 and body["state"] == "conflict", body
    assert any("the keyword max_width=" in str(item) for item in body.get("conflicts", [])), body

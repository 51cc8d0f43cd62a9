"""A declared intent (`wtc intent add --profile ID`) for a place inside a Maven `<profile>`.

Stage: declaration (derive.declare_intent), before the intent is checked like any other. Input: the
pom.xml at the task's base, the op, name, spec and group the agent typed, and the profile's id.
Output: the op, key and value of the settings intent that the same edit made by hand derives:
`profiles."ID".dependencies."G:A"` with the `<dependency>` element as the base's file will hold it,
or `profiles."ID".NAME` for another key of the profile (`build.plugins."G:A"`, `properties`).
Why: a profile's dependencies are keyed settings (pom.profiles_document), and a declared setting's
name could only be a property or a whole top-level element, so an agent had no way to declare a
dependency of the `ci` profile but to edit the reserved pom.xml.
"""

from __future__ import annotations

import json
import re

from worktree_coord.consolidate.intent import Op
from worktree_coord.consolidate.settings import key_text
from worktree_coord.errors import UsageError

_DEP_OPS = {Op.ADD_DEP: Op.SET_KEY, Op.SET_SPEC: Op.SET_KEY, Op.REMOVE_DEP: Op.REMOVE_KEY}


def profile_declaration(path: str, base: bytes | None, op: Op, name: str, spec: str | None, group: str | None,
                        profile: str) -> tuple[Op, str, str | None]:
    """(op, key, spec) of the settings intent for `op` on `name` inside the profile `profile`."""
    from worktree_coord.consolidate.manifests import read_pom

    document = read_pom(path, base).document if base is not None else {}
    profiles = document.get("profiles")
    if not isinstance(profiles, dict) or profile not in profiles:
        raise UsageError(f"{path} has no profile {profile!r} at the task's base" + (
            "" if isinstance(profiles, dict) or profiles is None else
            " (its <profiles> cannot be keyed: a profile without an <id>, or one twice)"),
            fix=f"declare the whole profile: --op set_key --name 'profiles.\"{profile}\"' --spec '<profile>"
                f"<id>{profile}</id>...</profile>', or name one of: {', '.join(profiles) if isinstance(profiles, dict) else 'none'}")
    place = f"profiles.{key_text((profile,))}"
    if op in (Op.SET_KEY, Op.REMOVE_KEY):
        return op, f"{place}.{name}", spec
    if op not in _DEP_OPS:
        raise UsageError(f"--profile takes a dependency op (add_dep, set_spec, remove_dep) or set_key/remove_key, "
                         f"not {op.value}", fix="leave --profile out for the project's own version, modules or "
                                                "overrides")
    if group not in (None, "dependencies"):
        raise UsageError(f"--group {group!r} inside profile {profile!r}: a profile's <dependencies> are keyed one "
                         "by one, its other elements are carried whole",
                         fix=f"leave --group out, or declare --profile {profile} --op set_key --name {group} with "
                             f"the whole <{group}> element as --spec")
    key = f"{place}.dependencies.{key_text((name,))}"
    have = profiles[profile].get("dependencies", {})
    held = have.get(name) if isinstance(have, dict) else None
    if (held is None) != (op == Op.ADD_DEP):
        raise UsageError(f"{name!r} is {'already' if held else 'not'} in the <dependencies> of profile {profile!r} "
                         f"of {path} at the task's base", fix=f"declare {'set_spec' if held else 'add_dep'}")
    if op == Op.REMOVE_DEP:
        return Op.REMOVE_KEY, key, None
    if op == Op.ADD_DEP:
        return Op.SET_KEY, key, json.dumps(_as_written(path, base, key, _element(name, spec)))
    version = re.compile(r"<version>[^<]*</version>")
    if spec is None or not version.search(held):
        raise UsageError(f"{name} in profile {profile!r}: " + ("--op set_spec needs --spec" if spec is None else
                         f"it has no <version> of its own to set ({' '.join(held.split())})"),
                         fix=f"give --spec, or declare --profile {profile} --op set_key --name 'dependencies.\"{name}\"' "
                             "with its whole <dependency> element as --spec")
    return Op.SET_KEY, key, json.dumps(version.sub(f"<version>{spec}</version>", held, count=1))


def _element(name: str, spec: str | None) -> str:
    parts = name.split(":")
    if len(parts) < 2 or not all(parts[:2]):
        raise UsageError(f"--name {name!r} is no Maven dependency", fix="name it as GROUP:ARTIFACT[:TYPE[:CLASSIFIER]]")
    children = [f"<groupId>{parts[0]}</groupId>", f"<artifactId>{parts[1]}</artifactId>"]
    children += [f"<version>{spec}</version>"] if spec else []
    children += [f"<type>{parts[2]}</type>"] if len(parts) > 2 else []
    children += [f"<classifier>{parts[3]}</classifier>"] if len(parts) > 3 else []
    return "<dependency>\n" + "".join(f"  {child}\n" for child in children) + "</dependency>"


def _as_written(path: str, base: bytes | None, key: str, element: str) -> str:
    """The element as the pom.xml will hold it once written (the editor indents it to its place),
    so the value read back at consolidation is the value asked for."""
    from worktree_coord.consolidate.edits import edit_manifest
    from worktree_coord.consolidate.intent import Intent
    from worktree_coord.consolidate.manifests import read_pom
    from worktree_coord.consolidate.settings import parse_key

    if base is None:
        return element
    probe = Intent(intent_id="probe", task="probe", ecosystem="maven", root="", manifest=path, op=Op.SET_KEY,
                   group="settings", name=key, spec=json.dumps(element))
    node: object = read_pom(path, edit_manifest(path, base, probe)).document
    for part in parse_key(key):
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, str) else element

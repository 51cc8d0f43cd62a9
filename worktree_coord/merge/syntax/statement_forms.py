"""What one statement is, read off its tree-sitter node: the forms the merge rules of sequences ask.

Stage: a helper of the structured merge (structured.py, group_rules.py), when both sides' hunks
touch in an ordered container and a rule must tell whether their statements may both be kept.
Input: one statement's node and its source (or two statements' texts). Output: plain values:
  - `call_form` / `call_name` / `registration_form`: a statement that is just a call, its callee
    (`test`, `f.BoolVar`) and name (`describe('watch')`), or an element of a registry laid out one
    a line: what makes several statements one list of registrations;
  - `holds_jump`: a `return`, `break`, `raise`... leaving the sequence (not inside a nested function);
  - `assigned`: the targets a statement declares or assigns;
  - `close_texts` / `same_shape`: two statements most likely one edit or one intent written twice.
Invariants: read across grammars by node kinds and field names, no language named here; a form
that cannot be read is None (the rule then keeps the conflict).
"""

from __future__ import annotations

import re

import tree_sitter


_VERSION_SUFFIX = re.compile(r"(?<=\w)[:@](?:v?\d[\w.+-]*|\$\{?[\w.]+\}?)([\"'`])$")
_CALLEE_FIELDS = ("function", "macro")   # the callee of a call node, by field name (tree-sitter grammars)


def _unfielded_call(node: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
    """(callee, arguments) of a call node whose grammar names no fields (Kotlin's and Swift's): a
    callee, then its arguments, directly or inside a suffix node; a call followed only by a
    trailing lambda or closure is that inner call (`test("x") { ... }`)."""
    # Only `call_expression`: Ruby's and Elixir's `call` nodes are commands (`require 'x'`, a
    # function clause) whose order is the program's, never a list of registrations.
    if node.type != "call_expression" or node.named_child_count != 2:
        return None
    callee, suffix = node.named_children
    if callee.type == "call_expression" and any(word in suffix.type for word in ("lambda", "closure")):
        return _unfielded_call(callee)
    if "argument" not in suffix.type:
        suffix = next((child for child in suffix.named_children if "argument" in child.type), suffix)
    return (callee, suffix) if "argument" in suffix.type else None


def _command(source: bytes, node: tree_sitter.Node, commands: frozenset[str]) -> str | None:
    """The method of a command-style call (Ruby's `gem 'rake'`: a `call` with a `method` and its
    arguments, no receiver) when the profile lists it among its `registrations`, else None; a call
    on a plain receiver (`spec.add_dependency 'rack'`) when it lists `*.METHOD`: `spec.METHOD`."""
    method, receiver = node.child_by_field_name("method"), node.child_by_field_name("receiver")
    if method is None or node.child_by_field_name("arguments") is None:
        return None
    text = source[method.start_byte:method.end_byte].decode("utf-8", "replace")
    if receiver is None:
        return text if text in commands else None
    if receiver.type != "identifier" or f"*.{text}" not in commands:
        return None
    return f"{source[receiver.start_byte:receiver.end_byte].decode('utf-8', 'replace')}.{text}"


def call_form(source: bytes, node: tree_sitter.Node, commands: frozenset[str] = frozenset()) -> str | None:
    """The callee text when the statement `node` is just a call (`test('x', ...)` -> "test",
    `f.BoolVar(...)` -> "f.BoolVar", `await it(...)` -> "it", Kotlin's `include("core")` ->
    "include"), else None. `commands`: the profile's `registrations`, commands of a language whose
    calls otherwise run in an order of their own (Ruby's `gem` in a Gemfile)."""
    while node.named_child_count == 1 and node.type in ("expression_statement", "await_expression"):
        node = node.named_children[0]
    if commands and (command := _command(source, node, commands)) is not None:
        return command
    for field in _CALLEE_FIELDS:
        callee = node.child_by_field_name(field)
        if callee is not None and (node.child_by_field_name("arguments") is not None or field == "macro"):
            return " ".join(source[callee.start_byte:callee.end_byte].decode("utf-8", "replace").split())
    name, arguments = node.child_by_field_name("name"), node.child_by_field_name("arguments")
    if node.type == "method_invocation" and name is not None and arguments is not None:   # Java
        target = node.child_by_field_name("object")
        text = source[(target or name).start_byte:name.end_byte]
        return " ".join(text.decode("utf-8", "replace").split())
    unfielded = _unfielded_call(node)
    if unfielded is not None:
        callee = unfielded[0]
        return " ".join(source[callee.start_byte:callee.end_byte].decode("utf-8", "replace").split())
    return None


def call_name(source: bytes, node: tree_sitter.Node, commands: frozenset[str] = frozenset()) -> str | None:
    """`describe('watch')` for a statement that calls `describe` with the string 'watch' first,
    else None: the identity of a positional call statement edited on both sides."""
    form = call_form(source, node, commands)
    if form is None:
        return None
    while node.named_child_count == 1 and node.type in ("expression_statement", "await_expression"):
        node = node.named_children[0]
    arguments = node.child_by_field_name("arguments")
    if arguments is None and (unfielded := _unfielded_call(node)) is not None:
        arguments = unfielded[1]
    first = next((child for child in arguments.named_children if child.type not in ("comment",)), None) \
        if arguments is not None else None
    if first is not None and "argument" in first.type and first.named_child_count == 1:
        first = first.named_children[0]          # a grammar that wraps each argument (Kotlin, Swift)
    if first is None or "string" not in first.type:
        return None
    text = source[first.start_byte:first.end_byte]
    if b"\n" in text or len(text) > 200:
        return None
    # A coordinate's version is not part of what it names: `implementation("g:a:1.2")` and
    # `implementation("g:a:1.3")` register one artifact (Gradle's `group:artifact:version`, a
    # `name@version` spec), so two sides adding it at two versions clash instead of both landing.
    named = _VERSION_SUFFIX.sub(r"\1", text.decode("utf-8", "replace"))
    return f"{form}({named})"


def registration_form(source: bytes, node: tree_sitter.Node, commands: frozenset[str] = frozenset()) -> str | None:
    """What makes members one list of registrations: a statement's callee (`call_form`), or, for
    an element of a registry array (JS) or list (Python) laid out one element a line (`routes = [\n home,\n about,\n]`,
    `plugins: [\n vue(),\n legacy(),\n]`), its node kind (identifier, call, object, string...).
    A one-line array (`[1024, 768]`) is a value, not a registry: None."""
    parent = node.parent
    if parent is None or parent.type not in ("array", "list"):
        return call_form(source, node, commands)
    if parent.start_point[0] == parent.end_point[0]:
        return None
    return f"element {node.type}"


# Statement kinds that leave the sequence (tree-sitter node types containing one of these words):
# a run holding one could cut the other side's run off.
_JUMPS = ("return", "break", "continue", "throw", "raise", "goto", "exit")
# Nodes whose insides run elsewhere (a jump in a callback leaves the callback, not the sequence).
_OWN_SCOPE = ("function", "lambda", "closure", "arrow", "method", "class")


def holds_jump(node: tree_sitter.Node) -> bool:
    """True when the statement holds a jump out of the sequence it stands in (`return`, `break`,
    `raise`..., also inside an `if`), not counting jumps inside nested functions or classes."""
    stack = [node]
    while stack:
        current = stack.pop()
        if any(word in current.type for word in _JUMPS):
            return True
        stack.extend(child for child in current.children
                     if not any(word in child.type for word in _OWN_SCOPE))
    return False


# Fields that hold what a declaration or assignment binds, across tree-sitter grammars (Go's
# `left` of `:=` and `=`, JavaScript's and Java's declarator `name`, Rust's `let` `pattern`).
_TARGET_FIELDS = ("left", "name", "pattern", "declarator")
_TARGET_LISTS = ("expression_list", "pattern_list", "tuple_pattern", "identifier_list")


def assigned(source: bytes, node: tree_sitter.Node) -> frozenset[str]:
    """The targets one statement declares or assigns, as their texts (`timeout`, `o.name`, `err`):
    the statement, its declarators and an expression statement's assignment, not deeper. Two new
    statements that assign one target are not independent."""
    out: set[str] = set()
    stack = [(node, 0)]
    while stack:
        current, depth = stack.pop()
        for field in _TARGET_FIELDS:
            target = current.child_by_field_name(field)
            if target is None:
                continue
            if target.type.endswith("declarator") and depth < 3:
                stack.append((target, depth + 1))
            elif target.type in _TARGET_LISTS:
                out.update(source[c.start_byte:c.end_byte].decode("utf-8", "replace") for c in target.named_children)
            else:
                out.add(source[target.start_byte:target.end_byte].decode("utf-8", "replace"))
        if depth < 2:
            stack.extend((child, depth + 1) for child in current.named_children
                         if child.type.endswith(("declarator", "assignment", "assignment_expression", "declaration")))
    return frozenset(out)


def close_texts(first: bytes, second: bytes) -> bool:
    """Two texts one is most likely an edit of the other (difflib's ratio of their words >= 0.6)."""
    import difflib

    return difflib.SequenceMatcher(None, first.split(), second.split(), autojunk=False).ratio() >= 0.6


_STRING = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|`[^`]*`')
_NUMBER = re.compile(rb"\b\d[\w.]*")


def same_shape(first: bytes, second: bytes) -> bool:
    """Two one-line statements that are the same statement but for their literals (`log("left")`
    and `log("right")`, `timeout = 5` and `timeout = 10`): most likely one intent written twice
    (one message or value chosen two ways), not two additions. (Measured: also counting names as
    literals, `w.Cancel()` against `w.Remove()`, stops two right merges of flag registrations per
    wrong one in round 4: docs/merge-precision.md, "Candidates measured and not adopted".)"""
    if b"\n" in first.strip() or b"\n" in second.strip():
        return False

    def shape(text: bytes) -> bytes:
        text = _STRING.sub(b"S", text)
        text = _NUMBER.sub(b"N", text)
        return b"".join(text.split())
    return shape(first) == shape(second)

"""Maven's pom.xml as a tree of elements that know their byte positions, and what it declares.

Stage: reading (for the manifest model) and editing (edits/pom_xml.py anchors its text edits on the
positions). Input: a pom.xml's bytes. Output: `Element`s (name, text, children, the byte span of the
whole element, of its start tag and of its content) and `PomFacts` (coordinates, parent, version,
dependencies of `<dependencies>` and `<dependencyManagement>`, modules, properties, and every other
top-level element as its text).
Why positions: an XML library that builds a tree and writes it back respells what it did not
change (ElementTree drops comments; lxml rewrites the XML declaration's quotes and `<a></a>`), and
a pom.xml is read by people as much as by Maven. The parser is the standard library's expat (strict:
a pom.xml that is not well-formed, conflict markers included, is refused); an edit replaces or
inserts bytes between positions it read, and everything else stays as it was, byte for byte.
"""

from __future__ import annotations

import codecs
import posixpath
import re
import xml.parsers.expat
from dataclasses import field
from typing import Callable

from worktree_coord.consolidate.textformat import ManifestParseError

from ..frozen import value_class

# The children of a `<dependency>` that name it: Maven keys a dependency by groupId, artifactId,
# type and classifier (a `test-jar` of a module is another dependency than its jar).
COORDINATES = ("groupId", "artifactId")
# The top-level elements the intent model carries key by key; every other one is a setting carried
# whole (its text as written).
MODELED_ELEMENTS = ("dependencies", "dependencyManagement", "modules", "properties", "version")


@value_class(frozen=False)
class Element:
    name: str
    start: int                 # offset of its `<`
    content_start: int         # offset just after its start tag's `>`
    content_end: int = 0       # offset of its end tag's `<` (= end for an empty element `<x/>`)
    end: int = 0               # offset just after the element
    text: str = ""             # the character data directly inside it
    children: list["Element"] = field(default_factory=list)

    def child(self, name: str) -> "Element | None":
        return next((c for c in self.children if c.name == name), None)

    def child_text(self, name: str) -> str | None:
        found = self.child(name)
        return found.text.strip() if found is not None else None

    def all(self, name: str) -> list["Element"]:
        return [c for c in self.children if c.name == name]

    @property
    def empty(self) -> bool:
        return self.content_end == self.end


def _tag_end(data: bytes, start: int) -> int:
    """The offset just after the `>` of the tag starting at `start` (quotes respected)."""
    quote = 0
    for index in range(start + 1, len(data)):
        byte = data[index]
        if quote:
            if byte == quote:
                quote = 0
        elif byte in (0x22, 0x27):
            quote = byte
        elif byte == 0x3E:
            return index + 1
    return len(data)


_DECLARATION = re.compile(rb"""^(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def declared_encoding(path: str, data: bytes) -> str:
    """The encoding a pom.xml is written in: its XML declaration's (`encoding="ISO-8859-1"`), UTF-16
    by its byte order mark, else XML's default, UTF-8; Python's name for it."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16"
    match = _DECLARATION.match(data)
    name = match.group(1).decode("ascii") if match else "utf-8"
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise ManifestParseError(f"{path} declares the encoding {name!r}, which Python does not know",
                                 fix=f"name an encoding such as UTF-8 or ISO-8859-1 in the XML declaration of {path}, "
                                     "or save it as UTF-8") from None


def as_utf8(path: str, data: bytes) -> tuple[bytes, str]:
    """The file's text as UTF-8 bytes (what the positions of `parse` index) and the encoding to
    write it back in (`from_utf8`). A pom.xml is read in the encoding it declares (a Latin-1 pom of
    an older project raised UnicodeDecodeError, an internal error); bytes that are not that
    encoding are refused, naming the file, the byte and the fix."""
    encoding = declared_encoding(path, data)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        said = "as its XML declaration says" if _DECLARATION.match(data) else "(it declares no encoding: XML's default)"
        raise ManifestParseError(
            f"{path} is not {encoding} {said}: byte {exc.start} ({data[exc.start:exc.start + 1]!r}) does not decode",
            fix=f"save {path} as {encoding}, or name the encoding it is written in in its XML declaration "
                f"(<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>)") from None
    return (data if encoding == "utf-8" else text.encode("utf-8")), encoding


def from_utf8(data: bytes, encoding: str) -> bytes:
    """UTF-8 bytes back in the file's own encoding; a character it cannot hold becomes a character
    reference (`&#8364;`), which every XML reader reads as the character."""
    return data if encoding == "utf-8" else data.decode("utf-8").encode(encoding, "xmlcharrefreplace")


def parse(path: str, data: bytes) -> Element:
    """The root element of an XML file given as UTF-8 bytes (`as_utf8`), every element with its
    byte span; a file that is not well-formed XML is refused (`ManifestParseError`), naming the line."""
    parser = xml.parsers.expat.ParserCreate("UTF-8")   # the bytes are UTF-8 whatever the declaration says
    stack: list[Element] = []
    root: list[Element] = []

    def start(name: str, _attributes: dict) -> None:
        at = parser.CurrentByteIndex
        end = _tag_end(data, at)
        element = Element(name, at, end)
        if data[end - 2:end] == b"/>":
            element.content_end = element.end = end
        if stack:
            stack[-1].children.append(element)
        else:
            root.append(element)
        stack.append(element)

    def finish(_name: str) -> None:
        element = stack.pop()
        if not element.end:
            at = parser.CurrentByteIndex
            element.content_end, element.end = at, _tag_end(data, at)

    def characters(text: str) -> None:
        if stack:
            stack[-1].text += text

    parser.StartElementHandler = start
    parser.EndElementHandler = finish
    parser.CharacterDataHandler = characters
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as exc:
        raise ManifestParseError(f"{path} is not well-formed XML: {exc}",
                                 fix=f"correct {path} at line {exc.lineno} (conflict markers, an unclosed tag)") from None
    return root[0]


@value_class
class PomDependency:
    key: str                   # groupId:artifactId, then :type and :classifier when they are not the jar
    version: str | None
    options: tuple[tuple[str, object], ...]   # scope, optional, exclusions (sorted groupId:artifactId)...
    element: Element


@value_class
class PomFacts:
    root: Element
    text: bytes                # the file as UTF-8, which the elements' positions index
    encoding: str              # the file's own encoding (pom.from_utf8 writes it back in it)
    coordinates: str | None    # groupId:artifactId (the groupId may be the parent's)
    parent: str | None         # the parent's groupId:artifactId
    parent_path: str | None    # the parent's <relativePath> as written (None: not written)
    version: str | None
    dependencies: dict[str, dict[str, PomDependency]]   # "dependencies" | "dependencyManagement" -> key -> it
    modules: list[str]
    properties: dict[str, Element]
    others: dict[str, Element]  # every other top-level element, by name


# The groupId of a `<plugin>` that writes none (Maven's default for plugins).
DEFAULT_PLUGIN_GROUP = "org.apache.maven.plugins"


def plugin_key(element: Element) -> str:
    """A `<plugin>`'s groupId:artifactId, as Maven keys it (the groupId defaulting to Maven's own)."""
    return f"{element.child_text('groupId') or DEFAULT_PLUGIN_GROUP}:{element.child_text('artifactId') or ''}"


def build_document(data: bytes, build: Element) -> dict | str:
    """`<build>` as settings read it: its plugins (in `<plugins>` and in `<pluginManagement>`'s)
    keyed by groupId:artifactId, each as written, every other child whole, as written; so two tasks
    changing different plugins change different keys. A `<build>` that cannot be keyed so (a child
    or a plugin twice) stays one value, its text."""
    def keyed(holder: Element) -> dict | None:
        out: dict = {}
        for child in holder.children:
            if child.name == "plugins":
                plugins = {plugin_key(p): element_text(data, p) for p in child.all("plugin")}
                if len(plugins) != len(child.children):
                    return None       # a plugin twice, or something else among them
                value: object = plugins
            elif child.name == "pluginManagement" and holder is build:
                value = keyed(child)
                if value is None:
                    return None
            else:
                value = element_text(data, child)
            if child.name in out:
                return None
            out[child.name] = value
        return out

    found = keyed(build)
    return element_text(data, build) if found is None else found


def profiles_document(data: bytes, profiles: Element) -> dict | str:
    """`<profiles>` as settings read it: each `<profile>` keyed by its id, and in it its
    dependencies keyed as the main build's (`dependency_key`), its `<build>` as `build_document`
    reads the main one, every other child whole, as written; so two tasks changing different
    profiles, or different dependencies or plugins of one, change different keys (a `<profiles>`
    carried whole made them conflict). One that cannot be keyed so (a profile without an id or
    twice, a child or a dependency twice) stays one value, its text."""
    out: dict = {}
    for profile in profiles.children:
        name = profile.child_text("id") if profile.name == "profile" else None
        if not name or name in out:
            return element_text(data, profiles)
        keyed: dict = {}
        for child in profile.children:
            if child.name == "dependencies":
                value: object = {dependency_key(d): element_text(data, d) for d in child.all("dependency")}
                if len(value) != len(child.children):    # type: ignore[arg-type]
                    return element_text(data, profiles)
            elif child.name == "build":
                value = build_document(data, child)
            else:
                value = element_text(data, child)
            if child.name in keyed:
                return element_text(data, profiles)
            keyed[child.name] = value
        out[name] = keyed
    return out


def document_forms(document: dict, prefix: tuple[str, ...] = ()) -> dict[tuple[str, ...], str]:
    """Which keyed elements of a pom.xml's settings document (`read_pom`) settings.changes compares
    key by key when they are new ("table"): all but a profile, which Maven reads only with its id,
    so a new profile is one change, its whole element (one carried child by child was written
    without its `<id>`, before the id's own intent)."""
    forms: dict[tuple[str, ...], str] = {}
    for key, value in document.items():
        parts = (*prefix, str(key))
        if isinstance(value, dict):
            if not (len(parts) == 2 and parts[0] == "profiles"):
                forms[parts] = "table"
            forms.update(document_forms(value, parts))
    return forms


def profile_texts(path: str, data: bytes) -> dict[tuple[str, ...], str]:
    """Each keyed profile's element as written, by its settings key (`("profiles", id)`): a new
    profile is written so (its children in the task's order; its settings value, canonical JSON,
    holds them sorted)."""
    facts = read_facts(path, data)
    profiles = facts.root.child("profiles")
    return {("profiles", p.child_text("id") or ""): element_text(facts.text, p)
            for p in (profiles.all("profile") if profiles is not None else []) if p.child_text("id")}


# The element a keyed child of a holder is (`profiles."ci"` is a <profile>), by the holder's name.
KEYED_CHILDREN = {"profiles": "profile", "plugins": "plugin", "dependencies": "dependency"}


def keyed_child_key(element: Element) -> str:
    """The key of a keyed child (KEYED_CHILDREN): a profile's id, a plugin's or a dependency's coordinates."""
    if element.name == "profile":
        return element.child_text("id") or ""
    return plugin_key(element) if element.name == "plugin" else dependency_key(element)


def dependency_key(element: Element) -> str:
    group, artifact = element.child_text("groupId") or "", element.child_text("artifactId") or ""
    kind, classifier = element.child_text("type") or "jar", element.child_text("classifier") or ""
    key = f"{group}:{artifact}"
    if kind != "jar" or classifier:
        key += f":{kind}" + (f":{classifier}" if classifier else "")
    return key


def _dependency(element: Element) -> PomDependency:
    options: list[tuple[str, object]] = []
    for child in element.children:
        if child.name in (*COORDINATES, "version", "type", "classifier"):
            continue
        if child.name == "exclusions":
            excluded = sorted(f"{e.child_text('groupId') or ''}:{e.child_text('artifactId') or ''}"
                              for e in child.all("exclusion"))
            options.append(("exclusions", tuple(excluded)))
        else:
            options.append((child.name, child.text.strip()))
    return PomDependency(dependency_key(element), element.child_text("version"), tuple(sorted(options)), element)


def dependency_list(project: Element, group: str) -> Element | None:
    """The `<dependencies>` element of `group` ("dependencies" or "dependencyManagement")."""
    holder = project if group == "dependencies" else project.child("dependencyManagement")
    return holder.child("dependencies") if holder is not None else None


def read_facts(path: str, data: bytes) -> PomFacts:
    """What the pom.xml `data` (its bytes as stored, in any encoding it declares) says."""
    data, encoding = as_utf8(path, data)
    project = parse(path, data)
    if project.name != "project":
        raise ManifestParseError(f"{path}: the root element is <{project.name}>, not <project>",
                                 fix=f"make {path} a Maven POM (its root element <project>)")
    dependencies: dict[str, dict[str, PomDependency]] = {}
    for group in ("dependencies", "dependencyManagement"):
        listed = dependency_list(project, group)
        found: dict[str, PomDependency] = {}
        for element in listed.all("dependency") if listed is not None else []:
            dependency = _dependency(element)
            if dependency.key in found:
                raise ManifestParseError(f"{path}: {dependency.key} is declared twice in <{group}>",
                                         fix=f"keep one <dependency> for {dependency.key} in {path}")
            found[dependency.key] = dependency
        dependencies[group] = found
    parent = project.child("parent")
    parent_key = f"{parent.child_text('groupId')}:{parent.child_text('artifactId')}" if parent is not None else None
    group = project.child_text("groupId") or (parent.child_text("groupId") if parent is not None else None)
    artifact = project.child_text("artifactId")
    modules_element = project.child("modules")
    properties_element = project.child("properties")
    properties: dict[str, Element] = {}
    for element in properties_element.children if properties_element is not None else []:
        if element.name in properties:
            raise ManifestParseError(f"{path}: the property {element.name} is set twice in <properties>",
                                     fix=f"keep one <{element.name}> in {path}")
        properties[element.name] = element
    others: dict[str, Element] = {}
    for element in project.children:
        if element.name in MODELED_ELEMENTS:
            continue
        if element.name in others:
            raise ManifestParseError(f"{path}: <{element.name}> appears twice in <project>",
                                     fix=f"keep one <{element.name}> in {path}")
        others[element.name] = element
    return PomFacts(
        root=project,
        text=data,
        encoding=encoding,
        coordinates=f"{group}:{artifact}" if group and artifact else None,
        parent=parent_key,
        parent_path=parent.child_text("relativePath") if parent is not None else None,
        version=project.child_text("version"),
        dependencies=dependencies,
        modules=[m.text.strip() for m in modules_element.all("module")] if modules_element is not None else [],
        properties=properties,
        others=others,
    )


def element_text(data: bytes, element: Element) -> str:
    """The element as written (`data`: the file as UTF-8, `PomFacts.text`), from the start of its line when only its indentation precedes it
    there (the column it was written at travels with it) to the end of its end tag."""
    line = data.rfind(b"\n", 0, element.start) + 1
    start = line if not data[line:element.start].strip() else element.start
    return data[start:element.end].decode("utf-8")


def outside_project(path: str, data: bytes) -> bytes:
    """What a pom.xml holds around its `<project>`'s content: the XML declaration, comments before
    it, the start tag with its attributes (namespaces, schema location) and the end tag."""
    data = as_utf8(path, data)[0]
    project = parse(path, data)
    return data[:project.content_start] + data[project.content_end:]


def _folder_of(folder: str, target: str) -> str:
    """The folder a `<module>` or `<relativePath>` written in `folder`'s pom.xml names ("" = the
    repository's root): a path to a folder or to a pom file in it."""
    target = target.strip().replace("\\", "/")
    joined = posixpath.normpath(posixpath.join(folder or ".", target))
    if joined.endswith(".xml"):
        joined = posixpath.dirname(joined)
    return "" if joined in (".", "") else joined


def build_folders(root: str, read: Callable[[str], bytes | None]) -> list[str]:
    """The folders of the Maven build whose aggregator is `root`'s pom.xml, `root` first: its
    `<modules>`, theirs in turn, and the parents they name by `<parent><relativePath>`. Only these
    are the build's: a pom.xml in a folder below that none declares (an example, a test fixture,
    a separate build) is not. `read(path)` gives a file's bytes (None: absent); a pom.xml that does
    not parse declares nothing."""
    found, queue = [root], [root]
    while queue:
        folder = queue.pop(0)
        data = read(posixpath.join(folder, "pom.xml") if folder else "pom.xml")
        try:
            facts = read_facts(f"{folder}/pom.xml", data) if data is not None else None
        except ManifestParseError:
            facts = None
        if facts is None:
            continue
        named = [*facts.modules, *([facts.parent_path] if facts.parent_path else [])]
        for target in named:
            inner = _folder_of(folder, target)
            if inner not in found and read(posixpath.join(inner, "pom.xml") if inner else "pom.xml") is not None:
                found.append(inner)
                queue.append(inner)
    return found

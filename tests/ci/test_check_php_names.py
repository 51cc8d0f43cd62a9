"""PHP's names are reached by namespace: a branch removing or renaming one that another file still
uses fails `wtc check`, naming every use.

PHP had no semantic profile: a task renaming a public static method called from another
namespace's file passed `wtc task check` and `wtc check` (names_unread said "NOT CHECKED ... php"),
and the tree failed at run time ("Call to undefined method"). Now every PHP file is one package
(merge/checks/linked.py, a package of PHP's own), and a name spelled at a use means the whole name
PHP's rules give it (merge/checks/name_imports.py): a `use` clause's (`use A\\B\\C;`, `as`, a group,
`use function`, `use const`), else the file's namespace's; `\\A\\B\\C` always that one; an
unqualified function falls back to the global one. What must not block: a class of the same name
another namespace defines, imported by the user; a trait's method moved into the class using it; a
method whose only calls are on a variable of unknown class (`$x->m()`: dynamic, never resolved, and
not said either: the faces list no unresolved calls); a namespaced function named like one of
PHP's own (an unqualified call falls back to it).
"""

from __future__ import annotations

from pathlib import Path

from tests.ci.ci_helpers import feature_branch as branch, left_behind_uses as uses, rename_through_the_faces
from tests.conftest import wtc_in_process


def check(repo: Path) -> dict:
    return wtc_in_process(repo, "check", "--own", "**", "--head", "feature", "--target", "main")


SERIALIZER = """<?php
declare(strict_types=1);

namespace Acme\\Core;

final class Serializer
{
    public const VERSION = '2';

    public static function serialize(mixed $value): string
    {
        return json_encode($value);
    }

    public function format(int $indent): string
    {
        return str_repeat(' ', $indent);
    }
}
"""
CLIENT = """<?php
declare(strict_types=1);

namespace Acme\\Web;

use Acme\\Core\\Serializer;

class Client
{
    public function send(mixed $body): string
    {
        $s = new Serializer();
        return Serializer::serialize($body) . Serializer::VERSION;
    }
}
"""


def test_a_public_static_method_renamed_is_left_behind_in_another_namespaces_file(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"src/Core/Serializer.php": SERIALIZER, "src/Web/Client.php": CLIENT},
                  {"src/Core/Serializer.php": SERIALIZER.replace("function serialize(", "function toJson(")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Web/Client.php", [13], "Serializer::serialize", "src/Core/Serializer.php")], found
    _, body = check(repo)
    assert body["names_unread"] == {}, "PHP is read now: no caveat"
    assert body["left_behind"][0]["replacement"] == "Serializer::toJson"


def test_a_class_constant_renamed_is_left_behind(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"src/Core/Serializer.php": SERIALIZER, "src/Web/Client.php": CLIENT},
                  {"src/Core/Serializer.php": SERIALIZER.replace("VERSION", "FORMAT_VERSION")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Web/Client.php", [13], "Serializer::VERSION", "src/Core/Serializer.php")], found


def test_a_class_removed_is_left_behind_where_it_is_imported_and_newed(tmp_path: Path) -> None:
    """The class's file deleted: the `new` and the static call name it (and the members it reads,
    gone with it; its `use` clause alone would not: PHP loads no class there); a file of another
    namespace that imports its own `Serializer` (Acme\\Legacy's) does not. (Acme\\Core stays:
    another file declares it.)"""
    legacy = "<?php\nnamespace Acme\\Legacy;\n\nclass Serializer\n{\n    public static function serialize($v) { return ''; }\n}\n"
    other = ("<?php\nnamespace Acme\\Jobs;\n\nuse Acme\\Legacy\\Serializer;\n\n"
             "function run(): string { return (new Serializer())::serialize(1) . Serializer::serialize(2); }\n")
    repo = branch(tmp_path, {"src/Core/Serializer.php": SERIALIZER, "src/Web/Client.php": CLIENT,
                             "src/Core/Codec.php": "<?php\nnamespace Acme\\Core;\n\ninterface Codec { }\n",
                             "src/Legacy/Serializer.php": legacy, "src/Jobs/run.php": other},
                  {}, deleted=("src/Core/Serializer.php",))
    code, found = uses(repo)
    assert code == 1 and found == [("src/Web/Client.php", [12, 13], "Serializer", "src/Core/Serializer.php"),
                                   ("src/Web/Client.php", [13], "Serializer::VERSION", "src/Core/Serializer.php"),
                                   ("src/Web/Client.php", [13], "Serializer::serialize", "src/Core/Serializer.php")], found


def test_a_class_used_spelled_whole_or_from_its_own_namespace_is_left_behind(tmp_path: Path) -> None:
    """No `use` clause: `\\Acme\\Core\\Serializer` spelled whole, and `Serializer` in a file of
    Acme\\Core itself, mean the removed class; `Serializer` in a file of another namespace means that
    namespace's (none here: PHP would fail there too, but not on the name this branch removed)."""
    spelled = "<?php\nnamespace Acme\\Web;\n\nfunction encode($v) { return \\Acme\\Core\\Serializer::serialize($v); }\n"
    sibling = "<?php\nnamespace Acme\\Core;\n\nfunction encode($v) { return Serializer::serialize($v); }\n"
    elsewhere = "<?php\nnamespace Acme\\Jobs;\n\nfunction encode($v) { return Serializer::serialize($v); }\n"
    repo = branch(tmp_path, {"src/Core/Serializer.php": SERIALIZER, "src/Web/encode.php": spelled,
                             "src/Core/encode.php": sibling, "src/Jobs/encode.php": elsewhere},
                  {"src/Core/Serializer.php": SERIALIZER.replace("function serialize(", "function toJson(")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Core/encode.php", [4], "Serializer::serialize", "src/Core/Serializer.php"),
                                   ("src/Web/encode.php", [4], "Serializer::serialize", "src/Core/Serializer.php")], found


HELPERS = """<?php
namespace Acme\\Support;

function slugify(string $text): string
{
    return strtolower($text);
}

const SEPARATOR = '-';
"""


def test_a_function_renamed_is_left_behind_where_use_function_imports_it(tmp_path: Path) -> None:
    """`use function Acme\\Support\\slugify;` then `slugify()`, a group import with an alias (the
    clause stands for the alias's calls, which spell another name), a call spelled whole and one from
    Acme\\Support itself are left behind; an unqualified call in another namespace with no import
    means that namespace's function, or the global one (PHP's fallback)."""
    imported = "<?php\nnamespace Acme\\Web;\n\nuse function Acme\\Support\\slugify;\n\necho slugify('A B');\n"
    grouped = ("<?php\nnamespace Acme\\Web;\n\nuse Acme\\Support\\{function slugify as slug, const SEPARATOR};\n\n"
               "echo slug('A B') . SEPARATOR;\n")
    spelled = "<?php\nnamespace Acme\\Jobs;\n\necho \\Acme\\Support\\slugify('A B');\n"
    sibling = "<?php\nnamespace Acme\\Support;\n\necho slugify('A B');\n"
    unrelated = "<?php\nnamespace Acme\\Blog;\n\nfunction slugify($t) { return $t; }\n\necho slugify('A B');\n"
    repo = branch(tmp_path, {"src/Support/helpers.php": HELPERS, "src/Web/a.php": imported, "src/Web/b.php": grouped,
                             "src/Jobs/c.php": spelled, "src/Support/d.php": sibling, "src/Blog/e.php": unrelated},
                  {"src/Support/helpers.php": HELPERS.replace("function slugify(", "function slug(")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Jobs/c.php", [4], "slugify", "src/Support/helpers.php"),
                                   ("src/Support/d.php", [4], "slugify", "src/Support/helpers.php"),
                                   ("src/Web/a.php", [6], "slugify", "src/Support/helpers.php"),
                                   ("src/Web/b.php", [4], "slugify", "src/Support/helpers.php")], found


def test_a_namespaced_function_named_like_a_builtin_removed_leaves_its_unqualified_calls_working(tmp_path: Path) -> None:
    """A polyfill `Acme\\Support\\str_contains` removed: `str_contains()` in Acme\\Support falls back
    to PHP's own; the call spelled whole (`\\Acme\\Support\\str_contains`) is never resolved either
    (a builtin's name: profile `globals`), which costs a finding at worst, never a false block."""
    polyfill = "<?php\nnamespace Acme\\Support;\n\nfunction str_contains(string $h, string $n): bool { return false; }\n"
    user = "<?php\nnamespace Acme\\Support;\n\nfunction has($h) { return str_contains($h, 'x'); }\n"
    repo = branch(tmp_path, {"src/Support/polyfill.php": polyfill, "src/Support/has.php": user},
                  {}, deleted=("src/Support/polyfill.php",))
    assert uses(repo) == (0, [])


SUIT = """<?php
namespace Acme\\Cards;

enum Suit: string
{
    case Hearts = 'H';
    case Spades = 'S';

    public function color(): string { return $this === self::Hearts ? 'red' : 'black'; }
}
"""
DEALER = """<?php
namespace Acme\\Game;

use Acme\\Cards\\Suit;

final class Dealer
{
    public function trump(): Suit { return Suit::Hearts; }
}
"""


def test_an_enum_case_renamed_is_left_behind(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"src/Cards/Suit.php": SUIT, "src/Game/Dealer.php": DEALER},
                  {"src/Cards/Suit.php": SUIT.replace("Hearts", "Hearts2")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Game/Dealer.php", [8], "Suit::Hearts", "src/Cards/Suit.php")], found


TRAIT = """<?php
namespace Acme\\Greeting;

trait Greets
{
    public function greet(): string { return 'hi ' . $this->name(); }
}
"""
GREETER = """<?php
namespace Acme\\Greeting;

class Greeter
{
    use Greets;

    public function name(): string { return 'you'; }
    public function twice(): string { return $this->greet() . $this->greet(); }
}
"""


def test_a_trait_method_moved_into_the_class_using_it_is_not_a_block(tmp_path: Path) -> None:
    user = "<?php\nnamespace Acme\\App;\n\nuse Acme\\Greeting\\Greeter;\n\necho (new Greeter())->greet();\n"
    moved = GREETER.replace("    use Greets;\n\n", "    public function greet(): string { return 'hi ' . $this->name(); }\n\n")
    repo = branch(tmp_path, {"src/Greeting/Greets.php": TRAIT, "src/Greeting/Greeter.php": GREETER, "src/App/hi.php": user},
                  {"src/Greeting/Greeter.php": moved, "src/Greeting/Greets.php": TRAIT.replace(
                      "    public function greet(): string { return 'hi ' . $this->name(); }\n", "")})
    assert uses(repo) == (0, [])


def test_a_method_called_only_on_variables_of_unknown_class_is_not_a_block(tmp_path: Path) -> None:
    """`$x->format()` where nothing says what `$x` holds (a factory's result, an untyped parameter)
    is dynamic: never resolved, so renaming `format` blocks nothing; a parameter typed with the class
    (`Serializer $s`) is sure, and its call is named."""
    unknown = ("<?php\nnamespace Acme\\Web;\n\nfunction show($x, $factory) {\n"
               "    $y = $factory->make();\n    return $x->format(2) . $y->format(4);\n}\n")
    typed = ("<?php\nnamespace Acme\\Web;\n\nuse Acme\\Core\\Serializer;\n\n"
             "function pad(Serializer $s): string { return $s->format(2); }\n")
    repo = branch(tmp_path, {"src/Core/Serializer.php": SERIALIZER, "src/Web/show.php": unknown},
                  {"src/Core/Serializer.php": SERIALIZER.replace("function format(", "function indent(")})
    assert uses(repo) == (0, [])
    repo = branch(tmp_path / "typed", {"src/Core/Serializer.php": SERIALIZER, "src/Web/show.php": unknown,
                                       "src/Web/pad.php": typed},
                  {"src/Core/Serializer.php": SERIALIZER.replace("function format(", "function indent(")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Web/pad.php", [6], "Serializer::format", "src/Core/Serializer.php")], found


def test_a_namespace_renamed_is_left_behind_where_a_use_clause_names_it(tmp_path: Path) -> None:
    """Acme\\Core becomes Acme\\Codec in its only file: the `use Acme\\Core\\Serializer;` clause of
    another file names a namespace no file declares any more."""
    repo = branch(tmp_path, {"src/Core/Serializer.php": SERIALIZER, "src/Web/Client.php": CLIENT},
                  {"src/Core/Serializer.php": SERIALIZER.replace("namespace Acme\\Core;", "namespace Acme\\Codec;")})
    code, found = uses(repo)
    assert code == 1 and ("src/Web/Client.php", [6], "Core", "src/Core/Serializer.php") in found, found


def test_a_file_deleted_from_a_namespace_other_files_declare_removes_no_namespace(tmp_path: Path) -> None:
    files = {f"src/Core/Part{n}.php": f"<?php\nnamespace Acme\\Core;\n\nclass Part{n} {{ }}\n" for n in range(1, 4)}
    files["src/Web/Use.php"] = "<?php\nnamespace Acme\\Web;\n\nuse Acme\\Core\\Part2;\n\nnew Part2();\n"
    repo = branch(tmp_path, files, {}, deleted=("src/Core/Part1.php",))
    assert uses(repo) == (0, [])


def test_task_check_finish_and_merge_block_a_php_rename_left_behind_and_a_call_added_meanwhile(tmp_path: Path) -> None:
    """The lead's faces: `task check` of a task renaming a static method still called in another
    namespace's file says it would be refused, its finish does not merge; a task renaming a method
    nobody calls merges, and a second task's new call of the old name is a semantic conflict at its
    merge; `wtc merge` (the queue after `finish --no-merge`) holds one back the same way."""
    serializer = SERIALIZER.replace("    public function format", "    public static function reset(): void { }\n\n"
                                                                  "    public function format")
    rename_through_the_faces(
        tmp_path, {"src/Core/Serializer.php": serializer, "src/Web/Client.php": CLIENT}, "src/Core/**",
        {"src/Core/Serializer.php": serializer.replace("function serialize(", "function toJson(")},
        {"src/Core/Serializer.php": serializer.replace("function reset(", "function clear(")}, "src/Web/**",
        {"src/Web/Client.php": CLIENT.replace("        $s = new Serializer();\n",
                                              "        $s = new Serializer();\n        Serializer::reset();\n")},
        "Serializer::reset", "src/Web/Client.php")


def test_classes_deleted_by_a_branch_that_requires_a_new_package_are_not_known_gone(tmp_path: Path) -> None:
    """Slim c4dd3437 deleted Slim/Http/*.php and required slim/http, whose classes keep their whole
    names (Slim\\Http\\Request): the uses left are that package's now. The same deletion with no new
    requirement leaves them behind."""
    composer = '{\n    "name": "acme/app",\n    "require": {\n        "php": ">=8.1"\n    }\n}\n'
    files = {"composer.json": composer, "src/Core/Serializer.php": SERIALIZER, "src/Web/Client.php": CLIENT}
    required = composer.replace('"php": ">=8.1"', '"php": ">=8.1",\n        "acme/serializer": "^1.0"')
    repo = branch(tmp_path, files, {"composer.json": required}, deleted=("src/Core/Serializer.php",))
    assert uses(repo) == (0, [])
    repo = branch(tmp_path / "alone", files, {}, deleted=("src/Core/Serializer.php",))
    code, found = uses(repo)
    assert code == 1 and ("src/Web/Client.php", [12, 13], "Serializer", "src/Core/Serializer.php") in found, found



def test_a_function_removed_is_no_member_called_through_a_receiver(tmp_path: Path) -> None:
    """Function Acme\\Web\\make removed: `Factory::make()` and `$f->make()` call members, not it;
    the bare `make()` beside them does."""
    helpers = "<?php\nnamespace Acme\\Web;\n\nfunction make(): array { return []; }\n"
    user = ("<?php\nnamespace Acme\\Web;\n\nfunction build($f): array\n{\n"
            "    return [Factory::make(), $f->make(), $f?->make()];\n}\n\nfunction plain(): array { return make(); }\n")
    repo = branch(tmp_path, {"src/Web/helpers.php": helpers, "src/Web/build.php": user},
                  {}, deleted=("src/Web/helpers.php",))
    code, found = uses(repo)
    assert code == 1 and found == [("src/Web/build.php", [9], "make", "src/Web/helpers.php")], found


def test_a_member_an_abstract_class_or_a_trait_calls_on_this_may_stand_in_a_subclass(tmp_path: Path) -> None:
    """`$this->render()` in an abstract class or a trait is answered by whichever class extends or
    uses it: the method moved down from them blocks nothing."""
    base = ("<?php\nnamespace Acme\\View;\n\nabstract class Page\n{\n    public function show(): string { return $this->render(); }\n"
            "    public function render(): string { return ''; }\n}\n")
    trait = ("<?php\nnamespace Acme\\View;\n\ntrait Shows\n{\n    public function show(): string { return $this->render(); }\n"
             "    public function render(): string { return ''; }\n}\n")
    repo = branch(tmp_path, {"src/View/Page.php": base, "src/View/Shows.php": trait},
                  {"src/View/Page.php": base.replace("    public function render(): string { return ''; }\n", ""),
                   "src/View/Shows.php": trait.replace("    public function render(): string { return ''; }\n", "")})
    assert uses(repo) == (0, [])


def test_a_method_renamed_is_left_behind_where_its_own_class_calls_it(tmp_path: Path) -> None:
    """Composer's Platform::isWindows renamed left its own `self::isWindows()` calls: in the file that
    renamed it, `self::`, `static::` and `$this->` read the class around them (no base, no trait)."""
    platform = ("<?php\nnamespace Acme\\Util;\n\nclass Platform\n{\n    public static function isWindows(): bool { return false; }\n\n"
                "    public static function home(): string { return self::isWindows() ? 'C:' : static::isWindows() . '/'; }\n\n"
                "    public function sep(): string { return $this->isWindows() ? '\\\\' : '/'; }\n}\n")
    repo = branch(tmp_path, {"src/Util/Platform.php": platform},
                  {"src/Util/Platform.php": platform.replace("function isWindows(", "function isWindowsOs(")})
    code, found = uses(repo)
    assert code == 1 and found == [("src/Util/Platform.php", [8, 10], "Platform::isWindows", "src/Util/Platform.php")], found


def test_a_method_dropped_from_a_class_with_a_parent_is_not_looked_for(tmp_path: Path, monkeypatch) -> None:
    """laravel 0b125e6a dropped `setUp` and `tearDown` from test classes that extend TestCase: a
    parent may give them, so no removal is ever a use left behind, yet the look searched 441 files
    mentioning them, read its 400 and gave no answer. Members of a class with bases are not looked
    for (here at most 2 files are read, and 4 others mention `setUp`)."""
    from worktree_coord.check import uses_left_behind
    monkeypatch.setattr(uses_left_behind, "MAX_MENTIONING", 2)
    case = ("<?php\nnamespace Acme\\Tests;\n\nclass Case%dTest extends TestCase\n{\n"
            "    protected function setUp(): void { parent::setUp(); }\n\n    public function testIt(): void { }\n}\n")
    files = {f"tests/Case{n}Test.php": case % n for n in range(1, 6)}
    repo = branch(tmp_path, files, {"tests/Case1Test.php": (case % 1).replace(
        "    protected function setUp(): void { parent::setUp(); }\n\n", "")})
    assert uses(repo) == (0, [])

"""C's names are the linker's: a branch removing or renaming one that another file still uses fails
`wtc check`, naming every use.

Found driving wtc on lua/lua: a task renaming `luaL_checknumber` in lauxlib.c and lauxlib.h (36 uses
in 10 other .c files) passed `wtc task check` and `wtc check`; the tree no longer linked. C had no
semantic profile. Now every C and C++ file shares one package (merge/checks/linked.py): a use in any
file that neither defines nor declares the name itself may mean a definition in any other, reached
by word, not by `#include`. What must not block: a `static` function is its file's alone; a name
still defined anywhere (an `#ifdef` twin, another file's variant) is not removed; a struct field is
no name of its own; a name inside text the parser could not read (a macro's arguments) is not taken
as removed.
"""

from __future__ import annotations

from pathlib import Path

from tests.ci.ci_helpers import feature_branch as branch, left_behind_uses as uses
from tests.conftest import make_repo, write, wtc_in_process


def test_a_function_renamed_in_its_header_and_file_is_left_behind_in_a_caller(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"a.h": "int foo(int);\n",
                             "a.c": '#include "a.h"\nint foo(int x) { return x + 1; }\n',
                             "b.c": '#include "a.h"\nint bar(void) { return foo(2); }\n'},
                  {"a.h": "int foo2(int);\n", "a.c": '#include "a.h"\nint foo2(int x) { return x + 1; }\n'})
    code, found = uses(repo)
    assert code == 1 and found == [("b.c", [2], "foo", "a.c")], found
    _, body = wtc_in_process(repo, "check", "--own", "**", "--head", "feature", "--target", "main")
    assert body["names_unread"] == {}, "C is read now: no caveat"
    assert body["left_behind"][0]["replacement"] == "foo2"


LAUXLIB_H = """#define LUALIB_API extern
typedef double lua_Number;
typedef struct lua_State lua_State;
LUALIB_API lua_Number (luaL_checknumber) (lua_State *L, int arg);
LUALIB_API lua_Number (luaL_optnumber) (lua_State *L, int arg, lua_Number def);
#define luaL_checkint(L,n)\t((int)luaL_checknumber(L, (n)))
"""
LAUXLIB_C = """#include "lauxlib.h"
LUALIB_API lua_Number luaL_checknumber (lua_State *L, int arg) {
  return (lua_Number)arg;
}
LUALIB_API lua_Number luaL_optnumber (lua_State *L, int arg, lua_Number def) {
  return arg ? luaL_checknumber(L, arg) : def;
}
"""
LMATHLIB_C = """#include "lauxlib.h"
#define cast(t, exp)\t((t)(exp))
static int math_abs (lua_State *L) {
  lua_Number d = cast(lua_Number, luaL_checknumber(L, 1));
  return (int)d;
}
static int math_floor (lua_State *L) {
  return (int)luaL_checknumber(L, 1) + luaL_checkint(L, 2);
}
"""


def test_lua_api_macro_and_parenthesized_declarator(tmp_path: Path) -> None:
    """`LUALIB_API lua_Number (luaL_checknumber) (...)`: a macro before the type and the name in
    parentheses; every use in lmathlib.c is named, the one in a `cast(...)` the parser cannot read
    whole too (lmathlib.c line 4)."""
    repo = branch(tmp_path, {"lauxlib.h": LAUXLIB_H, "lauxlib.c": LAUXLIB_C, "lmathlib.c": LMATHLIB_C},
                  {"lauxlib.h": LAUXLIB_H.replace("luaL_checknumber", "luaL_checknum"),
                   "lauxlib.c": LAUXLIB_C.replace("luaL_checknumber", "luaL_checknum")})
    code, found = uses(repo)
    assert code == 1 and found == [("lmathlib.c", [4, 8], "luaL_checknumber", "lauxlib.c")], found


def test_a_macro_renamed_is_left_behind(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"lauxlib.h": LAUXLIB_H, "lauxlib.c": LAUXLIB_C, "lmathlib.c": LMATHLIB_C},
                  {"lauxlib.h": LAUXLIB_H.replace("luaL_checkint", "luaL_checkinteger")})
    code, found = uses(repo)
    assert code == 1 and found == [("lmathlib.c", [8], "luaL_checkint", "lauxlib.h")], found


ENUM_H = "typedef enum { OP_MOVE, OP_LOADK, OP_CALL } OpCode;\nstruct Proto { int numparams; };\n"
ENUM_USE = ('#include "lopcodes.h"\n'
            "int is_call(OpCode op, struct Proto *p) {\n  return op == OP_CALL && p->numparams > 0;\n}\n")


def test_an_enum_constant_renamed_is_left_behind(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"lopcodes.h": ENUM_H, "lvm.c": ENUM_USE},
                  {"lopcodes.h": ENUM_H.replace("OP_CALL", "OP_CALLX")})
    code, found = uses(repo)
    assert code == 1 and found == [("lvm.c", [3], "OP_CALL", "lopcodes.h")], found


def test_a_struct_field_renamed_is_not_a_name_the_check_follows(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"lopcodes.h": ENUM_H, "lvm.c": ENUM_USE},
                  {"lopcodes.h": ENUM_H.replace("numparams", "nparams")})
    assert uses(repo) == (0, [])


def test_a_static_function_is_its_own_files(tmp_path: Path) -> None:
    """a.c's `static int helper` renamed: b.c's `helper()` is util.c's, declared in util.h."""
    repo = branch(tmp_path, {"util.h": "int helper(void);\n", "util.c": "int helper(void) { return 1; }\n",
                             "a.c": "static int helper(void) { return 2; }\nint a(void) { return helper(); }\n",
                             "b.c": '#include "util.h"\nint b(void) { return helper(); }\n'},
                  {"a.c": "static int helper2(void) { return 2; }\nint a(void) { return helper2(); }\n"})
    assert uses(repo) == (0, [])


def test_a_static_function_renamed_is_left_behind_in_its_own_file(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"a.c": "static int helper(void) { return 2; }\nint a(void) { return helper(); }\n"},
                  {"a.c": "static int helper2(void) { return 2; }\nint a(void) { return helper(); }\n"})
    code, found = uses(repo)
    assert code == 1 and found == [("a.c", [2], "helper", "a.c")], found


def test_an_ifdef_twin_still_defines_the_name(tmp_path: Path) -> None:
    """One branch of an `#ifdef` renamed, the other still defines it; and a platform's own file."""
    twins = "#ifdef _WIN32\nint now(void) { return 1; }\n#else\nint now(void) { return 2; }\n#endif\n"
    repo = branch(tmp_path, {"time.c": twins, "win.c": "int tick(void) { return 3; }\n",
                             "posix.c": "int tick(void) { return 4; }\n",
                             "main.c": "int now(void);\nint tick(void);\nint main(void) { return now() + tick(); }\n"},
                  {"time.c": twins.replace("int now(void) { return 1; }", "int now_win(void) { return 1; }"),
                   "posix.c": "int tick_posix(void) { return 4; }\n"})
    assert uses(repo) == (0, [])


def test_a_name_a_macro_generates_is_never_reported(tmp_path: Path) -> None:
    """`DEF(parse)` defines `parse_fn` where the check cannot see it: the pin never defined it
    visibly, so a use of it is no use of a removed name, whatever the branch does to the macro."""
    repo = branch(tmp_path, {"gen.h": "#define DEF(x) int x##_fn(void)\nDEF(parse);\n",
                             "use.c": '#include "gen.h"\nint main(void) { return parse_fn(); }\n'},
                  {"gen.h": "#define DEFINE(x) int x##_fn(void)\nDEFINE(parse);\n"})
    code, found = uses(repo)
    assert [row for row in found if row[2] == "parse_fn"] == [], found


def test_a_function_given_a_parameter_is_left_behind_where_calls_pass_the_old_count(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"a.h": "int scale(int x);\n",
                             "a.c": '#include "a.h"\nint scale(int x) { return 2 * x; }\n',
                             "b.c": '#include "a.h"\nint b(void) { return scale(3); }\nint c(void) { return scale(4); }\n',
                             "log.c": '#include <stdio.h>\nint say(const char *f, ...);\nint d(void) { return say("%d", 1, 2); }\n'},
                  {"a.h": "int scale(int x, int by);\n",
                   "a.c": '#include "a.h"\nint scale(int x, int by) { return by * x; }\n',
                   "log.c": '#include <stdio.h>\nint say(const char *f, int n, ...);\nint d(void) { return say("%d", 1, 2); }\n'})
    code, body = wtc_in_process(repo, "check", "--own", "**", "--head", "feature", "--target", "main")
    found = sorted((u["use_path"], u["use_lines"], u["name"], u["signature"], u["arguments"]) for u in body["left_behind"])
    assert code == 1 and found == [("b.c", [2, 3], "scale", True, 1)], found


def test_a_macro_named_only_in_preprocessor_conditions_is_no_use(tmp_path: Path) -> None:
    """lua 0b73ed8f: `#define LUA_32BITS 0` removed so a build may define it (`-DLUA_32BITS`);
    `#if LUA_32BITS` and `#if defined(...)` read an undefined macro as 0 and still compile."""
    conf = "#define LUA_32BITS 0\n#define LUA_COMPAT 1\n"
    repo = branch(tmp_path, {"luaconf.h": conf,
                             "lua.h": '#include "luaconf.h"\n#if LUA_32BITS\ntypedef int lua_Int;\n#elif defined(LUA_COMPAT)'
                                      ' && LUA_COMPAT > 0\ntypedef long lua_Int;\n#endif\n#ifdef LUA_32BITS\n#endif\n'},
                  {"luaconf.h": "\n"})
    assert uses(repo) == (0, [])


def test_a_typedef_moved_from_a_file_to_its_header_is_not_removed(tmp_path: Path) -> None:
    """lua fa1382b5: `typedef struct LX` moved from lstate.c into lstate.h, which lstate.c includes."""
    state_c = '#include "lstate.h"\ntypedef struct LX { int l; } LX;\nint size(void) { return sizeof(LX); }\n'
    repo = branch(tmp_path, {"lstate.h": "struct lua_State;\n", "lstate.c": state_c},
                  {"lstate.h": "struct lua_State;\ntypedef struct LX { int l; } LX;\n",
                   "lstate.c": '#include "lstate.h"\nint size(void) { return sizeof(LX); }\n'})
    assert uses(repo) == (0, [])


STORE_H = ("#pragma once\nnamespace kv {\nclass Store {\n public:\n  void Put(int key);\n  int Get(int key) const;\n};\n"
           "int Hash(int key);\n}\n")
STORE_CC = ('#include "store.h"\nnamespace kv {\nvoid Store::Put(int key) { (void)Hash(key); }\n'
            "int Store::Get(int key) const { return key; }\nint Hash(int key) { return key * 31; }\n}\n")
MAIN_CC = ('#include "store.h"\nnamespace kv {\nint Run(Store* db, const Store& ro) {\n  Store local;\n  local.Put(1);\n'
           "  db->Put(2);\n  return ro.Get(3) + Hash(4);\n}\n}\n")


def test_a_cpp_method_renamed_is_left_behind_where_an_object_of_its_class_calls_it(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"store.h": STORE_H, "store.cc": STORE_CC, "main.cc": MAIN_CC},
                  {"store.h": STORE_H.replace("Put", "Insert"), "store.cc": STORE_CC.replace("Put", "Insert")})
    code, found = uses(repo)
    assert code == 1 and found == [("main.cc", [5, 6], "Store.Put", "store.h")], found


def test_a_cpp_function_in_a_namespace_renamed_is_left_behind(tmp_path: Path) -> None:
    repo = branch(tmp_path, {"store.h": STORE_H, "store.cc": STORE_CC, "main.cc": MAIN_CC},
                  {"store.h": STORE_H.replace("Hash", "Digest"), "store.cc": STORE_CC.replace("Hash", "Digest")})
    code, found = uses(repo)
    assert code == 1 and found == [("main.cc", [7], "Hash", "store.cc")], found


def test_a_cpp_method_of_a_class_with_a_base_or_another_class_is_not_followed(tmp_path: Path) -> None:
    """`Derived d; d.Put()` may be its base's Put; `Other o; o.Put()` is another class's."""
    derived = ('#include "store.h"\nnamespace kv {\nclass Derived : public Store { public: void Put(int key); };\n'
               "class Other { public: void Put(int key); };\n"
               "void Use(Derived d, Other o) { d.Put(1); o.Put(2); }\n}\n")
    repo = branch(tmp_path, {"store.h": STORE_H, "store.cc": STORE_CC, "use.cc": derived},
                  {"store.h": STORE_H.replace("Put", "Insert"), "store.cc": STORE_CC.replace("Put", "Insert")})
    assert uses(repo) == (0, [])


def test_a_header_deleted_while_a_file_still_includes_it_is_left_behind(tmp_path: Path) -> None:
    """`#include "lzio.h"` of a header the branch deleted: the includer stops compiling; one that a
    file of the same name beside the includer answers, or `<lzio.h>` (a system header), does not."""
    repo = branch(tmp_path, {"src/lzio.h": "#define ZIO_EOF (-1)\n", "src/lzio.c": '#include "lzio.h"\nint z;\n',
                             "src/lparser.c": '#include <stdio.h>\n#include "lzio.h"\nint p;\n',
                             "tools/lzio.h": "#define TOOL 1\n", "tools/t.c": '#include "lzio.h"\nint t;\n',
                             "lib/l.c": "#include <lzio.h>\nint l;\n"},
                  {"src/lzio.c": "int z;\n"}, deleted=("src/lzio.h",))
    code, found = uses(repo)
    assert code == 1 and found == [("src/lparser.c", [2], "lzio.h", "src/lzio.h")], found


def test_void_written_for_an_empty_list_reshapes_nothing(tmp_path: Path) -> None:
    """leveldb e22b1cec: `leveldb_major_version()` declared `leveldb_major_version(void)`; the calls
    `leveldb_major_version()` still compile. In C `f()` takes any arguments, `f(void)` none."""
    repo = branch(tmp_path, {"c.h": "int major(void);\nint minor();\n",
                             "c.c": '#include "c.h"\nint major(void) { return 1; }\nint minor() { return 2; }\n',
                             "t.c": '#include "c.h"\nint t(void) { return major() + minor(); }\n'},
                  {"c.h": "int major();\nint minor(void);\n",
                   "c.c": '#include "c.h"\nint major() { return 1; }\nint minor(void) { return 2; }\n'})
    assert uses(repo) == (0, [])


def test_an_export_macro_after_class_keeps_its_methods_members(tmp_path: Path) -> None:
    """leveldb 63919522: `class LEVELDB_EXPORT Cache {` read as top-level code made its private
    `Unref` look like a top-level function; dropping it looked like a removal used by LRUCache's own
    `Unref(e)` in cache.cc."""
    cache_h = ("namespace leveldb {\nclass LEVELDB_EXPORT Cache {\n public:\n  virtual ~Cache();\n"
               " private:\n  void Unref(int* e);\n};\n}\n")
    cache_cc = ('#include "cache.h"\nnamespace leveldb {\nclass LRUCache {\n  void Unref(int* e);\n'
                "  void Release(int* e) { Unref(e); }\n};\n}\n")
    repo = branch(tmp_path, {"cache.h": cache_h, "cache.cc": cache_cc},
                  {"cache.h": cache_h.replace(" private:\n  void Unref(int* e);\n", "")})
    assert uses(repo) == (0, [])


def test_a_local_of_a_member_defined_outside_its_class_is_no_top_level_name(tmp_path: Path) -> None:
    """leveldb a7dc502e: `MutexLock lock(...)` in `void PosixEnv::Schedule(...) {...}` (a member
    defined outside its class) was read as a top-level `lock`; the branch dropped it, and memenv.cc's
    parameter `FileLock** lock` (a pointer to a pointer) looked like a use of it."""
    env = "void PosixEnv::Schedule(void* arg) {\n  MutexLock lock(&mu_);\n  Run(arg);\n}\n"
    memenv = "class InMemoryEnv {\n  int LockFile(const char* name, FileLock** lock) {\n    *lock = 0;\n    return 0;\n  }\n};\n"
    repo = branch(tmp_path, {"env_posix.cc": env, "memenv.cc": memenv},
                  {"env_posix.cc": env.replace("  MutexLock lock(&mu_);\n", "  mu_.Lock();\n")})
    assert uses(repo) == (0, [])


def test_task_check_and_finish_block_a_c_rename_left_behind_and_a_call_added_meanwhile(tmp_path: Path) -> None:
    """The lead's faces on the 3-file repro: `task check` of the renaming task says it would be
    refused (not "merges cleanly"), its finish does not merge it; a task that renames only where no
    file uses the name merges, and a second task's new call of the old name is a semantic conflict."""
    repo = make_repo(tmp_path / "repo", {"a.h": "int foo(int);\nint gone(int);\n",
                                         "a.c": '#include "a.h"\nint foo(int x) { return x + 1; }\nint gone(int x) { return x; }\n',
                                         "b.c": '#include "a.h"\nint bar(void) { return foo(2); }\n'})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    code, started = wtc_in_process(repo, "task", "start", "rename", "--run", "r", "--own", "a.*")
    assert code == 0, started
    write(Path(started["worktree"]), {"a.h": "int foo2(int);\nint gone(int);\n",
                                      "a.c": '#include "a.h"\nint foo2(int x) { return x + 1; }\nint gone(int x) { return x; }\n'})
    code, checked = wtc_in_process(repo, "task", "check", "rename", "--run", "r")
    assert code == 1 and checked["left_behind_blocks"], checked
    assert [(u["use_path"], u["name"]) for u in checked["left_behind"] if "use_path" in u] == [("b.c", "foo")]
    code, finished = wtc_in_process(repo, "task", "finish", "rename", "--run", "r")
    assert code == 1 and finished["state"] != "merged", finished

    code, started = wtc_in_process(repo, "task", "start", "drop", "--run", "r", "--own", "a.*")
    write(Path(started["worktree"]), {"a.h": "int foo(int);\nint gone2(int);\n",
                                      "a.c": '#include "a.h"\nint foo(int x) { return x + 1; }\nint gone2(int x) { return x; }\n'})
    code, user = wtc_in_process(repo, "task", "start", "user", "--run", "r", "--own", "c.c")
    write(Path(user["worktree"]), {"c.c": '#include "a.h"\nint baz(void) { return gone(3); }\n'})
    code, finished = wtc_in_process(repo, "task", "finish", "drop", "--run", "r")
    assert code == 0 and finished["state"] == "merged", finished
    code, finished = wtc_in_process(repo, "task", "finish", "user", "--run", "r")
    assert code == 1 and finished["state"] == "conflict", finished
    [conflict] = finished["conflicts"]
    assert conflict["semantic"]["name"] == "gone" and conflict["semantic"]["use_path"] == "c.c", conflict


def test_a_use_inside_a_macro_body_is_left_behind(tmp_path: Path) -> None:
    """lua loslib.c:67 `#define l_gettime(L,arg) luaL_checknumber(L, arg)`: the macro's body calls the
    renamed function wherever it is expanded; the check named lmathlib.c but not loslib.c."""
    loslib = ('#include "lauxlib.h"\n#if !defined(l_gettime)\n#define l_gettime(L,arg)\tluaL_checknumber(L, arg)\n'
              "#endif\n#define L_NUMBER\tluaL_optnumber\n")
    repo = branch(tmp_path, {"lauxlib.h": LAUXLIB_H, "lauxlib.c": LAUXLIB_C, "loslib.c": loslib},
                  {"lauxlib.h": LAUXLIB_H.replace("luaL_checknumber", "luaL_checknum").replace("luaL_optnumber", "luaL_optnum"),
                   "lauxlib.c": LAUXLIB_C.replace("luaL_checknumber", "luaL_checknum").replace("luaL_optnumber", "luaL_optnum")})
    code, found = uses(repo)
    assert code == 1 and found == [("loslib.c", [3], "luaL_checknumber", "lauxlib.c"),
                                   ("loslib.c", [5], "luaL_optnumber", "lauxlib.c")], found


def test_a_macro_parameter_a_member_a_pasted_or_quoted_word_is_no_use_of_a_global(tmp_path: Path) -> None:
    """A removed global `top` spelled in macro bodies only as a parameter, a member (`L->top`), a
    pasted (`top##_fn`) or quoted (`#top`) word, in a comment or a string: none of them reads it."""
    macros = ("#define push(top, v) ((top) = (v))\n#define settop(L) ((L)->top = 0)\n#define NAME(top) top##_fn #top\n"
              '#define MSG "top" /* top */\n')
    repo = branch(tmp_path, {"state.c": "int top;\nint get(void) { return 1; }\n", "m.h": macros},
                  {"state.c": "int get(void) { return 1; }\n"})
    assert uses(repo) == (0, [])


def test_a_prototype_left_while_its_definition_is_renamed_answers_no_call(tmp_path: Path) -> None:
    """`int f(void);` kept in a.h while a.c renames `int f(void) {...}` to g: b.c's call of f
    compiles and does not link. A prototype declares, it defines nothing; b.c's own `int f(void);`
    neither. Another file's body of f (a platform's variant) still answers."""
    files = {"a.h": "int f(void);\n", "a.c": '#include "a.h"\nint f(void) { return 1; }\n',
             "b.c": '#include "a.h"\nint b(void) { return f(); }\n',
             "c.c": "int f(void);\nint c(void) { return f() + 1; }\n"}
    renamed = {"a.c": '#include "a.h"\nint g(void) { return 1; }\n'}
    code, found = uses(branch(tmp_path / "alone", files, renamed))
    assert code == 1 and found == [("b.c", [2], "f", "a.c"), ("c.c", [2], "f", "a.c")], found
    variant = {**files, "win.c": "#ifdef _WIN32\nint f(void) { return 2; }\n#endif\n"}
    assert uses(branch(tmp_path / "variant", variant, renamed)) == (0, [])
    macro = {**files, "a.h": "int f(void);\n#define f() g()\n"}
    assert uses(branch(tmp_path / "macro", files, {**renamed, "a.h": macro["a.h"]})) == (0, [])


def test_a_static_inline_function_of_a_header_is_every_includers(tmp_path: Path) -> None:
    """`static inline int sq(int x)` in util.h renamed: a.c, which includes util.h, still calls sq.
    A static of a .c file stays its own (test_a_static_function_is_its_own_files)."""
    util = "static inline int sq(int x) { return x * x; }\n"
    repo = branch(tmp_path, {"util.h": util, "a.c": '#include "util.h"\nint a(void) { return sq(2); }\n'},
                  {"util.h": util.replace("sq", "square")})
    code, found = uses(repo)
    assert code == 1 and found == [("a.c", [2], "sq", "util.h")], found


def test_task_faces_block_a_macro_body_a_kept_prototype_and_a_header_static_left_behind(tmp_path: Path) -> None:
    """Through `task check`, `task finish --no-merge` and `wtc merge`: a body renamed under a kept
    prototype whose only caller is a macro's body, and a header's static inline renamed, are
    refused, naming the user."""
    repo = make_repo(tmp_path / "repo", {
        "aux.h": "int chk(int);\nstatic inline int sq(int x) { return x * x; }\n",
        "aux.c": '#include "aux.h"\nint chk(int x) { return x; }\n',
        "os.c": '#include "aux.h"\n#define gettime(L) chk(L)\nint t(void) { return gettime(1) + sq(2); }\n'})
    assert wtc_in_process(repo, "run", "start", "--run", "r")[0] == 0
    renames = {"body": {"aux.c": '#include "aux.h"\nint check(int x) { return x; }\n'},
               "inline": {"aux.h": "int chk(int);\nstatic inline int square(int x) { return x * x; }\n"}}
    for task, files in renames.items():
        code, started = wtc_in_process(repo, "task", "start", task, "--run", "r", "--own", "aux.*")
        assert code == 0, started
        write(Path(started["worktree"]), files)
        code, checked = wtc_in_process(repo, "task", "check", task, "--run", "r")
        assert code == 1 and [(u["use_path"], u["name"]) for u in checked["left_behind"]] == \
            [("os.c", "chk" if task == "body" else "sq")], checked
        assert wtc_in_process(repo, "task", "finish", task, "--run", "r", "--no-merge")[0] == 0
        code, merged = wtc_in_process(repo, "merge", "--run", "r")
        [result] = merged["tasks"]
        assert code == 1 and result["state"] == "conflict", merged
        assert [(c["semantic"]["use_path"], c["semantic"]["name"]) for c in result["conflicts"]] == \
            [("os.c", "chk" if task == "body" else "sq")], result
        assert wtc_in_process(repo, "task", "abandon", task, "--run", "r")[0] == 0


QUALIFIED_H = STORE_H.replace(" public:\n", " public:\n  static Store* Make();\n")
QUALIFIED_CC = STORE_CC.replace("namespace kv {\n", "namespace kv {\nStore* Store::Make() { return new Store(); }\n")
QUALIFIED_USE = ('#include <utility>\n#include "store.h"\nint Run() {\n  kv::Store* db = kv::Store::Make();\n'
                 "  int k = std::move(1);\n  return kv::Hash(k);\n}\n")


def test_a_cpp_qualified_call_of_a_renamed_function_or_static_member_is_left_behind(tmp_path: Path) -> None:
    """`kv::Hash(k)` (a function of a namespace) and `kv::Store::Make()` (a class's static member)
    were never followed: renaming either left the call behind unseen."""
    code, found = uses(branch(tmp_path / "function", {"store.h": QUALIFIED_H, "store.cc": QUALIFIED_CC, "main.cc": QUALIFIED_USE},
                              {"store.h": QUALIFIED_H.replace("Hash", "Digest"), "store.cc": QUALIFIED_CC.replace("Hash", "Digest")}))
    assert code == 1 and found == [("main.cc", [6], "Hash", "store.cc")], found
    code, found = uses(branch(tmp_path / "static", {"store.h": QUALIFIED_H, "store.cc": QUALIFIED_CC, "main.cc": QUALIFIED_USE},
                              {"store.h": QUALIFIED_H.replace("Make", "Create"), "store.cc": QUALIFIED_CC.replace("Make", "Create")}))
    assert code == 1 and found == [("main.cc", [4], "Store.Make", "store.h")], found


def test_a_cpp_qualified_call_into_another_namespace_or_a_class_with_bases_is_not_followed(tmp_path: Path) -> None:
    """`std::move` is no call of a removed `kv::move`; `other::Hash` is another namespace's; a
    static member reached through a class with a base may be the base's."""
    header = QUALIFIED_H.replace("int Hash(int key);", "int move(int key);\nint Hash(int key);")
    use = QUALIFIED_USE.replace("kv::Hash(k)", "other::Hash(k)") + "namespace other { int Hash(int k) { return k; } }\n"
    derived = ('#include "store.h"\nnamespace kv {\nclass Cached : public Store { };\n}\n'
               "int Use() { return kv::Cached::Make() != nullptr; }\n")
    repo = branch(tmp_path, {"store.h": header, "store.cc": QUALIFIED_CC + "int kv::move(int key) { return key; }\n",
                             "main.cc": use, "derived.cc": derived},
                  {"store.h": header.replace("Hash", "Digest").replace("move", "shift"),
                   "store.cc": (QUALIFIED_CC + "int kv::move(int key) { return key; }\n").replace("Hash", "Digest").replace("move", "shift")})
    assert uses(repo) == (0, [])


def test_a_cpp_method_reached_through_a_derived_class_is_its_one_bases(tmp_path: Path) -> None:
    """`Cached c; c.Put(1)` where `class Cached : public Store { }` declares no Put: Store's Put,
    renamed, is left behind. A derived class declaring its own Put, two bases, or a base with a base
    of its own say nothing."""
    cached = ('#include "store.h"\nnamespace kv {\nclass Cached : public Store { public: int hits; };\n'
              "void Use(Cached c) { c.Put(1); }\n}\n")
    renamed = {"store.h": STORE_H.replace("Put", "Insert"), "store.cc": STORE_CC.replace("Put", "Insert")}
    code, found = uses(branch(tmp_path / "one", {"store.h": STORE_H, "store.cc": STORE_CC, "use.cc": cached}, renamed))
    assert code == 1 and found == [("use.cc", [4], "Store.Put", "store.h")], found
    two = cached.replace("public Store {", "public Store, public Other {")
    deeper = STORE_H.replace("class Store {", "class Store : public Base {")
    for name, files in (("own", {"use.cc": cached.replace("int hits;", "void Put(int key);")}), ("two", {"use.cc": two}),
                        ("deeper", {"use.cc": cached, "store.h": deeper})):
        base = {"store.h": STORE_H, "store.cc": STORE_CC, **files}
        edits = {"store.h": base["store.h"].replace("Put", "Insert"), "store.cc": STORE_CC.replace("Put", "Insert")}
        assert uses(branch(tmp_path / name, base, edits)) == (0, []), name


def test_a_cpp_function_defined_by_its_qualified_name_instead_is_still_defined(tmp_path: Path) -> None:
    """store.cc rewrites `int Hash(int key) {...}` inside `namespace kv {` as `int kv::Hash(int key)
    {...}` outside it (which the query reads as no definition): the header's prototype is then not
    all that is left, and main.cc's call still links."""
    moved = STORE_CC.replace("int Hash(int key) { return key * 31; }\n}\n", "}\nint kv::Hash(int key) { return key * 31; }\n")
    repo = branch(tmp_path, {"store.h": STORE_H, "store.cc": STORE_CC, "main.cc": MAIN_CC}, {"store.cc": moved})
    assert uses(repo) == (0, [])

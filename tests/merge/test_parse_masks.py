"""C and C++ macros the grammar cannot read are read as spaces by the parse only (grammars/c.toml,
cpp.toml `parse_masks`): the tree keeps the source's offsets, names are read from the source's
bytes, and plain code is never touched. Shapes from lua, libuv and leveldb."""

from __future__ import annotations

import pytest

from worktree_coord.merge import merge_file
from worktree_coord.merge.languages.profiles import profile_for_path


def _parses(path: str, source: bytes) -> bool:
    profile = profile_for_path(path, source, source, source)
    return not profile.parse(source).root_node.has_error


@pytest.mark.parametrize("path, source", [
    ("lapi.c", b"LUA_API int lua_gettop (lua_State *L) {\n  return 1;\n}\n"),
    ("lauxlib.h", b"LUALIB_API const char *(luaL_tolstring) (lua_State *L, int idx, size_t *len);\n"),
    ("lvm.c", b"l_sinline int luaV_x (lua_State *L) {\n  return 0;\n}\n"),
    ("ltm.c", b"LUAI_DDEF const char *const luaT_typenames_[3] = {\"a\", \"b\", \"c\"};\n"),
    ("signal.c", b"static BOOL WINAPI uv__signal_control_handler(DWORD type);\n"),
    ("gai.c", b"DECLSPEC_IMPORT int WSAAPI GetAddrInfoW(const WCHAR* node);\n"),
    ("memenv.cc", b"LEVELDB_EXPORT Env* NewMemEnv(Env* base_env);\n"),
    ("db.cc", b"class DB {\n  void Wait(int s) LOCKS_EXCLUDED(mu_) {\n  }\n  int refs_ GUARDED_BY(mu_);\n};\n"),
    ("memenv.cc", b"class M {\n  void Remove(const std::string& f)\n      EXCLUSIVE_LOCKS_REQUIRED(mutex_) {\n  }\n};\n"),
    ("os.cc", b"#include <x.h>\n\nFMT_BEGIN_NAMESPACE\nint f() { return 1; }\n"),
])
def test_a_macro_the_grammar_cannot_read_no_longer_breaks_the_parse(path: str, source: bytes) -> None:
    assert _parses(path, source)


@pytest.mark.parametrize("path, source", [
    ("a.c", b"static const char *name (int x);\nunsigned long long count (void);\nstruct s *make (void);\n"
            b"lua_Number (lua_version) (lua_State *L);\ntypedef int (*fn) (int x);\nenum E { A_B, C_D };\n"),
    ("a.cc", b"Mutex MY_MUTEX(args);\nenum class E {\n  ONLY_VALUE\n};\nint x =\n    SOME_CONST\n    + 2;\n"
             b"virtual void f(int x) const override;\nstd::string g(int y);\nclass K {\n  uint64_t const offset_;\n};\n"
             b"void h() {\n  if (x)\n    FMT_ASSERT(true, \"\");\n}\n#  define EQ_POSIX(a, b) EXPECT_EQ(a, b)\n"),
])
def test_plain_code_is_not_masked(path: str, source: bytes) -> None:
    profile = profile_for_path(path, source, source, source)
    assert profile._aliased(source) == source


def test_names_are_read_from_the_source_at_their_own_offsets() -> None:
    source = b"LUA_API int f (void) {\n  return 0;\n}\n"
    tree = profile_for_path("m.c", source, source, source).parse(source)
    function = tree.root_node.children[0]
    name = function.child_by_field_name("declarator").child_by_field_name("declarator")
    assert (source[name.start_byte:name.end_byte], name.start_point) == (b"f", (0, 12))


def test_two_tasks_adding_cpp_methods_with_annotations_merge() -> None:
    base = b"class DB {\n public:\n  void Get() LOCKS_EXCLUDED(mu_) {\n  }\n};\n"
    left = base.replace(b"  }\n};", b"  }\n  void Put() LOCKS_EXCLUDED(mu_) {\n  }\n};")
    right = base.replace(b"  }\n};", b"  }\n  void Delete() LOCKS_EXCLUDED(mu_) {\n  }\n};")
    merged = merge_file(base, left, right, "db.cc")
    assert merged.clean, merged.notes
    assert merged.merged.count(b"void Put()") == 1 and merged.merged.count(b"void Delete()") == 1

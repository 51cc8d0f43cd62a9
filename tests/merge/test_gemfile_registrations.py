"""A Gemfile's `gem` lines are a list of registrations: two tasks adding a gem each at one place
both land; one gem added twice stays a conflict, and other Ruby calls keep their order.

Found driving wtc on sinatra/sinatra: two tasks each adding a development gem after `gem
'rack-test'` conflicted (insert_insert), as Ruby's profile makes file-level calls positional
(`require`, `before_action` run in order). Bundler does not read the order of `gem` lines, so the
Ruby profile lists `gem` among its `registrations` (grammars/ruby.toml).
"""

from __future__ import annotations

from worktree_coord.merge import merge_file

BASE = (b"source 'https://rubygems.org'\ngemspec\n\ngem 'rake'\n\nrack_version = ENV['rack'].to_s\n"
        b"gem 'rack', rack_version\n\ngem 'minitest', '~> 5.0'\ngem 'rack-test'\n\ngroup :development do\n"
        b"  gem 'pry'\nend\n")


def _after_rack_test(line: bytes) -> bytes:
    return BASE.replace(b"gem 'rack-test'\n", b"gem 'rack-test'\n" + line)


def test_two_tasks_adding_a_gem_each_at_one_place_both_land() -> None:
    result = merge_file(BASE, _after_rack_test(b"gem 'rubocop', '~> 1.60', require: false\n"),
                        _after_rack_test(b"gem 'yard', '~> 0.9'\n"), "Gemfile")
    assert result.clean, result.merged.decode()
    assert result.merged == _after_rack_test(b"gem 'rubocop', '~> 1.60', require: false\ngem 'yard', '~> 0.9'\n")


def test_one_gem_added_by_both_at_two_versions_stays_a_conflict() -> None:
    result = merge_file(BASE, _after_rack_test(b"gem 'rubocop', '~> 1.60'\n"),
                        _after_rack_test(b"gem 'rubocop', '~> 1.50'\n"), "Gemfile")
    assert not result.clean


def test_other_calls_keep_their_order_and_conflict() -> None:
    result = merge_file(BASE, BASE + b"require 'a'\n", BASE + b"require 'b'\n", "Gemfile")
    assert not result.clean
    code = b"class A\n  before_action :x\nend\n"
    both = merge_file(code, code.replace(b":x\n", b":x\n  before_action :y\n"),
                      code.replace(b":x\n", b":x\n  before_action :z\n"), "app.rb")
    assert not both.clean

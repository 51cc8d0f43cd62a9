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


GROUPED = (b"source 'https://rubygems.org'\ngemspec\n\ngem 'rake'\n\ngroup :development, :test do\n  gem 'pry'\n"
           b"  gem 'rspec'\nend\n")
GEMSPEC = (b"Gem::Specification.new do |spec|\n  spec.name = 'x'\n  spec.version = '1.0'\n\n"
           b"  spec.add_dependency 'rack', '~> 2.0'\n  spec.add_development_dependency 'rspec'\nend\n")


def _after(text: bytes, anchor: bytes, line: bytes) -> bytes:
    return text.replace(anchor, anchor + line)


def test_two_tasks_adding_a_gem_each_inside_one_group_block_both_land() -> None:
    """The `gem` lines of a `group :x do` block merged as lines: two tasks each adding a gem after
    `gem 'rspec'` in it conflicted (insert_insert); a group block's body is a container now."""
    anchor = b"  gem 'rspec'\n"
    result = merge_file(GROUPED, _after(GROUPED, anchor, b"  gem 'rubocop', require: false\n"),
                        _after(GROUPED, anchor, b"  gem 'yard'\n"), "Gemfile")
    assert result.clean, result.merged.decode()
    assert result.merged == _after(GROUPED, anchor, b"  gem 'rubocop', require: false\n  gem 'yard'\n")
    twice = merge_file(GROUPED, _after(GROUPED, anchor, b"  gem 'yard', '~> 0.9'\n"),
                       _after(GROUPED, anchor, b"  gem 'yard', '~> 0.8'\n"), "Gemfile")
    assert not twice.clean


def test_two_tasks_adding_a_dependency_each_to_a_gemspec_both_land() -> None:
    anchor = b"  spec.add_dependency 'rack', '~> 2.0'\n"
    result = merge_file(GEMSPEC, _after(GEMSPEC, anchor, b"  spec.add_dependency 'mustermann'\n"),
                        _after(GEMSPEC, anchor, b"  spec.add_dependency 'tilt', '~> 2.0'\n"), "x.gemspec")
    assert result.clean, result.merged.decode()
    assert result.merged == _after(GEMSPEC, anchor, b"  spec.add_dependency 'mustermann'\n"
                                                    b"  spec.add_dependency 'tilt', '~> 2.0'\n")
    twice = merge_file(GEMSPEC, _after(GEMSPEC, anchor, b"  spec.add_dependency 'tilt', '~> 2.0'\n"),
                       _after(GEMSPEC, anchor, b"  spec.add_dependency 'tilt', '~> 2.1'\n"), "x.gemspec")
    assert not twice.clean
    # the gemspec's other lines keep their order: two settings added at one place conflict
    anchor = b"  spec.version = '1.0'\n"
    settings = merge_file(GEMSPEC, _after(GEMSPEC, anchor, b"  spec.license = 'MIT'\n"),
                          _after(GEMSPEC, anchor, b"  spec.license = 'BSD'\n"), "x.gemspec")
    assert not settings.clean


def test_a_block_of_another_call_keeps_its_statements_in_order() -> None:
    """Only a Gemfile's blocks and the gemspec's are containers: an RSpec `describe do` body's
    calls at one place still conflict, as any Ruby calls that run in order."""
    spec = b"describe 'x' do\n  before { setup }\nend\n"
    anchor = b"  before { setup }\n"
    result = merge_file(spec, _after(spec, anchor, b"  gem 'a'\n"), _after(spec, anchor, b"  gem 'b'\n"), "x_spec.rb")
    assert not result.clean


SOURCED = (b"source 'https://rubygems.org'\n\ngem 'rake'\n\ngit 'https://github.com/rails/rails.git' do\n"
           b"  gem 'activesupport'\nend\n\npath 'engines' do\n  gem 'billing'\nend\n\n"
           b"github 'sinatra/sinatra', branch: 'main' do\n  gem 'sinatra'\nend\n")


def test_two_tasks_adding_a_gem_each_inside_one_git_path_or_github_block_both_land() -> None:
    """A Gemfile's `git URL do`, `path DIR do` and `github REPO do` blocks hold gems as a `group`
    block does: two tasks each adding a gem in one of them conflicted (insert_insert), their bodies
    merged as lines; they are keyed containers now, by the call and its arguments."""
    for anchor in (b"  gem 'activesupport'\n", b"  gem 'billing'\n", b"  gem 'sinatra'\n"):
        result = merge_file(SOURCED, _after(SOURCED, anchor, b"  gem 'one'\n"),
                            _after(SOURCED, anchor, b"  gem 'two'\n"), "Gemfile")
        assert result.clean, (anchor, result.merged.decode())
        assert result.merged == _after(SOURCED, anchor, b"  gem 'one'\n  gem 'two'\n")
        twice = merge_file(SOURCED, _after(SOURCED, anchor, b"  gem 'one', '~> 1.0'\n"),
                           _after(SOURCED, anchor, b"  gem 'one', '~> 2.0'\n"), "Gemfile")
        assert not twice.clean, anchor
    # two blocks of one call with different arguments are two containers: a gem added to each lands
    two = SOURCED + b"\npath 'vendor' do\n  gem 'local'\nend\n"
    result = merge_file(two, _after(two, b"  gem 'billing'\n", b"  gem 'one'\n"),
                        _after(two, b"  gem 'local'\n", b"  gem 'two'\n"), "Gemfile")
    assert result.clean, result.merged.decode()
    assert b"  gem 'billing'\n  gem 'one'\n" in result.merged and b"  gem 'local'\n  gem 'two'\n" in result.merged

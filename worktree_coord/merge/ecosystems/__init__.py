"""Where an import leads in a package ecosystem's own terms: manifests, crates, workspaces, tsconfig paths.

Asked by the post-merge checks (`checks`) about a module no file of the merge answers:
`dependencies` (the external dependency a module belongs to, as a manifest declares it),
`crate_paths` (the file of the Rust crate module a `use` names), `workspace_packages` (a package of
the repository's own workspace, imported by its name), `path_maps` (tsconfig/jsconfig `paths`).
Invariant: each ecosystem's own rules, nothing searched for or guessed; unsure means no answer.
Imports only `languages`.
"""

"""`wtc serve`: a warm coordinator server per repository, and the CLI's side of it.

Stage: a face (it parses nothing itself and runs the CLI's own `main`). Agents call `wtc` hundreds of
times a run and each call pays an interpreter start-up and the coordinator's imports (pygit2, the
store, the merge engine) before it does any work. `wtc serve` pays them once: it imports everything,
listens on a Unix socket in the repository's git common dir, and forks one child per call; the child
already has everything imported, takes the caller's stdin/stdout/stderr (passed as file descriptors),
argv, cwd, environment and umask, runs `cli.main` exactly as the CLI process would, and reports the
exit code. Because each call is its own process, a crash is the crash of a CLI process: nothing of a
call lives in the server.

    protocol.py  where the socket and token live, message framing (standard library only)
    client.py    the CLI's side: hand the call over when a server answers, else None (standard library only)
    server.py    the accept loop and the per-call child
"""

"""`wtc ui`: a read-only live page of a run, for the person watching a swarm.

A face over the store and the Python API, loaded only by `wtc ui` (tests/ui checks no other
command imports it):

    server.py      the HTTP server (standard library, loopback unless a token guards it), routes, CSP
    changes.py     versions of rows and sections: what changed since the version a page holds
    run_view.py    the run as the page shows it, from the store alone (cheap; read on every change)
    background.py  the forecast and the landing report, computed off the request path on one thread
    task_detail.py one task in full: boundary, files, commits, findings, intents, events, trace spans
    static/        the page: index.html, app.js, app.css (package data; no build step, no CDN)

Nothing here writes the run: landing stays a deliberate command.
"""

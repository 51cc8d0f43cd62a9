"""The output formats of `wtc check`, by name: each a module with `render(CheckReport) -> str`."""

from __future__ import annotations

from typing import Callable

from . import github, json_format, junit, sarif, text
from ..check.report import CheckReport

FORMATS: dict[str, Callable[[CheckReport], str]] = {
    "text": text.render,
    "json": json_format.render,
    "junit": junit.render,
    "sarif": sarif.render,
    "github": github.render,
}


def render(report: CheckReport, format: str) -> str:
    """The report in `format`; UsageError names the formats when it is not one of them."""
    from ..errors import UsageError

    try:
        renderer = FORMATS[format]
    except KeyError:
        raise UsageError(f"unknown format {format!r}", fix="use one of: " + ", ".join(FORMATS)) from None
    return renderer(report)

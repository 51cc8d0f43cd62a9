"""Shared helpers for consolidation tests: hermetic tool environments and workspace builders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for path, content in files.items():
        file = root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            file.write_bytes(content)
        else:
            file.write_text(content)


def pkg(name: str, version: str = "1.0.0", **fields) -> str:
    return json.dumps({"name": name, "version": version, **fields}, indent=2) + "\n"


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def tool_env(tmp_path_factory) -> dict[str, str]:
    """HOME and every package-manager cache in a fresh temporary folder: nothing cached, no network used."""
    base = tmp_path_factory.mktemp("toolenv")
    return {
        "HOME": str(base / "home"),
        "npm_config_cache": str(base / "npm-cache"),
        "CARGO_HOME": str(base / "cargo-home"),
        "UV_CACHE_DIR": str(base / "uv-cache"),
        "XDG_CACHE_HOME": str(base / "xdg-cache"),
        "UV_NO_CONFIG": "1",
    }


@pytest.fixture
def copy_tree():
    def copy(src: Path, dst: Path) -> Path:
        shutil.copytree(src, dst)
        return dst

    return copy

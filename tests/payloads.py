"""Where the real provider payloads are: ``shared/payloads`` beside the repository.

They are never copied into the project. The repository is checked out with ``shared/`` as a
sibling folder (one level up; two from a worktree under ``wt/``); tests that need a payload
skip with a clear reason when the folder is absent.
"""

from __future__ import annotations

from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parent.parent


def payload_dir() -> Path | None:
    for base in (_ROOT.parent, _ROOT.parent.parent):
        folder = base / "shared" / "payloads"
        if folder.is_dir():
            return folder
    return None


def payload(provider: str, name: str) -> bytes:
    """The bytes of one payload file, exactly as stored (a byte-order mark included)."""
    folder = payload_dir()
    if folder is None:
        pytest.skip("the real payloads (../shared/payloads) are not checked out here")
    path = folder / provider / name
    if not path.is_file():
        pytest.skip(f"payload {provider}/{name} is not in {folder}")
    return path.read_bytes()


def payload_names(provider: str) -> list[str]:
    folder = payload_dir()
    if folder is None or not (folder / provider).is_dir():
        return []
    return sorted(p.name for p in (folder / provider).glob("*.json"))

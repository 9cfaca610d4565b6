"""The tool-calling examples explain themselves and work offline when no key is set."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.plugins._support import REPO_ROOT


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        ("openai_tool_calling.py", '"strict": true'),
        ("anthropic_tool_use.py", '"input_schema"'),
    ],
)
def test_example_runs_offline_without_a_key(script: str, expected: str) -> None:
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "examples" / script)],
        cwd=REPO_ROOT,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "is not set, so this runs offline" in done.stdout
    assert expected in done.stdout
    assert '"citation":1' in done.stdout or '"results":[]' in done.stdout

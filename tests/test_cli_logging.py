"""Logging of the library and of the command line (issue #9).

The command-line cases run ``python -m textsearch`` in a child process: inside pytest, the
logging plugin's own handlers hide what Python's last-resort handler would print.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import textsearch
from tests.emulators.azure_search import AzureSearchEmulator
from tests.emulators.web import Reply, serve

ROOT = Path(__file__).resolve().parent.parent
KEY = "SECRET-cli-key-0123456789abcdef"


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "textsearch", *args],
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_library_logger_has_a_null_handler() -> None:
    handlers = logging.getLogger("textsearch").handlers
    assert any(isinstance(h, logging.NullHandler) for h in handlers)


def test_dir_lists_each_public_name_once_and_no_helper() -> None:
    names = dir(textsearch)
    assert len(names) == len(set(names))
    assert "Any" not in names and "importlib" not in names and "TYPE_CHECKING" not in names
    assert set(textsearch.__all__) <= set(names)
    assert names.count("RateLimitError") == 1


def test_a_provider_error_is_one_line_without_records_or_tracebacks() -> None:
    # The Azure connector logs a WARNING when a search fails, and azure-core logs its own.
    with AzureSearchEmulator() as emulator:
        env = {
            "AZURE_SEARCH_ENDPOINT": emulator.endpoint,
            "AZURE_SEARCH_INDEX": "no-such-index",
            "AZURE_SEARCH_API_KEY": "test-admin-key",
        }
        quiet = _cli("search", "q", "--provider", "azure", env=env)
        loud = _cli("search", "q", "--provider", "azure", "-v", env=env)
    assert quiet.returncode == 1
    lines = quiet.stderr.splitlines()
    assert len(lines) == 1, quiet.stderr
    assert lines[0].startswith("textsearch: error: ")
    assert "Traceback" not in quiet.stderr
    # --verbose after the command: the records are there, the one error line still ends it
    assert loud.returncode == 1
    assert len(loud.stderr.splitlines()) > 1
    assert " DEBUG " in loud.stderr or " INFO " in loud.stderr
    assert loud.stderr.splitlines()[-1] == lines[0]


def test_verbose_logs_debug_from_every_library_with_keys_masked() -> None:
    echo = Reply(401, {"errors": [{"code": "InvalidAuthorization", "message": KEY}]}, {"X": KEY})
    with serve(echo) as server:
        env = {"BING_SEARCH_API_KEY": KEY, "BING_SEARCH_ENDPOINT": server.url + "/v7.0/search"}
        result = _cli("-v", "search", "q", "--provider", "bing", env=env)
    assert result.returncode == 1
    assert "httpcore" in result.stderr and "DEBUG" in result.stderr
    assert KEY not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("textsearch: error: bing: HTTP 401")

"""The installed ``textsearch`` console script, run in a subprocess with no API keys."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def _script() -> list[str]:
    found = shutil.which("textsearch", path=str(Path(sys.executable).parent))
    if found is None:  # pragma: no cover - an install without the entry point
        pytest.fail("the textsearch console script is not installed next to this Python")
    return [found]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    return subprocess.run(
        [*_script(), *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "retry.md").write_text(
        "# Retry guide\n\nUse exponential backoff with jitter.\n", encoding="utf-8"
    )
    (root / "timeouts.md").write_text(
        "# Timeouts\n\nEvery call needs a timeout; backoff alone is not enough.\n", encoding="utf-8"
    )
    return root


def test_search_prints_numbered_text(notes: Path) -> None:
    proc = run("search", "exponential backoff", "--path", str(notes))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == 'Found 2 results for "exponential backoff":'
    assert lines[2] == "1. Retry guide"
    assert lines[3] == "   Use exponential backoff with jitter."  # no markup in a pipe
    assert lines[4] == f"   URL: {notes / 'retry.md'}"
    assert proc.stderr == ""  # the indexing note is for terminals only


def test_search_json_and_top(notes: Path) -> None:
    proc = run("search", "backoff", "--path", str(notes), "--json", "--top", "1")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["query"] == "backoff"
    assert data["total_count"] == 2
    assert len(data["results"]) == 1
    assert set(data["results"][0]) == {"name", "value", "link"}


def test_search_uses_the_current_folder_by_default(notes: Path) -> None:
    proc = run("search", "jitter", "--json", cwd=notes)
    assert proc.returncode == 0, proc.stderr
    assert [r["name"] for r in json.loads(proc.stdout)["results"]] == ["Retry guide"]


def test_no_match_exits_zero_and_says_so(notes: Path) -> None:
    proc = run("search", "zebra", "--path", str(notes))
    assert proc.returncode == 0
    assert proc.stdout.strip() == "No results found for query: zebra"


def test_site_filter_on_local_files_matches_nothing_with_a_host(notes: Path) -> None:
    proc = run("search", "backoff", "--path", str(notes), "--site", "example.com", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["results"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "   "], "query must not be empty"),
        (["search", "x", "--top", "0"], "--top"),
        (["search", "x", "--top", "500"], "maximum of 50"),
        (["search", "x", "--path", "/definitely/not/here"], "no such file or folder"),
        (["search", "x", "--provider", "nope"], "invalid choice"),
        (["frobnicate"], "invalid choice"),
        ([], "required"),
    ],
)
def test_usage_errors_exit_2_with_one_line(notes: Path, args: list[str], message: str) -> None:
    proc = run(*args, cwd=notes)
    assert proc.returncode == 2
    assert proc.stdout == ""
    err_lines = proc.stderr.strip().splitlines()
    assert len(err_lines) == 1, proc.stderr
    assert err_lines[0].startswith("textsearch: error:")
    assert message in err_lines[0]
    assert "Traceback" not in proc.stderr


def test_index_builds_and_updates_a_file(notes: Path, tmp_path: Path) -> None:
    db = tmp_path / "notes.sqlite3"
    first = run("index", str(notes), "--db", str(db))
    assert first.returncode == 0, first.stderr
    assert "indexed 2 file(s) (added 2, updated 0), unchanged 0, removed 0" in first.stdout
    assert "\r" not in first.stderr  # no progress bar when not on a terminal
    (notes / "timeouts.md").unlink()
    second = run("index", str(notes), "--db", str(db))
    assert "removed 1" in second.stdout
    assert "1 document(s)" in second.stdout
    found = run("search", "jitter", "--path", str(notes), "--db", str(db), "--json")
    assert json.loads(found.stdout)["total_count"] == 1


def test_version() -> None:
    proc = run("--version")
    assert proc.returncode == 0
    assert proc.stdout.startswith("textsearch ")


def test_python_dash_m_works(notes: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "textsearch", "search", "jitter", "--path", str(notes)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Retry guide" in proc.stdout


def test_progress_bar_on_a_terminal() -> None:
    from io import StringIO

    from textsearch.cli._common import Progress as _Progress

    class Tty(StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    bar = _Progress(stream)
    bar(1, 2, "/x/a.md")
    bar(2, 2, "/x/b.md")
    bar.finish()
    text = stream.getvalue()
    assert "\r[###############---------------] 1/2 a.md" in text
    assert "[##############################] 2/2 b.md" in text
    assert text.endswith("\n")
    # Not a terminal: a plain line every `period` seconds, and one at the end.
    quiet = StringIO()
    lines = _Progress(quiet)
    lines.period = 3600.0
    lines(1, 3, "/x/a.md")
    assert quiet.getvalue() == ""
    lines(3, 3, "/x/c.md")
    assert quiet.getvalue().startswith("3/3 files (") and quiet.getvalue().endswith(" c.md\n")
    every = StringIO()
    each = _Progress(every)
    each.period = 0.0
    for done in range(1, 4):
        each(done, 3, f"/x/{done}.md")
    assert [line.split()[0] for line in every.getvalue().splitlines()] == ["1/3", "2/3", "3/3"]


def _set_schema_version(db: Path, version: str) -> None:
    import sqlite3

    con = sqlite3.connect(db)
    con.execute("UPDATE textsearch_meta SET value = ? WHERE key = 'schema_version'", (version,))
    con.commit()
    con.close()


def test_a_stale_cache_file_is_rebuilt(notes: Path) -> None:
    from textsearch.cli import default_index_file

    assert run("search", "jitter", "--path", str(notes)).returncode == 0
    _set_schema_version(default_index_file(notes), "0")
    proc = run("search", "jitter", "--path", str(notes), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["total_count"] == 1


def test_a_users_index_file_from_another_version_is_an_error_not_deleted(
    notes: Path, tmp_path: Path
) -> None:
    db = tmp_path / "mine.sqlite3"
    assert run("index", str(notes), "--db", str(db)).returncode == 0
    _set_schema_version(db, "0")
    proc = run("search", "jitter", "--path", str(notes), "--db", str(db))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "schema version" in proc.stderr
    assert db.exists()


def test_unexpected_errors_are_one_line(tmp_path: Path) -> None:
    from io import StringIO

    from textsearch import cli

    def explode(args: object) -> object:
        raise RuntimeError("boom")

    original = cli.ARGUMENT_BUILDERS["local"]
    cli.ARGUMENT_BUILDERS["local"] = explode  # type: ignore[assignment]
    try:
        assert cli.main(["search", "x", "--path", str(tmp_path)], out=StringIO()) == 1
    finally:
        cli.ARGUMENT_BUILDERS["local"] = original

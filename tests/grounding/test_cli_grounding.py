"""`textsearch search --format` and `textsearch ground`, run as a real command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "textsearch", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
    )


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "retry.md").write_text("# Retry policy\n\nUse exponential backoff with jitter.\n")
    (folder / "timeouts.md").write_text("# Timeouts\n\nAlways set a connect timeout for a retry.\n")
    return folder


def test_search_format_citations_and_json_alias(notes: Path) -> None:
    done = run("search", "backoff", "--path", str(notes), "--format", "citations", cwd=notes)
    assert done.returncode == 0, done.stderr
    link = str((notes / "retry.md").resolve())
    assert done.stdout == (f"[1] Retry policy — Use exponential backoff with jitter. ({link})\n")

    as_format = run("search", "backoff", "--path", str(notes), "--format", "json", cwd=notes)
    as_flag = run("search", "backoff", "--path", str(notes), "--json", cwd=notes)
    assert as_format.returncode == as_flag.returncode == 0
    assert json.loads(as_format.stdout) == json.loads(as_flag.stdout)
    assert json.loads(as_flag.stdout)["results"][0]["link"] == link


def test_search_format_markdown_labelled_and_default(notes: Path) -> None:
    md = run("search", "backoff", "--path", str(notes), "--format", "markdown", cwd=notes)
    link = str((notes / "retry.md").resolve())
    assert md.stdout.startswith('## Results for "backoff"\n\n1. **[Retry policy](')
    labelled = run("search", "backoff", "--path", str(notes), "--format", "labelled", cwd=notes)
    # English labels by default; --locale (or a Chinese query) chooses Chinese ones
    assert labelled.stdout.splitlines()[:3] == [
        "Citation: 1",
        "Title: Retry policy",
        f"URL: {link}",
    ]
    chinese = run(
        "search",
        "backoff",
        "--path",
        str(notes),
        "--format",
        "labelled",
        "--locale",
        "zh",
        cwd=notes,
    )
    assert chinese.stdout.splitlines()[:3] == ["引用: 1", "标题: Retry policy", f"URL: {link}"]
    unknown = run(
        "search",
        "backoff",
        "--path",
        str(notes),
        "--format",
        "labelled",
        "--locale",
        "xx",
        cwd=notes,
    )
    assert unknown.returncode == 2 and "unknown locale 'xx'" in unknown.stderr
    default = run("search", "backoff", "--path", str(notes), cwd=notes)
    assert default.stdout.startswith('Found 1 result for "backoff":\n\n1. Retry policy\n')
    nothing = run("search", "zebra", "--path", str(notes), "--format", "citations", cwd=notes)
    assert (nothing.returncode, nothing.stdout) == (0, "No results found for query: zebra\n")


def test_search_conflicting_format_is_a_usage_error(notes: Path) -> None:
    done = run("search", "x", "--path", str(notes), "--json", "--format", "markdown", cwd=notes)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--json" in done.stderr
    bad = run("search", "x", "--path", str(notes), "--format", "html", cwd=notes)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_ground_prints_prompt_and_references(notes: Path) -> None:
    done = run("ground", "retry backoff", "--path", str(notes), "--top", "3", cwd=notes)
    assert done.returncode == 0, done.stderr
    link = str((notes / "retry.md").resolve())
    prompt, _, refs = done.stdout.partition("\nReferences:\n")
    assert prompt.startswith("Answer the question using only the numbered search results below.")
    assert "<<<BEGIN SEARCH DATA id=" in prompt and "[1] Retry policy\nURL: " + link in prompt
    assert prompt.endswith("Question: retry backoff\nAnswer:\n")
    assert refs.splitlines()[0] == f"[1] Retry policy - {link}"

    as_json = run(
        "ground", "retry", "--path", str(notes), "--json", "--template", "answer-dates", cwd=notes
    )
    payload = json.loads(as_json.stdout)
    assert payload["prompt"].startswith("Today's date is ")
    assert {r["title"] for r in payload["references"]} == {"Retry policy", "Timeouts"}
    assert [r["number"] for r in payload["references"]] == [1, 2]

    only = run("ground", "retry", "--path", str(notes), "--no-references", "--no-fence", cwd=notes)
    assert "References:" not in only.stdout and "SEARCH DATA" not in only.stdout


def test_ground_full_pages_uses_the_stored_text_of_local_documents(notes: Path) -> None:
    done = run("ground", "backoff", "--path", str(notes), "--full-pages", cwd=notes)
    assert done.returncode == 0, done.stderr
    # the document's own text (no snippet highlight), nothing downloaded or refused
    assert "Use exponential backoff with jitter." in done.stdout
    assert "page not used" not in done.stderr and "only http and https" not in done.stderr

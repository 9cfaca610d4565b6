"""``textsearch ... --provider postgres`` against the session's real server."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

import pytest

from textsearch import cli


def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(argv, out=out), out.getvalue()


@pytest.fixture
def env(pg_dsn: str, pg_table: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TEXTSEARCH_POSTGRES_DSN", pg_dsn)
    monkeypatch.setenv("TEXTSEARCH_POSTGRES_TABLE", pg_table)
    return pg_table


def test_index_then_search_with_the_postgres_provider(env: str, tmp_path: Path) -> None:
    (tmp_path / "walrus.md").write_text("# Walrus\n\nThe walrus sleeps on the ice floe.")
    (tmp_path / "seal.txt").write_text("Seals swim.")
    code, text = run(["index", str(tmp_path), "--provider", "postgres"])
    assert code == 0 and "added 2" in text and f"table {env}" in text
    code, text = run(["index", str(tmp_path), "--provider", "postgres"])
    assert code == 0 and "unchanged 2" in text
    code, text = run(["search", "walrus ice", "--provider", "postgres", "--json"])
    payload = json.loads(text)
    assert code == 0 and payload["total_count"] == 1
    assert payload["results"][0]["name"] == "Walrus"
    assert payload["results"][0]["link"] == str(tmp_path / "walrus.md")


def test_unreachable_server_is_one_line_and_hides_the_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], pg_dsn: str
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("TEXTSEARCH_POSTGRES_DSN", f"postgresql://u:cli-s3cret@127.0.0.1:{port}/db")
    code, _ = run(["search", "walrus", "--provider", "postgres"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "cli-s3cret" not in err
    assert "cannot reach" in err


def test_index_rejects_db_with_postgres(env: str, tmp_path: Path) -> None:
    code, _ = run(["index", str(tmp_path), "--provider", "postgres", "--db", "x.sqlite3"])
    assert code == 2

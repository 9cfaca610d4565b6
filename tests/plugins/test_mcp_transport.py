"""Which transport the CLI's web searches use: a short ``search`` never imports aiohttp; the
long-running ``mcp`` server takes the aiohttp fast path when it is installed (#15), unless the
user chose with ``TEXTSEARCH_TRANSPORT``.

Both run the real command in a subprocess against a SearXNG emulator on 127.0.0.1, which
records the User-Agent of each request (the aiohttp transport announces itself there).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.connectors.web.test_searxng import OK
from tests.emulators.web import Reply, WebEmulator, serve
from tests.plugins._support import REPO_ROOT
from textsearch import __version__

AIOHTTP_AGENT = f"textsearch-sdk/{__version__} (aiohttp)"


@pytest.fixture
def searxng() -> Iterator[WebEmulator]:
    with serve(Reply(200, OK)) as server:
        yield server


def _env(tmp_path: Path, url: str, **extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("TEXTSEARCH_TRANSPORT", "PYTHONPATH")
        and not key.endswith("_PROXY")
        and key.lower() not in ("http_proxy", "https_proxy", "all_proxy")
    }
    env.update(
        PYTHONPATH=str(REPO_ROOT),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        PYTHONUNBUFFERED="1",
        SEARXNG_URL=url,
        NO_PROXY="127.0.0.1",
        **extra,
    )
    return env


def test_a_short_search_run_never_imports_aiohttp(searxng: WebEmulator, tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from textsearch.cli import main\n"
        "code = main(['search', 'retry', '--provider', 'searxng'])\n"
        "sys.stderr.write(f'\\nEXIT={code} AIOHTTP={\"aiohttp\" in sys.modules}\\n')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=_env(tmp_path, searxng.url),
        cwd=str(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "EXIT=0 AIOHTTP=False" in done.stderr, done.stderr
    assert searxng.requests  # the search did reach the server
    assert AIOHTTP_AGENT not in {r.headers.get("user-agent") for r in searxng.requests}


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    """The server's stderr, kept in a file (what stdio_client needs)."""
    with open(tmp_path / "stderr.txt", "w", encoding="utf-8") as stream:
        yield stream


async def _search_over_mcp(env: dict[str, str], tmp_path: Path, errlog: TextIO) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "textsearch", "mcp", "--provider", "searxng", "--no-cache"],
        env=env,
        cwd=str(tmp_path),
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("search", {"query": "retry"})
            assert result.is_error is False, result


@pytest.mark.anyio
async def test_the_mcp_server_takes_the_aiohttp_fast_path(
    searxng: WebEmulator, tmp_path: Path, errlog: TextIO
) -> None:
    pytest.importorskip("aiohttp")
    await _search_over_mcp(_env(tmp_path, searxng.url), tmp_path, errlog)
    agents = {r.headers.get("user-agent") for r in searxng.requests}
    assert agents == {AIOHTTP_AGENT}


@pytest.mark.anyio
async def test_the_users_transport_choice_wins_in_the_mcp_server(
    searxng: WebEmulator, tmp_path: Path, errlog: TextIO
) -> None:
    env = _env(tmp_path, searxng.url, TEXTSEARCH_TRANSPORT="httpx")
    await _search_over_mcp(env, tmp_path, errlog)
    assert searxng.requests
    assert AIOHTTP_AGENT not in {r.headers.get("user-agent") for r in searxng.requests}


def test_an_in_process_mcp_run_leaves_the_environment_as_it_was(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from textsearch import cli
    from textsearch.cli import mcp

    monkeypatch.delenv("TEXTSEARCH_TRANSPORT", raising=False)
    seen: list[str | None] = []

    from textsearch._http._transports._httpx import wants_aiohttp

    def serve_and_look(args: object) -> int:
        seen.append(os.environ.get("TEXTSEARCH_TRANSPORT"))
        seen.append(str(wants_aiohttp("auto")))
        return 0

    monkeypatch.setattr(mcp, "serve", serve_and_look)
    assert cli.main(["mcp", "--path", str(tmp_path)]) == 0
    # the server's run takes aiohttp without writing the environment (issue #33 item 17)
    assert seen == [None, "True"]
    assert "TEXTSEARCH_TRANSPORT" not in os.environ
    assert wants_aiohttp("auto") is False

"""Every Python block of the docs runs, offline, as a reader would run it.

The blocks of one page run in order in one namespace (like a notebook), with top-level
``await`` allowed. A few names the pages take as given (``search``: a small index,
``results``, a model's ``answer``, ``my_backend``...) are defined below. A block that cannot
run offline says why in a ``<!-- not run: reason -->`` line right above it.
"""

from __future__ import annotations

import ast
import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from textsearch import LocalTextSearch, TextSearchResult

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCS = REPO_ROOT / "docs"
# Pages whose examples run in their own tests, with what they need installed.
TESTED_ELSEWHERE = {"integrations.md"}

_BLOCK = re.compile(
    r"(?:<!--\s*not run:\s*(?P<reason>[^>]*?)\s*-->\s*\n)?```python\n(?P<code>.*?)```", re.S
)


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.glob("*.md") if p.name not in TESTED_ELSEWHERE)


def _blocks(page: Path) -> list[tuple[int, str, str | None]]:
    text = page.read_text(encoding="utf-8")
    return [
        (text.count("\n", 0, m.start("code")) + 1, m.group("code"), m.group("reason"))
        for m in _BLOCK.finditer(text)
    ]


class _Backend:
    """Stands for the reader's own database in docs/concepts.md."""

    rows = [
        {
            "title": "Retry",
            "body": "retry with backoff",
            "url": "https://n.example/1",
            "author": "ana",
        },
        {"title": "Retry 2", "body": "retry later", "url": "https://n.example/2", "author": "bo"},
    ]

    async def find(
        self, query: str, *, authors: list[str], limit: int, offset: int
    ) -> list[dict[str, str]]:
        hits = [r for r in self.rows if query in r["body"]]
        hits = [r for r in hits if all(r["author"] == a for a in authors)]
        return hits[offset : offset + limit]


class _Tokenizer:
    def encode(self, text: str) -> list[str]:
        return text.split()


def _namespace() -> dict[str, Any]:
    search = LocalTextSearch()
    search.add_documents(
        [
            {
                "id": "retry",
                "title": "Retry policy",
                "text": "Retry failed calls with exponential backoff and jitter.",
                "link": "https://kb.example/retry",
                "metadata": {"lang": "en"},
            },
            {
                "id": "cache",
                "title": "Caching",
                "text": "Cache responses for five minutes; retry on a miss.",
                "link": "https://kb.example/cache",
                "metadata": {"lang": "en"},
            },
        ]
    )
    return {
        "__name__": "__docs__",
        "search": search,
        "LocalTextSearch": LocalTextSearch,
        "results": [
            TextSearchResult(
                name="Retry policy", value="Use backoff.", link="https://kb.example/retry"
            ),
            TextSearchResult(
                name="Caching", value="Five minutes.", link="https://kb.example/cache"
            ),
        ],
        "answer": "Retry with backoff [1].",
        "arguments": {"query": "retry"},
        "tool_name": "search",
        "my_backend": _Backend(),
        "my_tokenizer": _Tokenizer(),
    }


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_doc_snippets_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = _blocks(page)
    # Pages index "docs" from the current folder, as a reader in the repository would.
    (tmp_path / "docs").symlink_to(DOCS, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    namespace = _namespace()
    loop = asyncio.new_event_loop()
    try:
        for line, code, reason in blocks:
            if reason is not None:
                assert reason, f"{page.name}:{line}: say why the block is not run"
                continue
            compiled = compile(
                code, f"{page.name}:{line}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
            )
            try:
                outcome = eval(compiled, namespace)  # our own documentation, on purpose
                if asyncio.iscoroutine(outcome):
                    loop.run_until_complete(outcome)
            except Exception as exc:
                raise AssertionError(f"{page.name}:{line}: {type(exc).__name__}: {exc}") from exc
    finally:
        loop.close()
        namespace["search"].close()


def test_every_page_has_runnable_snippets_checked() -> None:
    counted = {p.name: len([b for b in _blocks(p) if b[2] is None]) for p in _pages()}
    assert counted["concepts.md"] >= 5 and counted["plugins.md"] >= 5
    assert counted["grounding.md"] >= 3

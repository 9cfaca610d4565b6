"""A local index that is built in the background while it is already being served.

``textsearch mcp --path BIG_DIR`` must answer ``initialize`` at once (clients give a server
a few seconds to start), so the folder is indexed in a worker thread. Searches (and
document reads) wait a bounded time for the indexing to finish; past it the model is told
how far it got and to retry, rather than being served a half-built index silently.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from typing_extensions import Unpack

from textsearch._types import SearchOptionArgs, SearchOptions, SearchResults, TextSearchResult
from textsearch.errors import ServiceUnavailableError

if TYPE_CHECKING:
    from textsearch.connectors.local import LocalTextSearch

__all__ = ["IndexingInProgressError", "IndexingTextSearch"]


class IndexingInProgressError(ServiceUnavailableError):
    """The index is still being built; ``done`` of ``total`` files are indexed so far."""

    def __init__(self, done: int, total: int) -> None:
        counted = (
            f"{done} of {total} files indexed so far" if total else "the file list is being read"
        )
        super().__init__(f"the local index is still being built ({counted})", provider="local")
        self.done = done
        self.total = total
        #: What the model is told (see ``plugins._output.error_message``).
        self.model_hint = (
            f"The local index is still being built ({counted}); retry this search in a few seconds."
        )


class IndexingTextSearch:
    """Serve a ``LocalTextSearch`` while `start` indexes a folder into it.

    Args:
        search: The local index (already open).
        folder: What to index.
        wait: Seconds a search waits for the indexing to finish before answering
            `IndexingInProgressError`.
        stream: Where progress lines go (stderr), terminal or not.
        interval: Least seconds between two progress lines.
    """

    open_world = False

    def __init__(
        self,
        search: Any,
        folder: str | os.PathLike[str],
        *,
        wait: float,
        stream: TextIO,
        interval: float = 1.0,
    ) -> None:
        self._search: LocalTextSearch = search
        self._folder = Path(folder)
        self.wait = wait
        self._stream = stream
        self._interval = interval
        self._done = threading.Event()
        self._started = False
        self._progress = (0, 0)
        self._last_line = 0.0
        self.error: BaseException | None = None
        self.max_top = getattr(search, "max_top", None)
        self.provider_name = getattr(search, "provider_name", "local")

    def __repr__(self) -> str:
        return f"IndexingTextSearch({self._search!r}, folder={str(self._folder)!r})"

    @property
    def progress(self) -> tuple[int, int]:
        """``(done, total)`` files so far."""
        return self._progress

    @property
    def ready(self) -> bool:
        """Whether the indexing has finished (successfully or not)."""
        return self._done.is_set()

    def _say(self, line: str) -> None:
        try:
            self._stream.write(f"textsearch: {line}\n")
            self._stream.flush()
        except (OSError, ValueError):  # a closed stderr must not stop the indexing
            pass

    def _on_progress(self, done: int, total: int, path: str) -> None:
        self._progress = (done, total)
        now = time.monotonic()
        if done == 1 or done == total or now - self._last_line >= self._interval:
            self._last_line = now
            self._say(f"indexing {self._folder}: {done}/{total} files")

    def _run(self) -> None:
        self._say(f"indexing {self._folder} in the background; searches wait for it")
        try:
            report = self._search.index_path(self._folder, progress=self._on_progress)
        except BaseException as exc:  # reported to every later search, never swallowed
            self.error = exc
            self._say(f"indexing {self._folder} failed: {type(exc).__name__}: {exc}")
        else:
            self._say(
                f"indexed {report.indexed} file(s), removed {report.removed}, "
                f"unchanged {report.unchanged}, failed {len(report.failed)} ({self._folder})"
            )
        finally:
            self._done.set()

    def start(self) -> IndexingTextSearch:
        """Start indexing in a daemon thread (it stops with the process)."""
        self._started = True
        threading.Thread(target=self._run, name="textsearch-index", daemon=True).start()
        return self

    def _check(self) -> None:
        if not self._done.is_set():
            raise IndexingInProgressError(*self._progress)
        if self.error is not None:
            raise ServiceUnavailableError(
                f"indexing the folder failed ({type(self.error).__name__})", provider="local"
            )

    def _ready_sync(self) -> LocalTextSearch:
        self._done.wait(self.wait)
        self._check()
        return self._search

    async def _ready(self) -> LocalTextSearch:
        if not self._done.is_set():
            await asyncio.to_thread(self._done.wait, self.wait)
        self._check()
        return self._search

    # -- the TextSearch protocol and the document readers, each once the index is ready ---

    async def search(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[str]:
        """See ``LocalTextSearch.search`` (waits for the indexing)."""
        return await (await self._ready()).search(query, options, **kwargs)

    async def get_text_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[TextSearchResult]:
        """See ``LocalTextSearch.get_text_search_results`` (waits for the indexing)."""
        return await (await self._ready()).get_text_search_results(query, options, **kwargs)

    async def get_search_results(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[Any]:
        """See ``LocalTextSearch.get_search_results`` (waits for the indexing)."""
        return await (await self._ready()).get_search_results(query, options, **kwargs)

    def search_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[str]:
        """Blocking twin of `search`."""
        return self._ready_sync().search_sync(query, options, **kwargs)

    def get_text_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[TextSearchResult]:
        """Blocking twin of `get_text_search_results`."""
        return self._ready_sync().get_text_search_results_sync(query, options, **kwargs)

    def get_search_results_sync(
        self, query: str, options: SearchOptions | None = None, **kwargs: Unpack[SearchOptionArgs]
    ) -> SearchResults[Any]:
        """Blocking twin of `get_search_results`."""
        return self._ready_sync().get_search_results_sync(query, options, **kwargs)

    # The readers pass their arguments through: LocalTextSearch declares and checks them.

    def get_document(self, key: str, **options: Any) -> Any:
        """See ``LocalTextSearch.get_document`` (waits for the indexing).

        Raises:
            IndexingInProgressError: Still indexing after ``wait`` seconds.
        """
        return self._ready_sync().get_document(key, **options)

    def list_documents(self, **options: Any) -> Any:
        """See ``LocalTextSearch.list_documents`` (waits for the indexing).

        Raises:
            IndexingInProgressError: Still indexing after ``wait`` seconds.
        """
        return self._ready_sync().list_documents(**options)

    def get_section(self, link: str, **options: Any) -> Any:
        """See ``LocalTextSearch.get_section`` (waits for the indexing).

        Raises:
            IndexingInProgressError: Still indexing after ``wait`` seconds.
        """
        return self._ready_sync().get_section(link, **options)

    def close(self) -> None:
        """Close the index once the indexing thread has let go of it."""
        if not self._started or self._done.wait(5.0):
            self._search.close()

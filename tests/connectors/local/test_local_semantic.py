"""LocalTextSearch with an embedder: keyword, semantic and hybrid modes (DESIGN §11.2, §11.5)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.connectors._local_engines import local_engine  # noqa: F401  (every test on both engines)
from textsearch import LocalTextSearch, TextSearchFilter
from textsearch.embeddings import FunctionEmbedder
from textsearch.errors import ConfigurationError, ProviderError, ResponseFormatError

# A deterministic model of meaning: synonyms share a dimension, other words hash weakly.
CONCEPTS = {
    "halt": ("stop", "cancel", "cancelling", "cancelled", "abort", "terminate", "kill", "end"),
    "work": ("job", "jobs", "task", "tasks", "work", "process"),
    "again": ("retry", "retries", "retrying", "again", "repeat", "backoff"),
    "fruit": ("apple", "apples", "pear", "pears", "fruit", "banana"),
    "money": ("price", "prices", "cost", "costs", "invoice", "billing", "pay"),
}
CONCEPT_OF = {word: i for i, words in enumerate(CONCEPTS.values()) for word in words}
DIMS = 16


def meaning(text: str) -> list[float]:
    vector = [0.0] * DIMS
    for raw in text.lower().replace(".", " ").replace(",", " ").replace("?", " ").split():
        word = raw.strip("()'\":;")
        if word in CONCEPT_OF:
            vector[CONCEPT_OF[word]] += 1.0
        elif word:
            vector[len(CONCEPTS) + sum(map(ord, word)) % (DIMS - len(CONCEPTS))] += 0.15
    if not any(vector):
        vector[-1] = 1.0
    return vector


class Recorder:
    """The embedding function, counting what it was asked to embed."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.calls = 0

    def __call__(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        self.texts.extend(texts)
        return [meaning(t) for t in texts]


def embedder(fn: Any = None, model: str = "concepts-v1") -> FunctionEmbedder:
    return FunctionEmbedder(fn or Recorder(), model=model, dimensions=DIMS)


DOCS = [
    {
        "id": "cancel",
        "title": "Cancelling tasks",
        "text": "Call cancel() on a task; cancelled tasks end at the next await.",
        "metadata": {"team": "core"},
    },
    {
        "id": "retry",
        "title": "Retrying requests",
        "text": "Retries use exponential backoff with jitter.",
        "metadata": {"team": "net"},
    },
    {
        "id": "fruit",
        "title": "Orchard",
        "text": "Apples and pears grow in the orchard.",
        "metadata": {"team": "garden"},
    },
    {
        "id": "billing",
        "title": "Billing",
        "text": "Every invoice lists prices and costs.",
        "metadata": {"team": "core"},
    },
]

# No word of this query is in any document: only meaning can find the "cancel" document.
RUNAWAY = "how do I stop a runaway job"


def test_mode_defaults_and_errors() -> None:
    assert LocalTextSearch().mode == "keyword"
    assert LocalTextSearch(embedder=embedder()).mode == "hybrid"
    assert LocalTextSearch(embedder=embedder(), mode="keyword").mode == "keyword"
    with pytest.raises(ConfigurationError, match="needs an embedder"):
        LocalTextSearch(mode="semantic")
    with pytest.raises(ConfigurationError, match="needs an embedder"):
        LocalTextSearch(mode="hybrid")
    with pytest.raises(ConfigurationError, match="mode must be"):
        LocalTextSearch(embedder=embedder(), mode="vector")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="must be an Embedder"):
        LocalTextSearch(embedder=lambda texts: texts)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_meaning_finds_what_words_miss(mode: str) -> None:
    s = LocalTextSearch(embedder=embedder(), mode=mode)  # type: ignore[arg-type]
    s.add_documents(DOCS)
    assert LocalTextSearch().get_search_results_sync(RUNAWAY).results == []
    found = s.get_search_results_sync(RUNAWAY, top=2)
    assert found[0].id == "cancel"
    assert found.metadata["mode"] == mode
    texts = s.get_text_search_results_sync(RUNAWAY, top=1)
    assert texts[0].name == "Cancelling tasks" and texts[0].value is not None
    assert "cancel()" in texts[0].value
    strings = s.search_sync(RUNAWAY, top=1)
    assert "cancel()" in strings[0]


def test_keyword_mode_never_calls_the_embedder_at_query_time() -> None:
    recorder = Recorder()
    s = LocalTextSearch(embedder=embedder(recorder), mode="keyword")
    s.add_documents(DOCS)
    assert recorder.calls == 1 and len(recorder.texts) == len(DOCS)  # adding still embeds
    assert s.get_search_results_sync("invoice")[0].id == "billing"
    assert s.get_search_results_sync(RUNAWAY).results == []
    assert recorder.calls == 1


def test_hybrid_keeps_exact_keyword_matches_on_top() -> None:
    s = LocalTextSearch(embedder=embedder())
    s.add_documents(DOCS)
    # "jitter" is one document's word; its meaning is nobody's concept in particular.
    assert s.get_search_results_sync("jitter", top=1)[0].id == "retry"
    ranked = s.get_search_results_sync("task cancel", top=4)
    assert ranked[0].id == "cancel"
    assert [r.score for r in ranked] == sorted((r.score for r in ranked), reverse=True)


def test_rrf_fusion_is_selectable_and_reported() -> None:
    s = LocalTextSearch(embedder=embedder())
    s.add_documents(DOCS)
    blend = s.get_search_results_sync("stop the task", top=3)
    s._fusion = "rrf"
    rrf = s.get_search_results_sync("stop the task", top=3)
    assert blend.metadata["fusion"] == "blend" and rrf.metadata["fusion"] == "rrf"
    assert blend[0].id == rrf[0].id == "cancel"
    # RRF scores are sums of 1/(60 + rank): at most 2/61
    assert all(r.score is not None and r.score <= 2 / 61 + 1e-9 for r in rrf)


# -- writing ------------------------------------------------------------------------------


def test_unchanged_passages_are_not_embedded_again() -> None:
    recorder = Recorder()
    s = LocalTextSearch(embedder=embedder(recorder))
    s.add_documents(DOCS)
    assert len(recorder.texts) == 4
    s.add_documents(DOCS)  # same text: vectors kept
    assert len(recorder.texts) == 4
    changed = dict(DOCS[1], text="Retries wait longer each time.")
    s.add_documents([changed, DOCS[0]])
    assert len(recorder.texts) == 5 and "Retries wait longer each time." in recorder.texts[-1]
    s.remove_documents(["fruit"])
    assert s.get_search_results_sync("apples pears", top=10, include_total_count=True).total_count
    ids = {r.id for r in s.get_search_results_sync("apples pears", top=10)}
    assert "fruit" not in ids


def _boom(texts: list[str]) -> list[list[float]]:
    raise RuntimeError("model server down")


@pytest.mark.parametrize(
    ("fn", "error"),
    [
        (_boom, ProviderError),
        (lambda texts: [meaning(t) for t in texts][:-1], ResponseFormatError),
        (lambda texts: [[math.nan] * DIMS for _ in texts], ResponseFormatError),
        (lambda texts: [meaning(t)[:-1] for t in texts], ResponseFormatError),
        (lambda texts: [["x"] * DIMS for _ in texts], ResponseFormatError),
    ],
)
def test_a_failing_embedder_writes_nothing(fn: Any, error: type[Exception], tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    s = LocalTextSearch(path, embedder=FunctionEmbedder(fn, model="m", dimensions=DIMS))
    with pytest.raises(error):
        s.add_documents(DOCS)
    assert s.document_count == 0
    with pytest.raises(error):
        s.add_documents([{"id": "x", "text": "a text"}], chunk=True)
    assert s.document_count == 0
    s.close()
    with LocalTextSearch(path) as plain:
        for table in ("documents", "passages", "passage_vectors"):
            assert plain._db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0


def test_model_or_dimension_mismatch_is_refused_with_how_to_reembed(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with LocalTextSearch(path, embedder=embedder()) as s:
        s.add_documents(DOCS)
    with pytest.raises(ConfigurationError) as caught:
        LocalTextSearch(path, embedder=embedder(model="other-model"))
    message = str(caught.value)
    assert "concepts-v1" in message and "other-model" in message
    assert "drop_vectors()" in message and "embed_missing_sync()" in message
    wider = FunctionEmbedder(
        lambda t: [meaning(x) + [0.0] for x in t], model="concepts-v1", dimensions=DIMS + 1
    )
    with pytest.raises(ConfigurationError, match="16 dimensions"):
        LocalTextSearch(path, embedder=wider)
    # without an embedder the index still opens, for keywords (and to drop the vectors)
    with LocalTextSearch(path) as plain:
        assert plain.get_search_results_sync("invoice")[0].id == "billing"
        assert plain.drop_vectors() == len(DOCS)
    recorder = Recorder()
    with LocalTextSearch(path, embedder=FunctionEmbedder(recorder, model="other-model")) as moved:
        assert moved.embed_missing_sync() == len(DOCS)
        assert moved.embed_missing_sync() == 0
        assert moved.get_search_results_sync(RUNAWAY, top=1)[0].id == "cancel"


def test_dimensions_learnt_late_are_still_checked(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with LocalTextSearch(path, embedder=FunctionEmbedder(Recorder(), model="m")) as s:
        s.add_documents(DOCS)  # dimensions unknown until this call: recorded now
    longer = FunctionEmbedder(lambda t: [meaning(x) + [1.0] for x in t], model="m")
    with LocalTextSearch(path, embedder=longer) as s:
        with pytest.raises(ConfigurationError, match="16 dimensions"):
            s.add_documents([{"id": "new", "text": "pears"}])
        assert s.document_count == len(DOCS)
        with pytest.raises(ConfigurationError, match="17"):
            s.get_search_results_sync("pears")


def test_embed_missing_for_an_index_built_without_an_embedder(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    with LocalTextSearch(path) as plain:
        plain.add_documents(DOCS)
    with LocalTextSearch(path, embedder=embedder(), mode="semantic") as s:
        # passages without a vector cannot be found by meaning yet
        assert s.get_search_results_sync(RUNAWAY).results == []
        assert s.embed_missing_sync() == len(DOCS)
        assert s.get_search_results_sync(RUNAWAY, top=1)[0].id == "cancel"


@pytest.mark.anyio
async def test_async_embedder_search_and_embed_missing(tmp_path: Path) -> None:
    async def fn(texts: list[str]) -> list[list[float]]:
        return [meaning(t) for t in texts]

    path = tmp_path / "index.db"
    s = LocalTextSearch(path, embedder=FunctionEmbedder(fn, model="async-concepts"))
    s.add_documents(DOCS[:2])  # an async fn, run from a blocking call (no loop in this thread)
    found = await s.get_search_results(RUNAWAY, top=1)
    assert found[0].id == "cancel"
    LocalTextSearch(path).add_documents(DOCS[2:])  # another writer, without an embedder
    assert await s.embed_missing() == 2
    assert (await s.get_search_results("apples", top=1))[0].id == "fruit"


def test_index_path_embeds_only_changed_passages_and_survives_ctrl_c(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(5):
        (folder / f"n{i}.md").write_text(
            f"# Note {i}\n\n## Cancelling\n\nStop task {i}.\n\n## Prices\n\nInvoice {i}.\n",
            encoding="utf-8",
        )
    recorder = Recorder()
    s = LocalTextSearch(tmp_path / "i.db", embedder=embedder(recorder))

    def interrupt(done: int, total: int, path: str) -> None:
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        s.index_path(folder, progress=interrupt)
    assert s.document_count == 3
    stored = s._db.execute("SELECT count(*) FROM passage_vectors").fetchone()[0]
    passages = s._db.execute("SELECT count(*) FROM passages").fetchone()[0]
    assert stored == passages > 0
    report = s.index_path(folder)
    assert report.added == 2 and s.document_count == 5
    embedded = len(recorder.texts)
    assert s.index_path(folder).unchanged == 5 and len(recorder.texts) == embedded
    (folder / "n0.md").write_text(
        "# Note 0\n\n## Cancelling\n\nStop task 0.\n\n## Prices\n\nInvoice changed.\n",
        encoding="utf-8",
    )
    assert s.index_path(folder).updated == 1
    assert recorder.texts[embedded:] == ["Note 0\nPrices\nInvoice changed."]
    hit = s.get_search_results_sync("halt the job", top=1)[0]
    assert hit.section == "Cancelling" and hit.link is not None and hit.link.endswith("#cancelling")


# -- filters, paging, collapse ---------------------------------------------------------------


def _many() -> list[dict[str, Any]]:
    docs = []
    for i in range(30):
        team = "core" if i % 3 else "net"
        docs.append(
            {
                "id": f"d{i}",
                "title": f"Doc {i}",
                "text": ("cancel the task " if i % 2 else "apples and pears ") + f"item{i}",
                "metadata": {"team": team},
            }
        )
    return docs


@pytest.mark.parametrize("mode", ["semantic", "hybrid"])
def test_filters_restrict_both_arms_at_every_page(mode: str) -> None:
    s = LocalTextSearch(embedder=embedder(), mode=mode)  # type: ignore[arg-type]
    s.add_documents(_many())
    only_net = TextSearchFilter().equal_to("team", "net")
    expected = {f"d{i}" for i in range(30) if i % 3 == 0}
    seen: list[str] = []
    for skip in range(0, 12, 3):
        page = s.get_search_results_sync("stop the task", top=3, skip=skip, filter=only_net)
        seen.extend(r.id for r in page)
    assert set(seen) == expected and len(seen) == len(expected)  # disjoint, complete
    counted = s.get_search_results_sync(
        "stop the task", top=1, filter=only_net, include_total_count=True
    )
    assert counted.total_count == len(expected)


def test_one_per_document_in_semantic_mode() -> None:
    s = LocalTextSearch(embedder=embedder(), mode="semantic", one_per_document=True)
    text = "\n\n".join(
        f"## Part {i}\n\n" + ("Stop the job now. " if i % 2 else "Pears and apples. ") * 3
        for i in range(6)
    )
    s.add_documents([{"id": "long", "title": "Long", "text": text}, DOCS[0], DOCS[2]], chunk=True)
    found = s.get_search_results_sync("cancel the task", top=3, include_total_count=True)
    ids = [r.id for r in found]
    assert set(ids[:2]) == {"cancel", "long"} and ids[2] == "fruit"
    assert found.total_count == 3


def test_other_processes_writes_are_followed(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    reader = LocalTextSearch(path, embedder=embedder(), mode="semantic")
    writer = LocalTextSearch(path, embedder=embedder())
    writer.add_documents(DOCS[2:])
    assert reader.get_search_results_sync(RUNAWAY, top=1)[0].id != "cancel"
    writer.add_documents(DOCS[:1])
    assert reader.get_search_results_sync(RUNAWAY, top=1)[0].id == "cancel"
    writer.remove_documents(["cancel"])
    assert "cancel" not in {r.id for r in reader.get_search_results_sync(RUNAWAY, top=5)}
    # an instance without an embedder deletes vectors with their passages too (a trigger)
    plain = LocalTextSearch(path)
    plain.remove_documents(["fruit"])
    assert "fruit" not in {r.id for r in reader.get_search_results_sync("pears", top=5)}
    left = reader._db.execute("SELECT count(*) FROM passage_vectors").fetchone()[0]
    assert left == reader._db.execute("SELECT count(*) FROM passages").fetchone()[0]


def test_the_pure_python_fallback_ranks_as_numpy_does(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numpy")
    fast = LocalTextSearch(embedder=embedder(), mode="semantic")
    fast.add_documents(_many())
    from textsearch.connectors.local import _vectorfile

    monkeypatch.setattr(_vectorfile, "numpy_or_none", lambda: None)
    slow = LocalTextSearch(embedder=embedder(), mode="semantic")
    slow.add_documents(_many())
    only_core = TextSearchFilter().equal_to("team", "core")
    for query, search_filter in [("stop the task", None), ("pears", only_core)]:
        a = fast.get_search_results_sync(query, top=7, skip=2, filter=search_filter)
        b = slow.get_search_results_sync(query, top=7, skip=2, filter=search_filter)
        assert [r.id for r in a] == [r.id for r in b]
        for x, y in zip(a, b, strict=True):
            assert x.score == pytest.approx(y.score, abs=1e-5)


SECTION = (
    "# Guide\n\nIntro.\n\n## Cancelling tasks\n\n"
    + "\n\n".join(f"Paragraph {i}: cancel a task with task.cancel() safely. " * 6 for i in range(6))
    + "\n\n## Other\n\nNothing to cancel here, one mention.\n"
)


def test_one_result_per_section_in_every_shape_and_page() -> None:
    s = LocalTextSearch(value_chars=2000)
    s.add_documents(
        [{"id": "g", "title": "Guide", "text": SECTION, "link": "https://x.test/g"}], chunk=True
    )
    sections = s._db.execute(
        "SELECT count(*) FROM passages WHERE section = 'Cancelling tasks'"
    ).fetchone()[0]
    assert sections >= 2  # the long section is split: the case being tested
    found = s.get_search_results_sync("cancel task", top=5, include_total_count=True)
    links = [r.link for r in found]
    assert len(links) == len(set(links)) == 2 and found.total_count == 2
    assert found[0].link == "https://x.test/g#cancelling-tasks"
    assert "Paragraph 0" in found[0].text and "Paragraph 1" in found[0].text
    assert found[0].snippet is not None and len(found[0].snippet) <= 2000 + 2
    texts = s.get_text_search_results_sync("cancel task", top=5)
    assert [t.link for t in texts] == links
    paged = [s.get_search_results_sync("cancel task", top=1, skip=k) for k in range(3)]
    assert [p[0].link for p in paged if p.results] == links  # no section on two pages


def test_one_result_per_section_with_an_embedder_too() -> None:
    s = LocalTextSearch(embedder=embedder())
    s.add_documents(
        [{"id": "g", "title": "Guide", "text": SECTION, "link": "https://x.test/g"}], chunk=True
    )
    for mode in ("semantic", "hybrid"):
        s.mode = mode  # type: ignore[assignment]
        links = [r.link for r in s.get_search_results_sync("stop the job", top=10)]
        assert len(links) == len(set(links))
        paged = [
            r.link
            for k in range(len(links) + 1)
            for r in s.get_search_results_sync("stop the job", top=1, skip=k)
        ]
        assert paged == links


def test_import_textsearch_and_keyword_search_do_not_import_numpy() -> None:
    code = (
        "import sys, textsearch\n"
        "s = textsearch.LocalTextSearch()\n"
        "s.add_documents([{'id': 'a', 'text': 'hello world'}])\n"
        "assert s.search_sync('hello').results\n"
        "assert 'numpy' not in sys.modules, 'numpy imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_a_failing_embedder_in_index_path_keeps_the_files_done(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(250):
        (folder / f"n{i:03}.md").write_text(f"# Note {i}\n\nStop task {i}.\n", encoding="utf-8")
    calls: list[int] = []

    def flaky(texts: list[str]) -> list[list[float]]:
        calls.append(len(texts))
        if len(calls) == 2:
            raise RuntimeError("model server down")
        return [meaning(t) for t in texts]

    s = LocalTextSearch(tmp_path / "i.db", embedder=FunctionEmbedder(flaky, model="m"))
    with pytest.raises(ProviderError, match="model server down"):
        s.index_path(folder)
    # Passages of many files are embedded in one call (here the 100 files of a commit batch),
    # and the files before the failure are kept, each with its vectors.
    assert calls == [100, 100]
    assert s.document_count == 100
    vectors = s._db.execute("SELECT count(*) FROM passage_vectors").fetchone()[0]
    assert vectors == s._db.execute("SELECT count(*) FROM passages").fetchone()[0]
    assert s.index_path(folder).added == 150 and s.document_count == 250


def test_a_bad_filter_fails_before_the_embedder_is_called() -> None:
    from textsearch.errors import UnsupportedFilterError

    recorder = Recorder()
    s = LocalTextSearch(embedder=embedder(recorder), mode="semantic")
    s.add_documents(DOCS)
    calls = recorder.calls
    with pytest.raises(UnsupportedFilterError):
        s.get_search_results_sync(RUNAWAY, filter=TextSearchFilter().equal_to("nope", 1))
    assert recorder.calls == calls

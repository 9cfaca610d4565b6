"""The provider registry: built-in entries, registration, and plugins found by entry point."""

from __future__ import annotations

import importlib
import io
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import textsearch
import textsearch.connectors
from textsearch import ConfigurationError
from textsearch.cli import main
from textsearch.registry import (
    BUILTIN_PROVIDERS,
    ENTRY_POINT_GROUP,
    PORTABLE_FILTER_FIELDS,
    ProviderSpec,
    find_provider,
    get_provider,
    lazy_exports,
    providers,
    register,
    unregister,
)
from textsearch.testing import StaticTextSearch

BUILTIN_NAMES = [
    "local",
    "azure",
    "bing",
    "bocha",
    "brave",
    "tavily",
    "exa",
    "searxng",
    "postgres",
    "chroma",
    "qdrant",
    "milvus",
]


def test_the_builtin_providers() -> None:
    assert [spec.name for spec in BUILTIN_PROVIDERS] == BUILTIN_NAMES
    assert [spec.name for spec in providers()][: len(BUILTIN_NAMES)] == BUILTIN_NAMES
    assert get_provider("brave").class_name == "BraveTextSearch"
    assert get_provider("bing").cli_options == {"freshness": "freshness", "market": "mkt"}


def test_the_exports_come_from_the_registry() -> None:
    table = lazy_exports()
    assert textsearch.connectors.LAZY_EXPORTS == table
    # __all__ and the TYPE_CHECKING imports are written out for static type checkers: the
    # registry is the source, these lists must name exactly its exports.
    assert set(textsearch.connectors.__all__) == set(table)
    assert set(table) <= set(textsearch.__all__)
    for name, module in table.items():
        # The object is the one the registered module exports (LocalDocument, the shape
        # every store takes, is defined in textsearch.documents and exported by local).
        assert getattr(textsearch, name) is getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("spec", BUILTIN_PROVIDERS, ids=lambda s: s.name)
def test_each_spec_names_a_real_class_and_model(spec: ProviderSpec) -> None:
    cls = spec.load()
    assert cls.__name__ == spec.class_name
    assert getattr(cls, "provider_name", None)
    for name, module in spec.exports().items():
        assert getattr(__import__(module, fromlist=[name]), name) is getattr(textsearch, name)
    # The filter fields are the connector's own, and every CLI option maps to one of them.
    assert spec.filter_fields == cls.supported_filter_fields
    for field_name in spec.cli_options.values():
        assert spec.filter_fields is not None and field_name in spec.filter_fields


def test_portable_fields_match_the_web_connectors() -> None:
    from textsearch.connectors.web._portable import PORTABLE_FIELDS

    assert PORTABLE_FILTER_FIELDS == PORTABLE_FIELDS


def test_create_builds_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigurationError, match="BRAVE_SEARCH_API_KEY"):
        get_provider("brave").create()
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "k-0123456789")
    search = get_provider("brave").create()
    try:
        assert type(search).__name__ == "BraveTextSearch"
    finally:
        search.close()
    with pytest.raises(ConfigurationError, match="AZURE_SEARCH_ENDPOINT, AZURE_SEARCH_INDEX"):
        get_provider("azure").create()


def test_a_missing_module_names_the_extra() -> None:
    spec = ProviderSpec("ghost", "textsearch_no_such_module:Ghost", extra="ghost")
    with pytest.raises(ConfigurationError) as caught:
        spec.create()
    message = str(caught.value)
    assert "'ghost'" in message and 'pip install "textsearch-sdk[ghost]"' in message
    assert caught.value.__cause__ is None and caught.value.__context__ is None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "Bad Name", "connector": "m:C"}, "lower-case"),
        ({"name": "", "connector": "m:C"}, "lower-case"),
        ({"name": "ok", "connector": "no-colon"}, "module:Name"),
        ({"name": "ok", "connector": "m:C", "native_model": "m:"}, "module:Name"),
        ({"name": "ok", "connector": 42}, "class or 'module:Class'"),
    ],
)
def test_malformed_specs_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        ProviderSpec(**kwargs)  # type: ignore[arg-type]


def test_register_replace_and_unregister() -> None:
    spec = ProviderSpec("canned", StaticTextSearch, from_env=lambda: StaticTextSearch([]))
    register(spec)
    try:
        assert get_provider("canned") is spec
        assert spec in providers()
        with pytest.raises(ConfigurationError, match="already registered"):
            register(ProviderSpec("canned", StaticTextSearch))
        with pytest.raises(ConfigurationError, match="takes a ProviderSpec"):
            register("canned")  # type: ignore[arg-type]
        assert isinstance(get_provider("canned").create(), StaticTextSearch)
    finally:
        unregister("canned")
    assert find_provider("canned") is None
    with pytest.raises(ConfigurationError, match=r"unknown provider 'canned' \(known: local, "):
        get_provider("canned")
    # A built-in provider can be replaced, and comes back when unregistered.
    original = get_provider("exa")
    register(ProviderSpec("exa", StaticTextSearch), replace=True)
    assert get_provider("exa").connector is StaticTextSearch
    unregister("exa")
    assert get_provider("exa") is original


# -- plugins, found through a real installed distribution -------------------------------------

PLUGIN_MODULE = '''
"""A third-party connector, as an installed plugin ships it."""
from textsearch.registry import ProviderSpec
from textsearch.testing import StaticTextSearch


class AcmeTextSearch(StaticTextSearch):
    @classmethod
    def from_env(cls):
        return cls(
            [{"name": "Acme guide", "value": "acme retry advice", "link": "https://acme.example/"}],
            match="always",
        )


PROVIDER = ProviderSpec(
    "acme", AcmeTextSearch, from_env=AcmeTextSearch.from_env, cli_options={"freshness": "age"}
)
WRONG_NAME = ProviderSpec("other", AcmeTextSearch)
NOT_A_SPEC = 42
'''


def _install_plugin(root: Path) -> Path:
    """A distribution installed by hand: a module and a dist-info with its entry points."""
    site = root / "site"
    site.mkdir()
    (site / "acme_textsearch.py").write_text(PLUGIN_MODULE, encoding="utf-8")
    (site / "acme_broken.py").write_text(
        "import pathlib, os\n"
        "pathlib.Path(os.environ['ACME_MARKER']).write_text('imported')\n"
        "raise RuntimeError('acme is broken')\n",
        encoding="utf-8",
    )
    info = site / "acme_textsearch-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: acme-textsearch\nVersion: 1.0\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            f"""\
            [{ENTRY_POINT_GROUP}]
            acme = acme_textsearch:PROVIDER
            acme-class = acme_textsearch:AcmeTextSearch
            broken = acme_broken:PROVIDER
            misnamed = acme_textsearch:WRONG_NAME
            notaspec = acme_textsearch:NOT_A_SPEC
            """
        ),
        encoding="utf-8",
    )
    return site


@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    site = _install_plugin(tmp_path)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("ACME_MARKER", str(tmp_path / "broken-was-imported"))
    yield site
    for name in ("acme", "acme-class", "broken", "misnamed", "notaspec"):
        unregister(name)
    for module in ("acme_textsearch", "acme_broken"):
        sys.modules.pop(module, None)


def test_a_plugin_is_found_by_its_entry_point(plugin_site: Path) -> None:
    assert "acme" not in [spec.name for spec in providers()]  # not read until asked for
    spec = get_provider("acme")
    assert spec.class_name == "AcmeTextSearch" and spec.module == "acme_textsearch"
    assert [r.link for r in spec.create().get_text_search_results_sync("retry")] == [
        "https://acme.example/"
    ]
    # A class with from_env() is accepted as it is.
    assert get_provider("acme-class").load().__name__ == "AcmeTextSearch"


def test_the_cli_uses_a_plugin(plugin_site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    assert main(["search", "retry", "--provider", "acme", "--json"], out=out) == 0
    assert [r["link"] for r in json.loads(out.getvalue())["results"]] == ["https://acme.example/"]
    # Its CLI options map to its own filter field.
    from textsearch.cli._providers import search_filter
    from textsearch.cli.parser import build_parser

    args = build_parser().parse_args(["search", "q", "--provider", "acme", "--freshness", "day"])
    flt = search_filter(args)
    assert flt is not None and flt.field_names == ("age",)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("broken", "failed to load: RuntimeError: acme is broken"),
        ("misnamed", "gives a ProviderSpec named 'other'"),
        ("notaspec", "must point at a ProviderSpec or a connector class"),
    ],
)
def test_a_bad_plugin_is_named_and_breaks_nothing_else(
    plugin_site: Path, tmp_path: Path, name: str, message: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        get_provider(name)
    assert f"plugin provider {name!r}" in str(caught.value) and message in str(caught.value)
    assert caught.value.__context__ is None and caught.value.__cause__ is None
    # The built-ins never read a plugin: they work with a broken one installed.
    marker = tmp_path / "broken-was-imported"
    marker.unlink(missing_ok=True)
    assert get_provider("local").name == "local"
    assert isinstance(get_provider("brave"), ProviderSpec)
    assert not marker.exists()


def test_an_installed_plugin_from_the_command(plugin_site: Path, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = os.pathsep.join([str(plugin_site), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "textsearch", "search", "retry", "--json"]
    ok = subprocess.run(
        [*command, "--provider", "acme"], env=env, capture_output=True, text=True, timeout=120
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["results"][0]["link"] == "https://acme.example/"
    broken = subprocess.run(
        [*command, "--provider", "broken"], env=env, capture_output=True, text=True, timeout=120
    )
    assert broken.returncode == 2 and broken.stdout == ""
    (line,) = broken.stderr.strip().splitlines()
    assert "plugin provider 'broken'" in line and "acme is broken" in line
    unknown = subprocess.run(
        [*command, "--provider", "nope"], env=env, capture_output=True, text=True, timeout=120
    )
    assert unknown.returncode == 2 and "invalid choice: 'nope'" in unknown.stderr


@pytest.mark.parametrize("module", [textsearch, textsearch.connectors], ids=lambda m: m.__name__)
def test_type_checkers_see_every_registry_export(module: object) -> None:
    import ast
    import importlib
    import inspect

    def typed_imports(source_of: object) -> dict[str, str]:
        tree = ast.parse(inspect.getsource(source_of))  # type: ignore[arg-type]
        typed: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                for statement in node.body:
                    if not isinstance(statement, ast.ImportFrom) or not statement.module:
                        continue
                    if [alias.name for alias in statement.names] == ["*"]:
                        # a star import is what that module's own type-checking imports are
                        star = importlib.import_module(statement.module)
                        typed.update(typed_imports(star))
                    else:
                        typed.update({alias.name: statement.module for alias in statement.names})
        return typed

    typed = typed_imports(module)
    assert {name: typed.get(name) for name in lazy_exports()} == lazy_exports()
    assert set(lazy_exports()) <= set(module.__all__)  # type: ignore[attr-defined]

"""One registry of providers: name → how to build it, its extra, its filter options, its models.

The command line (``textsearch search --provider NAME``, ``textsearch mcp --provider NAME``)
and the lazy exports of `textsearch` and `textsearch.connectors` read this
registry; nothing else keeps a list of providers. A built-in provider is one
`ProviderSpec` in ``BUILTIN_PROVIDERS`` below; adding one is adding an entry (plus,
for static type checkers only, its names in the ``TYPE_CHECKING`` imports and ``__all__``
of `textsearch` and `textsearch.connectors`, which tests keep equal to the registry).

Third-party connectors join in two ways:

- at run time, ``register(ProviderSpec(...))``;
- installed, through the ``textsearch.connectors`` entry-point group (the way ``llm`` finds
  its plugins). In ``pyproject.toml``::

      [project.entry-points."textsearch.connectors"]
      acme = "acme_textsearch:PROVIDER"   # a ProviderSpec, or a class with from_env()

  Entry points are read lazily: only when a name is neither built in nor registered, and
  only the entry point of that name is loaded. A plugin that fails to load gives a
  `ConfigurationError` naming it; the built-in providers never load a
  plugin, so a broken one cannot break them.

Nothing here imports a connector: a spec names its class as ``"module:Class"`` and the
module is imported only when the provider is built. Nothing here reads the environment
either: each connector's ``from_env()`` reads its own variables.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from textsearch._keyed import ComparedByKey
from textsearch._named import NamedRegistry
from textsearch.errors import ConfigurationError

__all__ = [
    "ENTRY_POINT_GROUP",
    "PORTABLE_FILTER_FIELDS",
    "ProviderSpec",
    "find_provider",
    "get_provider",
    "lazy_exports",
    "providers",
    "register",
    "unregister",
]

#: The entry-point group third-party connectors register under.
ENTRY_POINT_GROUP = "textsearch.connectors"

#: The portable web filter fields, in the order of DESIGN §10.3: every web connector
#: translates them to its provider's own parameters.
PORTABLE_FILTER_FIELDS: tuple[str, ...] = (
    "site",
    "exclude_site",
    "freshness",
    "language",
    "country",
    "safe_search",
)


class ProviderSpec(ComparedByKey):
    """How to build one provider, and what the tools around it need to know about it.

    Args:
        name: The provider's name (``--provider NAME``): lower case letters, digits, ``-``
            and ``_``.
        connector: The connector class as ``"module:Class"`` (imported only when used), or
            the class itself.
        native_model: The class of its native results as ``"module:Class"``, if any.
        from_env: Builds the provider from the environment alone (keys, endpoints). Default:
            the class's own ``from_env()`` (every built-in connector has one; it documents
            the variables it reads), else the class called without arguments. One that
            takes an ``embedder`` keyword gets `create`'s ``embedder`` spec.
        extra: The extra that installs its optional dependencies (``pip install
            "textsearch-sdk[EXTRA]"``), named when an import fails.
        cli_options: Command-line option → the filter field it sets for this provider
            (``{"market": "mkt"}``: ``--market en-US`` is ``equal_to("mkt", "en-US")``).
            ``--site`` is portable and not listed here.
        secret_variables: Environment variables that may hold a secret, masked in
            ``--verbose`` logs.
        description: One line for help texts.

    Raises:
        ConfigurationError: A malformed name or connector reference.
    """

    # A plain class, not a dataclass: ``import textsearch`` reads this module, and the
    # dataclasses module costs more to import than everything else it needs.
    __slots__ = (
        "cli_options",
        "connector",
        "description",
        "extra",
        "from_env",
        "name",
        "native_model",
        "secret_variables",
    )

    name: str
    connector: str | type[Any]
    native_model: str | None
    from_env: Callable[[], Any] | None
    extra: str | None
    cli_options: Mapping[str, str]
    secret_variables: tuple[str, ...]
    description: str

    def __init__(
        self,
        name: str,
        connector: str | type[Any],
        native_model: str | None = None,
        from_env: Callable[[], Any] | None = None,
        extra: str | None = None,
        cli_options: Mapping[str, str] | None = None,
        secret_variables: Sequence[str] = (),
        description: str = "",
    ) -> None:
        if (
            not isinstance(name, str)
            or not name
            or not name[0].isalpha()
            or not all(c.isascii() and (c.isalnum() or c in "-_") for c in name)
            or name != name.lower()
        ):
            raise ConfigurationError(
                f"provider name {name!r} must be lower-case letters, digits, '-' or '_', "
                "starting with a letter"
            )
        for label, reference in (("connector", connector), ("native_model", native_model)):
            if isinstance(reference, str) and (
                reference.count(":") != 1 or not all(reference.split(":"))
            ):
                raise ConfigurationError(
                    f"provider {name!r}: {label} must be 'module:Name', got {reference!r}"
                )
        if not isinstance(connector, (str, type)):
            raise ConfigurationError(
                f"provider {name!r}: connector must be a class or 'module:Class'"
            )
        if from_env is not None and not callable(from_env):
            raise ConfigurationError(f"provider {name!r}: from_env must be callable")
        values = {
            "name": name,
            "connector": connector,
            "native_model": native_model,
            "from_env": from_env,
            "extra": extra,
            # Frozen values: a spec can be shared and compared safely.
            "cli_options": MappingProxyType(dict(cli_options or {})),
            "secret_variables": tuple(secret_variables),
            "description": description,
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"ProviderSpec is frozen: cannot set {key!r}")

    def _key(self) -> tuple[Any, ...]:
        return (
            self.name,
            self.connector,
            self.native_model,
            self.from_env,
            self.extra,
            tuple(sorted(self.cli_options.items())),
            self.secret_variables,
            self.description,
        )

    def __repr__(self) -> str:
        return f"ProviderSpec(name={self.name!r}, connector={self.connector!r})"

    # -- names, for the lazy exports ----------------------------------------------------

    @property
    def module(self) -> str:
        """The module that defines the connector class."""
        if isinstance(self.connector, str):
            return self.connector.partition(":")[0]
        return self.connector.__module__

    @property
    def class_name(self) -> str:
        """The connector class's name."""
        if isinstance(self.connector, str):
            return self.connector.partition(":")[2]
        return self.connector.__name__

    def exports(self) -> dict[str, str]:
        """Public name → module, for the connector class and its native model."""
        found = {self.class_name: self.module}
        if self.native_model is not None:
            module, _, name = self.native_model.partition(":")
            found[name] = module
        return found

    # -- loading ------------------------------------------------------------------------

    def load(self) -> type[Any]:
        """The connector class (imports its module).

        Raises:
            ConfigurationError: Its module or an optional dependency is missing (the
                message names the extra to install).
        """
        if not isinstance(self.connector, str):
            return self.connector
        missing = None
        try:
            module = importlib.import_module(self.module)
        except ImportError as exc:
            missing = self._missing(exc)
        if missing is not None:
            raise missing  # outside the except block: no chained ImportError
        value = getattr(module, self.class_name, None)
        if not isinstance(value, type):
            raise ConfigurationError(
                f"provider {self.name!r}: {self.connector!r} does not name a class"
            )
        return value

    @property
    def filter_fields(self) -> frozenset[str] | None:
        """The filter fields the connector accepts (its ``supported_filter_fields``).

        ``None``: it does not declare them (checked per request). Read from the class, so
        the registry and the connector cannot disagree; imports the connector's module.

        Raises:
            ConfigurationError: The connector cannot be imported.
        """
        declared = getattr(self.load(), "supported_filter_fields", None)
        return frozenset(declared) if isinstance(declared, (set, frozenset)) else None

    def create(self, *, embedder: str | None = None) -> Any:
        """Build the provider from the environment.

        It calls ``from_env``, else the class's own ``from_env()``, else the class without
        arguments.

        Args:
            embedder: An embedder spec (``minilm``, ``e5``, ...), passed on as
                ``from_env(embedder=...)`` when that function has an ``embedder`` keyword (the
                vector stores'), instead of ``TEXTSEARCH_EMBEDDER``; ignored by the others.

        Raises:
            ConfigurationError: A setting is missing (the message names the variable), or
                an optional dependency is not installed (it names the extra).
        """
        missing = None
        try:
            factory = self.from_env
            if factory is None:
                cls = self.load()
                found = getattr(cls, "from_env", None)
                if not callable(found):
                    return cls()
                factory = found
            if embedder and _takes_embedder(factory):
                return factory(embedder=embedder)  # type: ignore[call-arg]
            return factory()
        except ImportError as exc:
            missing = self._missing(exc)
        raise missing  # outside the except block: no chained ImportError

    def _missing(self, exc: ImportError) -> ConfigurationError:
        hint = (
            f'; install it with: pip install "textsearch-sdk[{self.extra}]"' if self.extra else ""
        )
        return ConfigurationError(f"provider {self.name!r} cannot be loaded: {exc}{hint}")


# -- the built-in providers ---------------------------------------------------------------
#
# A row names the connector class and its native model; the class's own ``from_env()``
# reads the environment (its docstring lists the variables).

_VECTORS = "textsearch.connectors.vectors"
_WEB = "textsearch.connectors.web"
_FRESHNESS = {"freshness": "freshness"}


def _builtin(
    package: str,
    name: str,
    connector: str,
    native_model: str,
    secret: str | None,
    description: str,
    *,
    extra: str | None = None,
    cli_options: Mapping[str, str] | None = None,
) -> ProviderSpec:
    """A built-in provider's row: its classes live in ``package.NAME``."""
    module = f"{package}.{name}"
    return ProviderSpec(
        name,
        f"{module}:{connector}",
        native_model=f"{module}:{native_model}",
        secret_variables=(secret,) if secret else (),
        description=description,
        extra=extra,
        cli_options=cli_options,
    )


def _vector_provider(
    name: str, connector: str, native_model: str, *, secret: str | None
) -> ProviderSpec:
    """A vector store's row (its ``from_env()`` reads ``TEXTSEARCH_<NAME>``)."""
    kind = connector[: -len("TextSearch")]
    where = f"TEXTSEARCH_{name.upper()}"
    return _builtin(
        _VECTORS, name, connector, native_model, secret,
        f"a {kind} collection ({where}, TEXTSEARCH_COLLECTION)", extra=name,
    )  # fmt: skip


#: The providers that ship with textsearch, in the order help texts list them.
BUILTIN_PROVIDERS: tuple[ProviderSpec, ...] = (  # fmt: skip
    ProviderSpec(
        "local",
        "textsearch.connectors.local:LocalTextSearch",
        native_model="textsearch.connectors.local:LocalDocument",
        description="the embedded index (no key, no network)",
    ),
    ProviderSpec(
        "azure",
        "textsearch.connectors.azure_ai_search:AzureAISearchTextSearch",
        native_model="textsearch.connectors.azure_ai_search:AzureSearchDocument",
        extra="azure",
        secret_variables=("AZURE_SEARCH_API_KEY",),
        description="Azure AI Search",
    ),
    # web search: name, connector, native model, the key's variable, description
    _builtin(
        _WEB,
        "bing",
        "BingTextSearch",
        "BingWebPage",
        "BING_SEARCH_API_KEY",
        "Bing Web Search API (or a compatible gateway)",
        cli_options={"freshness": "freshness", "market": "mkt"},
    ),
    _builtin(
        _WEB,
        "bocha",
        "BochaTextSearch",
        "BochaWebPage",
        "BOCHA_API_KEY",
        "Bocha web search",
        cli_options=_FRESHNESS,
    ),
    _builtin(
        _WEB,
        "brave",
        "BraveTextSearch",
        "BraveWebResult",
        "BRAVE_SEARCH_API_KEY",
        "Brave Search API",
        cli_options=_FRESHNESS,
    ),
    _builtin(
        _WEB,
        "tavily",
        "TavilyTextSearch",
        "TavilyResult",
        "TAVILY_API_KEY",
        "Tavily search",
        cli_options=_FRESHNESS,
    ),
    _builtin(
        _WEB,
        "exa",
        "ExaTextSearch",
        "ExaResult",
        "EXA_API_KEY",
        "Exa search",
        cli_options=_FRESHNESS,
    ),
    _builtin(
        _WEB,
        "searxng",
        "SearxngTextSearch",
        "SearxngResult",
        None,
        "a SearXNG instance (SEARXNG_URL)",
        cli_options=_FRESHNESS,
    ),
    ProviderSpec(
        "postgres",
        "textsearch.connectors.postgres:PostgresTextSearch",
        native_model="textsearch.connectors.postgres:PostgresDocument",
        extra="postgres",
        description="PostgreSQL full-text search (TEXTSEARCH_POSTGRES_DSN)",
    ),
    _vector_provider("chroma", "ChromaTextSearch", "ChromaDocument", secret=None),
    _vector_provider("qdrant", "QdrantTextSearch", "QdrantDocument", secret="QDRANT_API_KEY"),
    _vector_provider("milvus", "MilvusTextSearch", "MilvusDocument", secret="MILVUS_TOKEN"),
)

# -- the registry -------------------------------------------------------------------------


def _adopt(name: str, loaded: object, where: str) -> ProviderSpec:
    """The spec of what a plugin's entry point loaded: a spec, or a class with from_env()."""
    if isinstance(loaded, ProviderSpec):
        if loaded.name != name:
            raise ConfigurationError(f"{where} gives a ProviderSpec named {loaded.name!r}")
        return loaded
    if isinstance(loaded, type) and callable(getattr(loaded, "from_env", None)):
        return ProviderSpec(name, loaded)
    raise ConfigurationError(
        f"{where} must point at a ProviderSpec or a connector class with from_env(), "
        f"got {type(loaded).__name__}"
    )


_REGISTRY: NamedRegistry[ProviderSpec] = NamedRegistry(
    "provider", ProviderSpec, ENTRY_POINT_GROUP, BUILTIN_PROVIDERS, _adopt, "register"
)


def register(spec: ProviderSpec, *, replace: bool = False) -> ProviderSpec:
    """Add a provider to the registry (the CLI and the MCP server can then name it).

    Args:
        spec: The provider.
        replace: Replace a provider of the same name (a built-in one included).

    Returns:
        ``spec``.

    Raises:
        ConfigurationError: ``spec`` is not a `ProviderSpec`, or its name is taken
            and ``replace`` is false.
    """
    return _REGISTRY.register(spec, replace=replace)


def unregister(name: str) -> None:
    """Remove a provider registered with `register` (no error when absent).

    A built-in provider that was replaced comes back; a built-in one cannot be removed.
    """
    _REGISTRY.unregister(name)


def providers() -> tuple[ProviderSpec, ...]:
    """The built-in and registered providers (installed plugins are not loaded here)."""
    return _REGISTRY.all()


def get_provider(name: str) -> ProviderSpec:
    """The provider of this name: built in, registered, or from an installed plugin.

    Raises:
        ConfigurationError: No provider has this name (the message lists the known ones),
            or the plugin of this name fails to load (the message names it).
    """
    return _REGISTRY.get(name)


def find_provider(name: str) -> ProviderSpec | None:
    """Like `get_provider`, but ``None`` when no provider has this name.

    Raises:
        ConfigurationError: The plugin of this name fails to load (the message names it).
    """
    return _REGISTRY.find(name)


def _takes_embedder(factory: Callable[..., Any]) -> bool:
    """Whether ``factory`` takes an ``embedder=`` keyword (read from its signature)."""
    import inspect

    try:
        parameter = inspect.signature(factory).parameters.get("embedder")
    except (TypeError, ValueError):  # no signature to read: it takes nothing more
        return False
    return parameter is not None and parameter.kind in (
        inspect.Parameter.KEYWORD_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    )


def lazy_exports(specs: Iterable[ProviderSpec] = BUILTIN_PROVIDERS) -> dict[str, str]:
    """Public name → defining module, for the connector classes and native models."""
    table: dict[str, str] = {}
    for spec in specs:
        table.update(spec.exports())
    return table

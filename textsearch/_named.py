"""A registry of named specs: built in, registered at run time, or from an installed plugin.

The provider registry (`textsearch.registry`) and the embedder registry
(`textsearch.embeddings`) are two of these. A plugin is an entry point in the registry's
group; entry points are read lazily, only for a name that is neither built in nor
registered, and only the entry point of that name is loaded. A plugin that fails to load
gives a `ConfigurationError` naming it, raised outside the ``except`` block so the
plugin's own exception is not kept as its ``__context__``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Generic, Protocol, TypeVar

from textsearch.errors import ConfigurationError

__all__ = ["NamedRegistry"]


class _Named(Protocol):
    @property
    def name(self) -> str: ...


SpecT = TypeVar("SpecT", bound=_Named)


class NamedRegistry(Generic[SpecT]):
    """Specs by name: the built-in ones, the registered ones, then installed plugins.

    Args:
        kind: What a spec names, in messages (``"provider"``, ``"embedder"``).
        spec_type: The class every spec is an instance of.
        group: The entry-point group plugins register under.
        builtins: The built-in specs, in the order listings show them.
        adopt: Turns what a plugin's entry point loaded into a spec; called with the name,
            the loaded object and a phrase naming the plugin for messages; raises
            `ConfigurationError` for anything it cannot take.
        register_name: The public function that registers, in its type error.
    """

    def __init__(
        self,
        kind: str,
        spec_type: type[SpecT],
        group: str,
        builtins: Iterable[SpecT],
        adopt: Callable[[str, object, str], SpecT],
        register_name: str,
    ) -> None:
        self.kind = kind
        self.spec_type = spec_type
        self.group = group
        self.builtins = tuple(builtins)
        self._adopt = adopt
        self._register_name = register_name
        self._lock = threading.Lock()
        self._specs: dict[str, SpecT] = {spec.name: spec for spec in self.builtins}

    def register(self, spec: SpecT, *, replace: bool = False) -> SpecT:
        """Add ``spec``; a taken name needs ``replace`` (a built-in one included).

        Raises:
            ConfigurationError: Not a spec of this registry, or a taken name without
                ``replace``.
        """
        if not isinstance(spec, self.spec_type):
            kind = self.spec_type.__name__
            article = "an" if kind[0] in "AEIOU" else "a"
            raise ConfigurationError(
                f"{self._register_name}() takes {article} {kind}, got {type(spec).__name__}"
            )
        with self._lock:
            if spec.name in self._specs and not replace:
                raise ConfigurationError(
                    f"a {self.kind} named {spec.name!r} is already registered (pass replace=True)"
                )
            self._specs[spec.name] = spec
        return spec

    def unregister(self, name: str) -> None:
        """Remove a registered spec; a replaced built-in one comes back."""
        with self._lock:
            builtin = next((spec for spec in self.builtins if spec.name == name), None)
            if builtin is not None:
                self._specs[name] = builtin
            else:
                self._specs.pop(name, None)

    def all(self) -> tuple[SpecT, ...]:
        """The built-in and registered specs (plugins are not loaded here)."""
        with self._lock:
            return tuple(self._specs.values())

    def find(self, name: str) -> SpecT | None:
        """The spec of this name, or ``None``; a plugin of this name is loaded once.

        Raises:
            ConfigurationError: The plugin of this name fails to load.
        """
        with self._lock:
            found = self._specs.get(name)
        if found is not None or not isinstance(name, str) or not name:
            return found
        spec = self._from_entry_point(name)
        if spec is None:
            return None
        with self._lock:
            return self._specs.setdefault(name, spec)

    def get(self, name: str) -> SpecT:
        """The spec of this name.

        Raises:
            ConfigurationError: No spec has this name (the message lists the known ones),
                or its plugin fails to load.
        """
        spec = self.find(name)
        if spec is None:
            known = ", ".join(s.name for s in self.all())
            raise ConfigurationError(f"unknown {self.kind} {name!r} (known: {known})")
        return spec

    def _from_entry_point(self, name: str) -> SpecT | None:
        from importlib.metadata import entry_points

        matches = list(entry_points(group=self.group, name=name))
        if not matches:
            return None
        point = matches[0]
        where = f"plugin {self.kind} {name!r} (entry point {point.value!r} in group {self.group!r})"
        failure = None
        try:
            loaded = point.load()
        except Exception as exc:  # any failure of third-party code: named, never a traceback
            failure = f"{where} failed to load: {type(exc).__name__}: {exc}"
        if failure is not None:
            raise ConfigurationError(failure)
        return self._adopt(name, loaded, where)

"""Equality and hashing from one key, for the value classes that are not dataclasses."""

from __future__ import annotations

from collections.abc import Hashable
from typing import cast

__all__ = ["ComparedByKey"]


class ComparedByKey:
    """Instances are equal when their ``_key()`` is, and hash by it.

    Only instances of one class (or of a class and its subclass) compare; anything else
    gets ``NotImplemented``, so Python falls back to identity.
    """

    __slots__ = ()

    def _key(self) -> Hashable:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, type(self)) and not isinstance(self, type(other)):
            return NotImplemented
        return self._key() == cast("ComparedByKey", other)._key()

    def __hash__(self) -> int:
        return hash(self._key())

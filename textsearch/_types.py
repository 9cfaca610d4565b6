"""Core data types: normalized results, result collections, options and filters."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar, overload

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from typing_extensions import TypedDict

from textsearch._keyed import ComparedByKey
from textsearch._ranges import MAX_ANY_OF, RANGE_KINDS, check_range_value
from textsearch.errors import InvalidRequestError

__all__ = [
    "AnyOf",
    "AnyTagEqualTo",
    "EqualTo",
    "FilterClause",
    "FilterValue",
    "NotEqualTo",
    "Range",
    "SearchOptionArgs",
    "SearchOptions",
    "SearchResults",
    "TextSearchFilter",
    "TextSearchResult",
]

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

#: The largest ``skip`` a search accepts (``SearchOptions.MAX_SKIP``). Paging 10 results at a
#: time, that is a thousand pages: no reader, human or model, goes that deep, and it is the
#: result window most search services allow by default (Elasticsearch and OpenSearch cap
#: ``from + size`` at 10,000). A bound here means no backend is ever asked to rank or allocate
#: for an absurd ``skip`` a model made up (tantivy allocates ``top + skip`` slots up front).
MAX_SKIP = 10_000

FilterValue = str | int | float | bool | None
"""The value types a filter clause may carry: plain data, never code."""


class TextSearchResult(BaseModel):
    """The normalized result every connector can produce.

    Attributes:
        name: A title for the result (page title, document title), if any.
        value: The text of the result (snippet, summary, passage), if any.
        link: Where the result comes from (URL or file path), if any.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    name: str | None = None
    value: str | None = None
    link: str | None = None

    def __init__(
        self, name: str | None = None, value: str | None = None, link: str | None = None
    ) -> None:
        super().__init__(name=name, value=value, link=link)


@dataclass
class SearchResults(Generic[T]):
    """The results of one search: a list of items plus what the backend said about them.

    Iterable, ``len()``-able and indexable like the list it wraps.

    Attributes:
        results: The items, in the backend's ranking order.
        total_count: How many results the backend knows of in all; set only when asked
            with ``include_total_count`` and only when the backend really knows it.
        metadata: Extra facts from the backend (for example answers, facets, trace ids).
    """

    results: list[T] = field(default_factory=list)
    total_count: int | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def __iter__(self) -> Iterator[T]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        return self.results[index]

    def __bool__(self) -> bool:
        return bool(self.results)


_FIELD_NAME = re.compile(r"^[^\x00-\x1f]{1,256}$")


def is_valid_text(text: str) -> bool:
    """False for strings that cannot be encoded (lone surrogates), which no backend accepts."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_value(value: object) -> FilterValue:
    if isinstance(value, str) and not is_valid_text(value):
        raise InvalidRequestError("filter values must be valid Unicode text (no lone surrogates)")
    # bool is a subclass of int, so the isinstance check covers it.
    if value is None or isinstance(value, (str, int, float)):
        return value
    raise InvalidRequestError(
        f"filter values must be str, int, float, bool or None, not {type(value).__name__}"
    )


class EqualTo(BaseModel):
    """Clause: ``field_name`` equals ``value``."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["equal_to"] = "equal_to"
    field_name: str
    value: FilterValue


class AnyTagEqualTo(BaseModel):
    """Clause: the collection ``field_name`` contains an element equal to ``value``."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["any_tag_equal_to"] = "any_tag_equal_to"
    field_name: str
    value: FilterValue


class Range(BaseModel):
    """Clause: ``field_name`` compares with ``value`` as ``kind`` says.

    ``kind`` is ``greater_than``, ``greater_than_or_equal``, ``less_than`` or
    ``less_than_or_equal``. ``value`` is a finite number (compared with numbers only, never
    with booleans) or an ISO-8601 date or date and time (compared as an instant with stored
    strings that are such dates; a date alone is midnight UTC, a time without an offset is
    UTC). A document without the field, or with a value of another kind, never matches.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["greater_than", "greater_than_or_equal", "less_than", "less_than_or_equal"]
    field_name: str
    value: int | float | str

    @property
    def operator(self) -> str:
        """``>``, ``>=``, ``<`` or ``<=``."""
        return RANGE_KINDS[self.kind]


class AnyOf(BaseModel):
    """Clause: ``field_name`` equals one of ``values`` (each compared as ``equal_to`` does).

    A document without the field never matches.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["any_of"] = "any_of"
    field_name: str
    values: tuple[str | int | float | bool, ...]


class NotEqualTo(BaseModel):
    """Clause: ``field_name`` does not equal ``value``: exactly the documents that
    ``equal_to(field_name, value)`` leaves out.

    A document without the field matches (SQL's ``IS NOT``); with ``value=None`` it is the
    documents that hold a value.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: Literal["not_equal_to"] = "not_equal_to"
    field_name: str
    value: FilterValue


FilterClause = EqualTo | AnyTagEqualTo | Range | AnyOf | NotEqualTo
"""One clause of a `TextSearchFilter`."""


class TextSearchFilter(ComparedByKey):
    """A data-only filter: a list of clauses that are all AND-ed together.

    Built fluently; each builder method adds a clause and returns the same filter::

        TextSearchFilter().equal_to("site", "devblogs.microsoft.com").any_tag_equal_to(
            "tags", "python"
        )

    Filters hold only field names and plain values (str, int, float, bool, None); they
    are never code or expression strings, so nothing in them is ever evaluated. Each
    connector translates them into its own syntax, escaping values, and raises
    `UnsupportedFilterError` for a field it cannot honour.
    Two filters built the same way are equal.
    """

    __slots__ = ("_clauses",)

    def __init__(
        self, clauses: list[FilterClause] | tuple[FilterClause, ...] | None = None
    ) -> None:
        """Create a filter, empty or from existing clauses."""
        self._clauses: list[FilterClause] = list(clauses or ())

    @staticmethod
    def _check_field(field_name: object) -> str:
        if (
            not isinstance(field_name, str)
            or not _FIELD_NAME.fullmatch(field_name)
            or not is_valid_text(field_name)
        ):
            raise InvalidRequestError(
                f"filter field names must be non-empty strings without control characters, "
                f"got {field_name!r}"
            )
        return field_name

    def equal_to(self, field_name: str, value: FilterValue) -> TextSearchFilter:
        """Require ``field_name`` to equal ``value``; returns this filter.

        Raises:
            InvalidRequestError: The field name is empty or the value is not plain data.
        """
        return self._add(EqualTo, field_name, value)

    def any_tag_equal_to(self, field_name: str, value: FilterValue) -> TextSearchFilter:
        """Require the collection ``field_name`` to contain ``value``; returns this filter.

        Raises:
            InvalidRequestError: The field name is empty or the value is not plain data.
        """
        return self._add(AnyTagEqualTo, field_name, value)

    def not_equal_to(self, field_name: str, value: FilterValue) -> TextSearchFilter:
        """Require ``field_name`` not to equal ``value``; returns this filter.

        The complement of ``equal_to``: a document without the field matches (as SQL's
        ``IS NOT``), and ``not_equal_to(f, None)`` keeps the documents that hold a value.

        Raises:
            InvalidRequestError: The field name is empty or the value is not plain data.
        """
        return self._add(NotEqualTo, field_name, value)

    def greater_than(self, field_name: str, value: int | float | str) -> TextSearchFilter:
        """Require ``field_name`` to be above ``value``; returns this filter.

        ``value`` is a finite number or an ISO-8601 date or date and time (``2024-05-01``,
        ``2024-05-01T10:30:00Z``): numbers compare with stored numbers (never booleans),
        dates with stored strings that are such dates, as instants. A document without the
        field, or with a value of another kind, does not match.

        Raises:
            InvalidRequestError: The field name is empty, or ``value`` is not a finite
                64-bit number or an ISO-8601 date (an invalid range value).
        """
        return self._range("greater_than", field_name, value)

    def greater_than_or_equal(self, field_name: str, value: int | float | str) -> TextSearchFilter:
        """Require ``field_name`` to be at least ``value`` (see `greater_than`)."""
        return self._range("greater_than_or_equal", field_name, value)

    def less_than(self, field_name: str, value: int | float | str) -> TextSearchFilter:
        """Require ``field_name`` to be below ``value`` (see `greater_than`)."""
        return self._range("less_than", field_name, value)

    def less_than_or_equal(self, field_name: str, value: int | float | str) -> TextSearchFilter:
        """Require ``field_name`` to be at most ``value`` (see `greater_than`)."""
        return self._range("less_than_or_equal", field_name, value)

    def any_of(
        self, field_name: str, values: list[str | int | float | bool] | tuple[Any, ...]
    ) -> TextSearchFilter:
        """Require ``field_name`` to equal one of ``values``; returns this filter.

        Each value compares as in `equal_to` (``True`` is never ``1``). A document without
        the field does not match.

        Raises:
            InvalidRequestError: The field name is empty; ``values`` is not a list or tuple
                of 1 to 256 plain values (str, int, float, bool; None is `equal_to`'s).
        """
        name = self._check_field(field_name)
        if not isinstance(values, (list, tuple)) or not values or len(values) > MAX_ANY_OF:
            raise InvalidRequestError(
                f"any_of({name!r}, ...) takes a list of 1 to {MAX_ANY_OF} values"
            )
        checked: list[str | int | float | bool] = []
        for value in values:
            plain = _check_value(value)
            if plain is None:
                raise InvalidRequestError(
                    f"any_of({name!r}, ...) cannot hold None: use equal_to({name!r}, None)"
                )
            checked.append(plain)
        self._clauses.append(AnyOf(field_name=name, values=tuple(checked)))
        return self

    def _range(self, kind: str, field_name: object, value: object) -> TextSearchFilter:
        name = self._check_field(field_name)
        bound = check_range_value(kind, name, value)
        self._clauses.append(Range(kind=kind, field_name=name, value=bound))
        return self

    def _add(
        self,
        clause: type[EqualTo] | type[AnyTagEqualTo] | type[NotEqualTo],
        field_name: object,
        value: object,
    ) -> TextSearchFilter:
        self._clauses.append(
            clause(field_name=self._check_field(field_name), value=_check_value(value))
        )
        return self

    @property
    def clauses(self) -> tuple[FilterClause, ...]:
        """The clauses, in the order they were added (a snapshot)."""
        return tuple(self._clauses)

    @property
    def field_names(self) -> tuple[str, ...]:
        """Distinct field names used by the clauses, in first-use order."""
        return tuple(dict.fromkeys(c.field_name for c in self._clauses))

    def copy(self) -> TextSearchFilter:
        """Return an independent copy (clauses are immutable, so this is cheap)."""
        return TextSearchFilter(self._clauses)

    def and_(self, other: TextSearchFilter | None) -> TextSearchFilter:
        """Return a new filter with this filter's clauses followed by ``other``'s."""
        if other is None:
            return self.copy()
        return TextSearchFilter([*self._clauses, *other._clauses])

    def to_dict(self) -> dict[str, Any]:
        """Serialize to plain JSON-able data."""
        return {"clauses": [c.model_dump(mode="json") for c in self._clauses]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TextSearchFilter:
        """Rebuild a filter serialized with `to_dict`.

        Raises:
            InvalidRequestError: The data is not a serialized filter.
        """
        result = cls()
        raw = data.get("clauses")
        if not isinstance(raw, list):
            raise InvalidRequestError("a serialized filter needs a 'clauses' list")
        for item in raw:
            if not isinstance(item, Mapping):
                raise InvalidRequestError("each filter clause must be an object")
            kind = item.get("kind")
            if kind == "equal_to":
                result.equal_to(item.get("field_name"), item.get("value"))  # type: ignore[arg-type]
            elif kind == "any_tag_equal_to":
                result.any_tag_equal_to(item.get("field_name"), item.get("value"))  # type: ignore[arg-type]
            elif kind == "not_equal_to":
                result.not_equal_to(item.get("field_name"), item.get("value"))  # type: ignore[arg-type]
            elif kind == "any_of":
                result.any_of(item.get("field_name"), item.get("values"))  # type: ignore[arg-type]
            elif kind in RANGE_KINDS:
                result._range(kind, item.get("field_name"), item.get("value"))
            else:
                raise InvalidRequestError(f"unknown filter clause kind {kind!r}")
        return result

    def __bool__(self) -> bool:
        return bool(self._clauses)

    def __len__(self) -> int:
        return len(self._clauses)

    def __iter__(self) -> Iterator[FilterClause]:
        return iter(tuple(self._clauses))

    def _key(self) -> tuple[tuple[str, str, object, object], ...]:
        # Each value's type is part of the identity: True == 1 == 1.0 in Python, but not in
        # JSON, PostgreSQL or the stores, so a cache keyed on filters must keep them apart.
        return tuple(
            (c.kind, c.field_name, tuple(map(type, c.values)), c.values)
            if isinstance(c, AnyOf)
            else (c.kind, c.field_name, type(c.value), c.value)
            for c in self._clauses
        )

    # __eq__ and __hash__ come from ComparedByKey: equal filters are the same clauses, in
    # the same order, with values of the same types.

    def __repr__(self) -> str:
        parts = "".join(
            f".{c.kind}({c.field_name!r}, {list(c.values) if isinstance(c, AnyOf) else c.value!r})"
            for c in self._clauses
        )
        return f"TextSearchFilter(){parts}"


class SearchOptions(BaseModel):
    """Options for one search.

    Unknown fields are rejected so that a typo never passes silently. Validation errors
    are raised as `InvalidRequestError` (also a ``ValueError``).

    Attributes:
        top: How many results to return (at least 1; each connector has a maximum,
            50 unless it documents more).
        skip: How many results to skip first (for paging; at most ``MAX_SKIP``, 10,000).
        include_total_count: Ask the backend for the total number of matches.
        filter: A data-only filter; ``None`` for none.
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, arbitrary_types_allowed=True, defer_build=True
    )

    DEFAULT_TOP: ClassVar[int] = 5
    MAX_SKIP: ClassVar[int] = MAX_SKIP
    """The largest ``skip`` accepted (10,000: a thousand pages of ten results)."""

    top: int = Field(default=5, ge=1)
    skip: int = Field(default=0, ge=0, le=MAX_SKIP)
    include_total_count: bool = False
    filter: TextSearchFilter | None = None

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise InvalidRequestError(_describe_validation_error(exc)) from None

    @field_validator("top", "skip", mode="before")
    @classmethod
    def _no_bool_or_float(cls, value: Any) -> Any:
        # pydantic would accept True as 1 and 2.0 as 2; a search option should not.
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError("must be a whole number")
        return value

    def with_updates(self, **updates: Any) -> SearchOptions:
        """Return validated options with some fields replaced.

        Raises:
            InvalidRequestError: A field is unknown or a value is invalid.
        """
        if not updates:
            return self
        data: dict[str, Any] = {
            "top": self.top,
            "skip": self.skip,
            "include_total_count": self.include_total_count,
            "filter": self.filter,
        }
        data.update(updates)
        return SearchOptions(**data)


class SearchOptionArgs(TypedDict, total=False):
    """The fields of `SearchOptions` as keywords of a search method.

    ``search("q", top=3, filter=f)`` is short for ``search("q", SearchOptions(top=3,
    filter=f))``; with ``options`` as well, a keyword replaces that field. Every search method
    takes them as ``**kwargs: Unpack[SearchOptionArgs]``, so a type checker flags a misspelt
    name or a wrong type; at run time the same mistakes are an
    `InvalidRequestError`.
    """

    top: int
    """How many results to return (at least 1, at most the connector's ``max_top``)."""
    skip: int
    """How many results to skip first (for paging; at most ``SearchOptions.MAX_SKIP``)."""
    include_total_count: bool
    """Ask the backend for the total number of matches."""
    filter: TextSearchFilter | None
    """A data-only filter (AND-ed with a tool's preset filter); ``None`` for none."""


def result_window(options: SearchOptions) -> int:
    """``top + skip``, the results a backend must rank for one page; checked again here.

    Options built without validation (``model_construct``) could carry any ``skip``; every
    engine sizes its request through this, so none is ever asked for more than
    ``MAX_SKIP`` beyond the page.

    Raises:
        InvalidRequestError: ``skip`` or ``top`` is negative or ``skip`` is above
            ``MAX_SKIP``.
    """
    top, skip = options.top, options.skip
    if type(skip) is not int or not 0 <= skip <= MAX_SKIP:
        raise InvalidRequestError(f"skip must be a whole number from 0 to {MAX_SKIP}")
    if type(top) is not int or top < 1:
        raise InvalidRequestError("top must be a whole number of at least 1")
    return top + skip


def _describe_validation_error(exc: ValidationError) -> str:
    parts: list[str] = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "options"
        if err["type"] == "extra_forbidden":
            parts.append(
                f"unknown search option {loc!r} (known: top, skip, include_total_count, filter)"
            )
        else:
            parts.append(f"{loc}: {err['msg']}")
    return "invalid search options: " + "; ".join(parts)

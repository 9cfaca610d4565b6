"""Range, any_of and not_equal_to on every store, against a plain-Python oracle.

Each store's test module indexes :data:`DOCS` (every text holds the word ``alpha``, so one
query finds them all), runs each filter of :func:`filters` and compares what comes back, page
by page (several ``top``/``skip``), with what :func:`admits` says. The oracle is written here
from the documented rules, apart from the code under test:

* ``equal_to``: the same kind of value (a bool never equals a number; 1 == 1.0) and equal; a
  list equals nothing; ``None``: the field is missing or null.
* ``any_of``: ``equal_to`` of any value; ``not_equal_to``: not ``equal_to`` (a missing field
  matches).
* a range with a number compares numbers only (not bools); with a date, strings that are
  dates of the documented shape, as instants (no offset: UTC; a date alone: midnight UTC).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any

from textsearch import AnyOf, EqualTo, NotEqualTo, Range, TextSearchFilter

WORD = "alpha"

# Values chosen to break translations: quotes, backslashes, NUL, JSON-looking text, huge and
# tiny numbers, -0.0, 2**53 + 1 (not a float), bools beside 0 and 1, strings that look like
# numbers or nearly like dates, dates with offsets that move them across a day.
_N = [
    1,
    0,
    -0.0,
    2.5,
    True,
    False,
    "3",
    2**63 - 1,
    -(2**63),
    2**53 + 1,
    float(2**53),
    1e308,
    -1e308,
    5e-324,
    None,
    ["1"],
    7,
    1.0,
]
_D = [
    "2024-01-01",
    "2024-01-01T00:00:00Z",
    "2023-12-31T23:30:00-01:00",  # 2024-01-01T00:30Z
    "2024-06-01T10:00:00+02:00",
    "2024-06-01 08:00",
    "2024-06-01T08:00:00.000001",
    "2024-02-29",
    "2023-02-29",  # no such day
    "2024-13-01",
    "２０２４-01-01",  # fullwidth digits are no ISO date
    "2024-01-01T10:00:00+24:00",
    " 2024-01-01",
    "2024-01-01\n",
    "20240101",
    "yesterday",
    "1999-12-31T23:59:59.999999Z",
    "0001-01-01",
    "9999-12-31T23:59:59Z",
    20240101,
    None,
    ["2024-01-01"],
    True,
]
_S = [
    "it's",
    'say "hi"',
    "back\\slash",
    "nul\x00byte",
    "%",
    "_",
    '"}, "s": "x',
    "1",
    "true",
    "",
    "ünïcode 中文",
    None,
    "a' OR '1'='1",
    "$and",
]
_B = [True, False, 1, 0, None, "true"]


def _doc(i: int) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for key, values in (("n", _N), ("d", _D), ("s", _S), ("b", _B)):
        value = values[i % len(values)]
        if (i // len(values)) % 3 != 2:  # a third of the documents lack each field
            meta[key] = value
    meta["k"] = i
    return {
        "id": f"doc{i:02d}",
        "title": f"Document {i}",
        "text": f"{WORD} " + " ".join(["beta"] * (i % 7 + 1)) + f" gamma{i}",
        "link": f"https://site{i % 3}.example.com/page{i}",
        "metadata": meta,
    }


DOCS: list[dict[str, Any]] = [_doc(i) for i in range(66)]


def filters(*, none_values: bool = True) -> list[tuple[str, TextSearchFilter]]:
    """The filters every store is checked with (``none_values``: the store compares with None)."""
    f = TextSearchFilter
    cases: list[tuple[str, TextSearchFilter]] = [
        ("gt-1", f().greater_than("n", 1)),
        ("gte-1", f().greater_than_or_equal("n", 1)),
        ("lt-0", f().less_than("n", 0)),
        ("lte-0", f().less_than_or_equal("n", 0)),
        ("gt-int-max", f().greater_than("n", 2**63 - 1)),
        ("gte-int-max", f().greater_than_or_equal("n", 2**63 - 1)),
        ("lt-int-min", f().less_than_or_equal("n", -(2**63))),
        ("gt-2^53", f().greater_than("n", 2**53)),
        ("gt-huge-float", f().greater_than("n", 1e300)),
        ("lt-neg-huge", f().less_than("n", -1e300)),
        ("between", f().greater_than("n", 0).less_than_or_equal("n", 7)),
        ("tiny", f().greater_than("n", 0.0).less_than("n", 1e-300)),
        ("date-gt", f().greater_than("d", "2024-01-01")),
        ("date-gte", f().greater_than_or_equal("d", "2024-01-01")),
        ("date-lt-offset", f().less_than("d", "2024-01-01T00:30:00Z")),
        ("date-lte-offset", f().less_than_or_equal("d", "2024-01-01T01:30+01:00")),
        (
            "date-june",
            f().greater_than_or_equal("d", "2024-06-01T08:00").less_than("d", "2024-07-01"),
        ),
        ("date-micro", f().greater_than("d", "2024-06-01T08:00:00Z")),
        ("date-ancient", f().less_than("d", "1000-01-01")),
        ("date-late", f().greater_than("d", "9999-01-01")),
        ("any-n", f().any_of("n", [1, 2.5, "3", True])),
        ("any-n-float", f().any_of("n", [1.0, 0])),
        ("any-s", f().any_of("s", ["it's", 'say "hi"', "back\\slash", "%"])),
        ("any-s-hostile", f().any_of("s", ['"}, "s": "x', "a' OR '1'='1", "$and", "_"])),
        ("any-b", f().any_of("b", [True])),
        ("any-b-int", f().any_of("b", [1])),
        ("any-k", f().any_of("k", list(range(0, 66, 5)))),
        ("ne-n", f().not_equal_to("n", 1)),
        ("ne-b-true", f().not_equal_to("b", True)),
        ("ne-b-one", f().not_equal_to("b", 1)),
        ("ne-s", f().not_equal_to("s", "it's")),
        ("ne-s-unicode", f().not_equal_to("s", "ünïcode 中文")),
        ("eq-b-true", f().equal_to("b", True)),
        ("eq-b-false", f().equal_to("b", False)),
        ("eq-b-one", f().equal_to("b", 1)),
        ("eq-b-zero", f().equal_to("b", 0)),
        ("mixed", f().greater_than("k", 10).not_equal_to("s", "1").any_of("b", [True, 0])),
        ("range-and-date", f().less_than("k", 40).greater_than_or_equal("d", "2024-01-01")),
        ("empty-range", f().greater_than("k", 50).less_than("k", 20)),
    ]
    if none_values:
        cases += [
            ("ne-none", f().not_equal_to("n", None)),
            ("eq-none", f().equal_to("s", None)),
        ]
    return cases


_SHAPE = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.][0-9]{1,6})?)?(Z|[+-][0-9]{2}:[0-9]{2})?)?",
    re.ASCII,
)


def as_instant(value: object) -> datetime | None:
    """The oracle's reading of a stored date: the documented shape, then Python's parser."""
    if not isinstance(value, str) or not _SHAPE.fullmatch(value):
        return None
    if value[-6:-5] in "+-" and len(value) > 16 and int(value[-5:-3]) > 14:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.astimezone(timezone.utc)
    except OverflowError:
        return None


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _equal(value: object, wanted: object) -> bool:
    if wanted is None:
        return value is None
    if value is None or isinstance(value, list):
        return False
    if isinstance(wanted, bool) or isinstance(value, bool):
        return type(value) is type(wanted) and value == wanted
    if _is_number(wanted):
        return _is_number(value) and value == wanted
    return isinstance(value, str) and value == wanted


def _compare(op: str, a: Any, b: Any) -> bool:
    return {">": a > b, ">=": a >= b, "<": a < b, "<=": a <= b}[op]


def admits(
    meta: dict[str, Any], search_filter: TextSearchFilter, *, none_is_missing: bool = False
) -> bool:
    """The oracle: does a document with ``meta`` pass every clause?"""
    for clause in search_filter.clauses:
        value = meta.get(clause.field_name)
        if isinstance(clause, EqualTo):
            ok = _equal(value, clause.value)
        elif isinstance(clause, NotEqualTo):
            ok = not _equal(value, clause.value)
        elif isinstance(clause, AnyOf):
            ok = any(_equal(value, v) for v in clause.values)
        elif isinstance(clause, Range):
            op = clause.operator
            if isinstance(clause.value, str):
                left, right = as_instant(value), as_instant(clause.value)
                ok = left is not None and right is not None and _compare(op, left, right)
            else:
                ok = _is_number(value) and _compare(op, value, clause.value)
        else:  # pragma: no cover
            raise AssertionError(clause)
        if not ok:
            return False
    return True


def expected_ids(
    search_filter: TextSearchFilter,
    docs: Iterable[dict[str, Any]] = DOCS,
    normalize: Callable[[dict[str, Any]], dict[str, Any]] = lambda m: m,
) -> set[str]:
    return {d["id"] for d in docs if admits(normalize(d["metadata"]), search_filter)}


def check_pages(
    run: Callable[[int, int], tuple[list[str], int | None]],
    expected: set[str],
    *,
    tops: tuple[int, ...] = (50, 7, 4),
) -> None:
    """Page through with each ``top``: no id twice, nothing outside ``expected``, all found.

    ``run(top, skip)`` returns the ids of one page and the total count (``None``: not known).
    """
    for top in tops:
        seen: list[str] = []
        skip = 0
        while True:
            page, total = run(top, skip)
            if total is not None:
                assert total == len(expected), (top, skip, total, len(expected))
            assert len(page) <= top
            seen += page
            if len(page) < top or skip > len(DOCS):
                break
            skip += top
        assert len(seen) == len(set(seen)), f"an id on two pages (top={top})"
        assert set(seen) == expected, (
            f"top={top}: extra {sorted(set(seen) - expected)}, "
            f"missing {sorted(expected - set(seen))}"
        )


def hostile_build_errors() -> list[Callable[[], Any]]:
    """Clauses refused when built (InvalidRequestError), before any store sees them."""
    f = TextSearchFilter
    nan, inf = float("nan"), float("inf")
    return [
        lambda: f().greater_than("n", nan),
        lambda: f().less_than("n", inf),
        lambda: f().less_than("n", -inf),
        lambda: f().greater_than("n", 2**63),
        lambda: f().greater_than("n", -(2**63) - 1),
        lambda: f().greater_than("n", 10**400),
        lambda: f().greater_than("n", True),
        lambda: f().greater_than("n", None),  # type: ignore[arg-type]
        lambda: f().greater_than("n", [1]),  # type: ignore[arg-type]
        lambda: f().greater_than("d", "yesterday"),
        lambda: f().greater_than("d", "2024-02-30"),
        lambda: f().greater_than("d", "２０２４-01-01"),
        lambda: f().greater_than("d", "2024-01-01\n"),
        lambda: f().greater_than("d", "2024-01-01T10:00:00+24:00"),
        lambda: f().greater_than("d", "20240101"),
        lambda: f().greater_than("d", "2024-01-01'; DROP TABLE x; --"),
        lambda: f().greater_than("d", "\x00"),
        lambda: f().any_of("s", []),
        lambda: f().any_of("s", "abc"),  # type: ignore[arg-type]
        lambda: f().any_of("s", [["nested"]]),
        lambda: f().any_of("s", [{"a": 1}]),
        lambda: f().any_of("s", [None]),
        lambda: f().any_of("s", list(range(257))),
        lambda: f().any_of("s", ["\ud800"]),
        lambda: f().not_equal_to("s", ["x"]),  # type: ignore[arg-type]
        lambda: f().greater_than("", 1),
        lambda: f().greater_than("a\x00b", 1),
    ]

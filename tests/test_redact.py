"""Redaction: every promise the docs make about keys in messages and logs, pinned.

Mutation testing found these branches unguarded: ``any`` vs ``all`` with two keys, the
traceback / ``stack_info`` / ``extra=`` scrubbing, longest-key-first masking, and the
empty, ``None`` and short keys. Keys are random per test run: the registry is process-wide.
"""

from __future__ import annotations

import io
import logging
import secrets

import pytest

from textsearch._http import _redact
from textsearch._http._redact import (
    MASK,
    MIN_SECRET_LENGTH,
    SecretFilter,
    has_secret,
    register_secret,
    scrub,
    scrub_exception,
)


def _key(prefix: str = "k") -> str:
    return f"{prefix}-{secrets.token_hex(12)}"


def _capture(name: str = "textsearch") -> tuple[logging.Logger, io.StringIO, logging.Handler]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger = logging.getLogger(name)
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    return logger, stream, handler


def test_any_registered_key_is_found_not_only_when_all_are() -> None:
    first, second = register_secret(_key("first")), register_secret(_key("second"))
    assert first and second
    assert has_secret(f"only the second: {second}")
    assert has_secret(f"only the first: {first}")
    assert not has_secret("neither")
    assert scrub(f"{first} and {second}") == f"{MASK} and {MASK}"


def test_a_key_containing_another_is_masked_whole() -> None:
    short = _key("inner")
    long = short + "-tail-of-the-longer-key"
    register_secret(short)
    register_secret(long)
    assert scrub(f"key={long};") == f"key={MASK};"  # not '***-tail-of-the-longer-key'
    assert scrub(f"key={short};") == f"key={MASK};"


@pytest.mark.parametrize("value", [None, "", "short", "x" * (MIN_SECRET_LENGTH - 1)])
def test_empty_none_and_short_keys_are_not_registered(value: str | None) -> None:
    assert register_secret(value) is None
    if value:
        assert scrub(f"say {value} twice {value}") == f"say {value} twice {value}"


def test_every_listed_logger_gets_the_filter() -> None:
    register_secret(_key())
    for name in _redact._LOGGERS:
        filters = logging.getLogger(name).filters
        assert any(isinstance(f, SecretFilter) for f in filters), name


def test_message_arguments_are_scrubbed() -> None:
    key = register_secret(_key("args"))
    logger, stream, handler = _capture()
    try:
        logger.warning("calling %s with %s", "https://api.example/x", key)
    finally:
        logger.removeHandler(handler)
    assert key not in stream.getvalue() and MASK in stream.getvalue()


def test_logger_exception_never_prints_the_key_in_its_traceback() -> None:
    key = register_secret(_key("trace"))
    logger, stream, handler = _capture()
    try:
        try:
            raise RuntimeError(f"upstream said: bad key {key}")
        except RuntimeError:
            logger.exception("search failed")
    finally:
        logger.removeHandler(handler)
    out = stream.getvalue()
    assert "Traceback" in out and "RuntimeError" in out
    assert key not in out and MASK in out


def test_stack_info_and_extra_fields_are_scrubbed() -> None:
    key = register_secret(_key("extra"))
    logger, stream, handler = _capture()
    handler.setFormatter(logging.Formatter("%(message)s url=%(url)s"))
    try:
        logger.warning("fetching", extra={"url": f"https://x.example/?token={key}"})
    finally:
        logger.removeHandler(handler)
    assert key not in stream.getvalue() and f"token={MASK}" in stream.getvalue()
    record = logging.LogRecord("textsearch", logging.INFO, __file__, 1, "m", (), None)
    record.stack_info = f"Stack (most recent call last):\n  uses {key}"
    assert SecretFilter().filter(record) is True
    assert key not in record.stack_info and MASK in record.stack_info


def test_a_record_without_a_key_is_left_alone() -> None:
    register_secret(_key())
    record = logging.LogRecord("textsearch", logging.INFO, __file__, 1, "plain %s", ("text",), None)
    assert SecretFilter().filter(record) is True
    assert (record.msg, record.args) == ("plain %s", ("text",))


def test_scrub_exception_keeps_the_type_and_drops_the_key() -> None:
    key = register_secret(_key("exc"))
    try:
        raise ValueError(f"bad {key}")
    except ValueError as exc:
        copy = scrub_exception(exc)
    assert type(copy) is ValueError and str(copy) == f"bad {MASK}"
    assert copy.__traceback__ is None and copy.__cause__ is None and copy.__context__ is None

    class Picky(Exception):
        def __init__(self, code: int, detail: str) -> None:
            super().__init__(code, detail)

    picky = scrub_exception(Picky(401, f"key {key} refused"))
    assert type(picky) is Exception and "Picky" in str(picky) and key not in str(picky)


def test_a_key_of_exactly_the_minimum_length_is_registered() -> None:
    key = secrets.token_hex(MIN_SECRET_LENGTH)[:MIN_SECRET_LENGTH]
    assert register_secret(key) == key
    assert scrub(f"[{key}]") == f"[{MASK}]"


def test_longest_first_even_when_the_longer_key_sorts_before_the_shorter() -> None:
    short = "zz-" + secrets.token_hex(8)
    long = "00-prefix-" + short  # sorts before the short key, and contains it
    register_secret(short)
    register_secret(long)
    assert scrub(f"key={long}") == f"key={MASK}"


def test_the_filter_is_installed_by_the_first_registration() -> None:
    for name in _redact._LOGGERS:
        logging.getLogger(name).removeFilter(_redact._FILTER)
    _redact._installed = False
    register_secret(_key("install"))
    assert all(_redact._FILTER in logging.getLogger(n).filters for n in _redact._LOGGERS)
    assert _redact._installed is True


def test_records_are_always_emitted_even_broken_ones() -> None:
    register_secret(_key())
    broken = logging.LogRecord("textsearch", logging.INFO, __file__, 1, "%d items", ("x",), None)
    assert SecretFilter().filter(broken) is True
    saved = _redact._secrets
    _redact._secrets = ()
    try:
        plain = logging.LogRecord("textsearch", logging.INFO, __file__, 1, "m", (), None)
        assert SecretFilter().filter(plain) is True
    finally:
        _redact._secrets = saved


def test_scrub_exception_checks_the_repr_too() -> None:
    key = register_secret(_key("repr"))

    class Quiet(Exception):
        """Its str shows only the message; its args (and so its repr) carry more."""

        def __init__(self, message: str) -> None:
            super().__init__(message, key)

        def __str__(self) -> str:
            return str(self.args[0])

    copy = scrub_exception(Quiet("refused"))
    assert key not in repr(copy) and key not in str(copy) and "refused" in str(copy)

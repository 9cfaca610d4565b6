"""One SDK tracer provider for the process (OpenTelemetry lets the global be set once)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

_EXPORTER = InMemorySpanExporter()
_ADDED: list[bool] = []


def _exporter() -> InMemorySpanExporter:
    # Set when first needed, not at collection: another test (the docs' tracing page) may
    # set the process's provider first; the exporter then joins that provider.
    if not _ADDED:
        current = trace.get_tracer_provider()
        if not isinstance(current, TracerProvider):
            trace.set_tracer_provider(TracerProvider())
            current = trace.get_tracer_provider()
        assert isinstance(current, TracerProvider)
        current.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        _ADDED.append(True)
    return _EXPORTER


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    monkeypatch.delenv("TEXTSEARCH_TRACE_CONTENT", raising=False)
    _exporter().clear()
    yield _EXPORTER
    _EXPORTER.clear()


def by_name(exporter: InMemorySpanExporter) -> dict[str, Any]:
    return {span.name: span for span in exporter.get_finished_spans()}

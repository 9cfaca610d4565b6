"""Test doubles for code that uses textsearch, and the contract kit for connectors.

`StaticTextSearch` is a real connector over an in-memory list: it honours options and
filters like the others, records every call, and can be told to fail, so that tests of your
own code need no network and no mocks::

    from textsearch.testing import StaticTextSearch

    search = StaticTextSearch([
        {"name": "Retry guide", "value": "Use backoff.", "link": "https://kb.example/retry",
         "metadata": {"tags": ["ops"]}},
    ])
    results = search.get_text_search_results_sync("backoff")
    assert search.calls[0].query == "backoff"

`check_connector` and `ConnectorContract` run the contract every connector keeps (the
protocol, options, filters, errors, results) against a connector of your own, loaded with
`CONTRACT_DOCUMENTS`; see the "Testing a connector" page. No test framework is imported
here: ``ConnectorContract``'s tests are plain methods pytest collects from your subclass.
"""

from __future__ import annotations

from textsearch.testing._contract import CHECKS, ConnectorFactory, Finding, check_connector
from textsearch.testing._corpus import (
    CONTRACT_DOCUMENTS,
    CONTRACT_QUERY,
    FilterProbe,
    filter_probes,
)
from textsearch.testing._static import RecordedCall, StaticDocument, StaticTextSearch
from textsearch.testing._suite import ConnectorContract

__all__ = [
    "CHECKS",
    "CONTRACT_DOCUMENTS",
    "CONTRACT_QUERY",
    "ConnectorContract",
    "ConnectorFactory",
    "FilterProbe",
    "Finding",
    "RecordedCall",
    "StaticDocument",
    "StaticTextSearch",
    "check_connector",
    "filter_probes",
]

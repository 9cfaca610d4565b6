"""Adapters that hand a search to an agent framework as its own kind of tool.

One module per framework, each behind its own extra; importing this package imports no
framework, and importing a module whose framework is missing raises an ``ImportError`` that
names the extra to install:

- ``textsearch.integrations.langchain``: ``as_langchain_tool``, ``TextSearchRetriever``
  (extra ``langchain``)
- ``textsearch.integrations.llama_index``: ``as_llama_index_tool``, ``TextSearchRetriever``
  (extra ``llama-index``)
- ``textsearch.integrations.pydantic_ai``: ``as_pydantic_ai_tool``, ``textsearch_toolset``
  (extra ``pydantic-ai``)
- ``textsearch.integrations.openai_agents``: ``as_openai_agents_tool`` (extra ``openai-agents``)
- ``textsearch.integrations.agent_framework``: ``as_agent_framework_tool``
  (extra ``agent-framework``)
- ``textsearch.integrations.semantic_kernel``: ``as_kernel_plugin`` (extra ``semantic-kernel``)

Every adapter takes a `SearchFunction`, a
`SearchPlugin` (all its functions) or a connector (through
`create_search_function` with its defaults), and keeps the function's
policy: the preset filter and fixed values stay hidden and cannot be changed by the model, and
an argument the schema does not declare is refused. A call the model got wrong becomes the
framework's own retry signal where it has one; a failed search becomes one short sentence for
the model, never a traceback or a key.
"""

from __future__ import annotations

__all__: list[str] = []

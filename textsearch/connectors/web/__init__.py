"""Live web search connectors: Bing v7 gateways, Bocha, Brave, Tavily, Exa and SearXNG.

Each provider module holds its wire models and a small spec over one shared connector class
(:mod:`._connector`: settings, key, address, one parser for every result shape, the send);
JSON reading and cleanup (:mod:`._base`) and the portable filter vocabulary
(:mod:`._portable`) live once beside it.
"""

"""Live web search connectors: Bing v7 gateways, Bocha, Brave, Tavily, Exa and SearXNG.

Each provider module holds its wire models and a small spec over one shared connector class
(`._connector`: settings, key, address, one parser for every result shape, the send);
JSON reading and cleanup (`._base`) and the portable filter vocabulary
(`._portable`) live once beside it.
"""

"""Live web search connectors: Bing v7 gateways, Bocha, Brave, Tavily, Exa and SearXNG.

Each provider module holds its wire models and its connector; what they share (the
connector base, JSON reading, the portable filter vocabulary) lives once in this package.
"""

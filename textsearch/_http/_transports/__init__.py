"""Transports of the HTTP engine: httpx (the default), aiohttp and urllib3 (the fast paths)."""

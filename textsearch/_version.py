"""The version of textsearch-sdk (kept apart so that any module can read it cheaply)."""

__version__ = "0.1.0"


def user_agent(client: str) -> str:
    """The ``User-Agent`` the SDK sends: its distribution, its version and the HTTP client."""
    return f"textsearch-sdk/{__version__} ({client})"

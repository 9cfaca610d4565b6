"""The version of textsearch-sdk (kept apart so that any module can read it cheaply)."""

__version__ = "0.1.0"

"""Python client of the Spyglass service (``spyglass serve``)."""

from .client import (
    Client,
    ConnectionError,
    InvalidQuery,
    NotFound,
    QueryError,
    SpyglassError,
    TooManyQueries,
    Unauthorized,
)

__all__ = [
    "Client",
    "ConnectionError",
    "InvalidQuery",
    "NotFound",
    "QueryError",
    "SpyglassError",
    "TooManyQueries",
    "Unauthorized",
]

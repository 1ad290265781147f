"""Python client of the Spyglass service (``spyglass serve``)."""

from .client import (
    Client,
    InvalidQuery,
    NotFound,
    QueryError,
    SpyglassError,
    TooManyQueries,
    Unauthorized,
)

__all__ = [
    "Client",
    "InvalidQuery",
    "NotFound",
    "QueryError",
    "SpyglassError",
    "TooManyQueries",
    "Unauthorized",
]

"""A small client of the Spyglass HTTP API (see docs/api.md), on the standard library only."""

import builtins
import http.client
import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, Iterator, List, NamedTuple, Optional


class SpyglassError(Exception):
    """An error answered by the service: its HTTP status, what is wrong and what to do."""

    def __init__(self, status: int, message: str, resolution: str = "", body: Any = None):
        super().__init__(f"{status}: {message}" + (f" ({resolution})" if resolution else ""))
        self.status = status
        self.message = message
        self.resolution = resolution
        self.body = body


class ConnectionError(SpyglassError, builtins.ConnectionError):  # noqa: A001 (spyglass.ConnectionError)
    """The service could not be reached, or the connection broke before its answer: it is not
    running, the URL is wrong, a network is down, or a timeout passed. ``status`` is 0, ``url`` the
    service's URL and ``reason`` the transport error (also the exception's ``__cause__``). It is an
    ``OSError`` too, as the built-in ``ConnectionError`` it extends."""

    def __init__(self, url: str, reason: BaseException):
        message = f"cannot reach the Spyglass service at {url}: {reason}"
        resolution = "check that the service runs (spyglass serve) and that the URL is right, then retry"
        SpyglassError.__init__(self, 0, message, resolution)
        self.args = (f"{message} ({resolution})",)  # no status: none was answered
        self.url = url
        self.reason = reason


_TRANSPORT_ERRORS = (OSError, http.client.HTTPException)


class Unauthorized(SpyglassError):
    """401: no token, or one the service does not know."""


class NotFound(SpyglassError):
    """404: no such query (or someone else's)."""


class QueryError(NamedTuple):
    """One error in a query: where it is (1-based) and how to fix it."""

    line: int
    column: int
    message: str
    fix: str


class InvalidQuery(SpyglassError):
    """422: the query is not valid BQL; ``errors`` says where and how to fix it."""

    def __init__(self, errors: List[QueryError], body: Any = None):
        first = errors[0] if errors else QueryError(1, 1, "invalid query", "")
        super().__init__(
            422,
            f"invalid query at line {first.line}, column {first.column}: {first.message}",
            first.fix,
            body,
        )
        self.errors = errors


class TooManyQueries(SpyglassError):
    """429: a limit is reached; retry after ``retry_after`` seconds. ``limit`` names it."""

    def __init__(self, message: str, resolution: str, retry_after: int, limit: str, body: Any):
        super().__init__(429, message, resolution, body)
        self.retry_after = retry_after
        self.limit = limit


def _error(status: int, text: str, headers) -> SpyglassError:
    try:
        body = json.loads(text) if text else {}
    except ValueError:
        body = {}
    if status == 422 and "errors" in body:
        return InvalidQuery(
            [
                QueryError(e.get("line", 1), e.get("column", 1), e.get("message", ""), e.get("fix", ""))
                for e in body["errors"]
            ],
            body,
        )
    err = body.get("error", {}) if isinstance(body, dict) else {}
    message = err.get("message", text or f"HTTP {status}")
    resolution = err.get("resolution", "")
    if status == 401:
        return Unauthorized(status, message, resolution, body)
    if status == 404:
        return NotFound(status, message, resolution, body)
    if status == 429:
        retry = headers.get("Retry-After") if headers is not None else None
        return TooManyQueries(
            message,
            resolution,
            int(retry) if retry and retry.isdigit() else int(err.get("retryAfterSeconds", 1)),
            err.get("limit", ""),
            body,
        )
    return SpyglassError(status, message, resolution, body)


class Client:
    """A client of one Spyglass service.

    ``url`` is where it listens (``http://127.0.0.1:8080``); ``token`` one of its tokens, if it
    has any. Results are dicts, exactly the JSON objects ``spyglass query --format json`` prints.
    """

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 60.0):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # -- plumbing

    def _request(self, method: str, path: str, body: Any = None, headers=None):
        data = None
        h = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            h["Content-Type"] = "application/json"
        if self.token:
            h["Authorization"] = f"Bearer {self.token}"
        h.update(headers or {})
        return urllib.request.Request(self.url + path, data=data, method=method, headers=h)

    def _open(self, req, timeout: Optional[float] = None):
        try:
            return urllib.request.urlopen(req, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as e:
            try:
                text = e.read().decode("utf-8", "replace")
            except _TRANSPORT_ERRORS:
                text = ""
            raise _error(e.code, text, e.headers) from None
        except _TRANSPORT_ERRORS as e:  # URLError is an OSError
            raise ConnectionError(self.url, getattr(e, "reason", e)) from e

    def _json(self, method: str, path: str, body: Any = None, timeout: Optional[float] = None):
        with self._open(self._request(method, path, body), timeout) as r:
            try:
                text = r.read().decode("utf-8")
            except _TRANSPORT_ERRORS as e:
                raise ConnectionError(self.url, e) from e
            return json.loads(text) if text else None

    # -- the API

    def submit(self, bql: str, detached: bool = False) -> str:
        """Starts a query; returns its id. Without ``detached`` it ends when no client reads it."""
        return self._json("POST", "/api/queries", {"query": bql, "detached": detached})["id"]

    def results(self, query_id: str, last_event_id: Optional[int] = None) -> Iterator[Dict]:
        """Yields a query's results as they arrive, to its final one; resumes after a dropped
        connection from the last result received."""
        last = last_event_id
        while True:
            headers = {"Accept": "text/event-stream"}
            if last is not None:
                headers["Last-Event-ID"] = str(last)
            req = self._request("GET", f"/api/queries/{urllib.parse.quote(query_id)}/results",
                                headers=headers)
            resp = self._open(req)
            if resp.status == 204:  # nothing after the last one: the query has ended
                return
            ended = False
            try:
                for event, event_id, data in _events(resp):
                    if event == "result":
                        if event_id is not None:
                            last = int(event_id)
                        result = json.loads(data)
                        yield result
                        if result.get("meta", {}).get("final"):
                            ended = True
                            return
                    elif event == "error":
                        err = json.loads(data).get("error", {})
                        raise SpyglassError(200, err.get("message", data), err.get("resolution", ""))
            except SpyglassError:
                raise
            except _TRANSPORT_ERRORS:
                if ended:
                    return
                continue  # the connection dropped: resume after the last result
            finally:
                resp.close()
            return  # the stream ended

    def query(self, bql: str) -> Iterator[Dict]:
        """Submits a query and yields its results as they stream, to the final one. Leaving the
        loop early stops the query."""
        query_id = self.submit(bql)
        final = False
        try:
            for result in self.results(query_id):
                final = bool(result.get("meta", {}).get("final"))
                yield result
        finally:
            if not final:
                try:
                    self.kill(query_id)
                except SpyglassError:
                    pass

    def run(self, bql: str, timeout: Optional[float] = None) -> List[Dict]:
        """Runs a query to its end and returns all its results."""
        return self._json("POST", "/api/query", {"query": bql}, timeout=timeout or 24 * 3600)

    def validate(self, bql: str) -> Dict:
        """Checks a query: ``{"valid": True, "canonical": ..., "explain": ...}``; raises
        ``InvalidQuery`` when it is not valid."""
        return self._json("POST", "/api/validate", {"query": bql})

    def kill(self, query_id: str) -> None:
        """Ends a query now; its streams get its final result."""
        with self._open(self._request("DELETE", f"/api/queries/{urllib.parse.quote(query_id)}")):
            pass

    def get(self, query_id: str) -> Dict:
        """A query's state, progress and last result."""
        return self._json("GET", f"/api/queries/{urllib.parse.quote(query_id)}")

    def queries(self) -> List[Dict]:
        """The caller's queries (everyone's for an admin)."""
        return self._json("GET", "/api/queries")["queries"]


def _events(resp):
    """Parses Server-Sent Events: yields (event, id, data) for each; comments are skipped."""
    event, event_id, data = None, None, []
    while True:
        raw = resp.readline()
        if not raw:
            return
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data or event:
                yield event or "message", event_id, "\n".join(data)
            event, event_id, data = None, None, []
        elif line.startswith(":"):
            continue
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "event":
                event = value
            elif name == "id":
                event_id = value
            elif name == "data":
                data.append(value)

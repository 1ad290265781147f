import socket
import threading

import pytest

import spyglass
from spyglass import (
    Client,
    InvalidQuery,
    NotFound,
    SpyglassError,
    TooManyQueries,
    Unauthorized,
)

WINDOWED = "SELECT COUNT(*) AS n FROM STREAM(1500, TIME) WINDOWING TUMBLING(500, TIME)"


@pytest.fixture
def alice(server):
    return Client(server, token="alice-token-0123456")


def test_query_yields_results_as_they_stream(alice):
    seen = []
    for result in alice.query(WINDOWED):
        seen.append(result)
        if len(seen) == 1:
            # the first window arrives before the query is over
            assert result["meta"]["final"] is False
    assert len(seen) >= 2
    assert seen[-1]["meta"]["final"] is True
    assert [r["meta"]["window"]["number"] for r in seen] == list(range(1, len(seen) + 1))
    assert all(r["records"][0]["n"] > 0 for r in seen)


def test_run_returns_every_result(alice):
    results = alice.run("SELECT COUNT(*) AS n FROM STREAM(600, TIME) WINDOWING TUMBLING(300, TIME)")
    assert len(results) >= 2
    assert results[-1]["meta"]["final"] is True


def test_validate_and_invalid_queries(alice):
    v = alice.validate("select count(*) from stream(10s, time)")
    assert v["valid"] is True
    assert v["canonical"].startswith("SELECT COUNT(*)")
    with pytest.raises(InvalidQuery) as e:
        alice.validate("SELECT FOO(x) FROM STREAM()")
    assert e.value.status == 422
    assert (e.value.errors[0].line, e.value.errors[0].column) == (1, 8)
    assert e.value.errors[0].fix
    with pytest.raises(InvalidQuery):
        next(alice.query("SELECT * FROM"))


def test_kill_ends_a_query_with_its_final_result(alice):
    qid = alice.submit("SELECT COUNT(*) AS n FROM STREAM(MAX, TIME)", detached=True)
    alice.kill(qid)
    results = list(alice.results(qid))
    assert results[-1]["meta"]["final"] is True
    assert alice.get(qid)["state"] == "stopped"
    with pytest.raises(NotFound):
        alice.kill("no-such-query")


def test_tokens(server):
    with pytest.raises(Unauthorized) as e:
        Client(server).queries()
    assert e.value.status == 401
    with pytest.raises(Unauthorized):
        Client(server, token="wrong").submit(WINDOWED)
    # bob does not see alice's queries
    qid = Client(server, token="alice-token-0123456").submit("SELECT COUNT(*) FROM STREAM(5s, TIME)", detached=True)
    with pytest.raises(NotFound):
        Client(server, token="bob-token-012345678").get(qid)
    Client(server, token="alice-token-0123456").kill(qid)


def test_too_many_queries(server):
    bob = Client(server, token="bob-token-012345678")
    ids = [bob.submit("SELECT COUNT(*) FROM STREAM(MAX, TIME)", detached=True) for _ in range(2)]
    try:
        with pytest.raises(TooManyQueries) as e:
            bob.submit("SELECT COUNT(*) FROM STREAM(MAX, TIME)")
        assert e.value.status == 429
        assert e.value.limit == "max-queries-per-user"
        assert 1 <= e.value.retry_after <= 60
        assert isinstance(e.value, SpyglassError)
    finally:
        for qid in ids:
            bob.kill(qid)


def _free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_a_service_that_is_not_there_is_a_typed_connection_error():
    url = f"http://127.0.0.1:{_free_port()}"
    c = Client(url, token="alice-token", timeout=5)
    calls = [
        lambda: c.run("SELECT COUNT(*) FROM STREAM(1s, TIME)"),
        lambda: c.submit("SELECT COUNT(*) FROM STREAM(1s, TIME)"),
        lambda: c.validate("SELECT COUNT(*) FROM STREAM(1s, TIME)"),
        lambda: c.queries(),
        lambda: c.kill("q1"),
        lambda: list(c.results("q1")),
        lambda: list(c.query("SELECT COUNT(*) FROM STREAM(1s, TIME)")),
    ]
    for call in calls:
        with pytest.raises(spyglass.ConnectionError) as e:
            call()
        assert isinstance(e.value, SpyglassError)
        assert isinstance(e.value, OSError)  # as the built-in ConnectionError it extends
        assert e.value.status == 0
        assert e.value.url == url
        assert isinstance(e.value.reason, ConnectionRefusedError)
        assert url in str(e.value) and "spyglass serve" in str(e.value)


def test_a_connection_cut_before_the_answer_is_a_typed_connection_error():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    port = listener.getsockname()[1]

    def cut():
        for _ in range(2):
            conn, _ = listener.accept()
            conn.recv(65536)
            conn.close()  # no answer at all

    t = threading.Thread(target=cut, daemon=True)
    t.start()
    try:
        c = Client(f"http://127.0.0.1:{port}", timeout=5)
        for call in (lambda: c.queries(), lambda: c.submit("SELECT COUNT(*) FROM STREAM(1s, TIME)")):
            with pytest.raises(spyglass.ConnectionError) as e:
                call()
            assert isinstance(e.value, SpyglassError)
    finally:
        t.join(5)
        listener.close()

"""Starts a real ``spyglass serve`` (the shaded jar named by SPYGLASS_JAR) for the tests."""

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest

TOKENS = "alice-token-0123456 alice\nbob-token-012345678 bob\n"


@pytest.fixture(scope="session")
def server():
    jar = os.environ.get("SPYGLASS_JAR")
    if not jar or not os.path.exists(jar):
        pytest.fail("SPYGLASS_JAR must name the built spyglass.jar (mvn package -pl spyglass-cli -am)")
    java = os.path.join(os.environ["JAVA_HOME"], "bin", "java") if "JAVA_HOME" in os.environ else "java"
    work = tempfile.mkdtemp(prefix="spyglass-pytest-")
    tokens = os.path.join(work, "tokens.txt")
    with open(tokens, "w") as f:
        f.write(TOKENS)
    cmd = [
        java, "-XX:TieredStopAtLevel=1", "-Xmx512m",
        "-jar", jar, "serve",
        "--source", "gen?rate=2000&size=300",
        "--port", "0",
        "--data", os.path.join(work, "data"),
        "--tokens", tokens,
        "--max-queries-per-user", "2",
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    url = None
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if line.startswith("Spyglass is serving "):
            url = line[len("Spyglass is serving "):].strip()
            break
    if url is None:
        proc.kill()
        pytest.fail("the server did not start:\n" + "".join(lines))
    # keep draining its output so that it never blocks on a full pipe
    threading.Thread(target=lambda: [lines.append(l) for l in proc.stdout], daemon=True).start()
    yield url
    proc.send_signal(signal.SIGTERM)
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    shutil.rmtree(work, ignore_errors=True)
    assert code == 0, "".join(lines)

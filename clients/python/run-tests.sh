#!/usr/bin/env bash
# Tests the Python client against a real server: makes a virtual environment under TARGET,
# installs pytest and this package into it from PyPI, and runs the tests with SPYGLASS_JAR.
# Usage: clients/python/run-tests.sh TARGET_DIR SPYGLASS_JAR   (the Maven build of spyglass-cli
# runs it in integration-test)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="${1:?usage: run-tests.sh TARGET_DIR SPYGLASS_JAR}"
jar="${2:?usage: run-tests.sh TARGET_DIR SPYGLASS_JAR}"
python="${PYTHON:-python3}"
venv="$target/python-venv"

if ! command -v "$python" >/dev/null 2>&1; then
  echo "python client tests: $python is missing; install Python 3.8 or newer (apt-get install python3 python3-venv)" >&2
  exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
  if ! "$python" -m venv "$venv" >/dev/null 2>&1; then
    echo "python client tests: '$python -m venv' failed; install the venv module (apt-get install python3-venv)" >&2
    exit 1
  fi
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)
# pytest and the build backend come from PyPI once per environment; the package is built locally
if ! "${pip[@]}" install "pytest>=7" "hatchling>=1.18"; then
  echo "python client tests: pip could not install pytest and hatchling from PyPI into $venv" >&2
  exit 1
fi
if ! "${pip[@]}" install --no-build-isolation --no-deps --force-reinstall "$here"; then
  echo "python client tests: pip could not install the client package $here into $venv" >&2
  exit 1
fi
cd "$target"
SPYGLASS_JAR="$jar" PYTHONDONTWRITEBYTECODE=1 exec "$venv/bin/python" -m pytest -p no:cacheprovider -q "$here/tests"

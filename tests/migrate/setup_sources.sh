#!/usr/bin/env bash
# Build (once, cached) the venvs and the source databases the migrate tests read.
#
#   bash tests/migrate/setup_sources.sh [TEST_PYTHON]
#
# TEST_PYTHON (default: python3) is the interpreter that runs the tests; it must have cognee 1.6.5
# (which brings ladybug 0.19), and writes the Cognee-on-LadybugDB source. The other sources need
# engines that cannot live next to it, so they are written from private venvs:
#   venvs/graphiti-kuzu   graphiti-core 0.31.2 + kuzu 0.11.3  -> Graphiti-on-Kuzu file
#   venvs/cognee-1.0.3    cognee 1.0.3 (kuzu 0.11.3)          -> Cognee-on-kuzu file (1.0.3 schema)
#   engines/kuzu-0.10.1   kuzu 0.10.1 (pip --target)           -> a kuzu 0.10 database directory
#   readers/ladybug-0.22.0 ladybug 0.22.0 + pyarrow            -> Cognee's graph upgraded to LadybugDB 0.22
#   readers/kuzu-0.11.3   kuzu 0.11.3 + pyarrow                -> the reader venv anatid-migrate's
#                                                                 --bootstrap-reader would create
# Cache root: $ANATID_MIGRATE_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/anatid-migrate. Sources are
# keyed by a hash of the generator scripts, so editing a generator rebuilds them. Needs PyPI the
# first time (about 2-3 minutes); a warm cache takes about 2 seconds. Prints the sources dir.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TEST_PY=${1:-python3}
# It runs again after a cd below: a relative path (.venv/bin/python) is made absolute first.
case "$TEST_PY" in */*) TEST_PY=$(cd "$(dirname "$TEST_PY")" && pwd)/$(basename "$TEST_PY") ;; esac
CACHE=${ANATID_MIGRATE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/anatid-migrate}
# The base interpreter for the private venvs: the test interpreter's own base (python 3.10-3.13).
BASE_PY=$("$TEST_PY" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')
mkdir -p "$CACHE/venvs" "$CACHE/readers" "$CACHE/sources"
# Parallel test workers (pytest -n) may call this at once: one builds, the others wait for it.
exec 9>"$CACHE/.setup.lock"
flock 9

# make_venv DIR CHECK_IMPORT PACKAGE...: create DIR unless CHECK_IMPORT already works there.
make_venv() {
  local dir=$1 check=$2
  shift 2
  if [ -x "$dir/bin/python" ] && "$dir/bin/python" -I -c "$check" >/dev/null 2>&1; then
    return 0
  fi
  echo "setup_sources: creating $dir ($*)" >&2
  rm -rf "$dir"
  "$BASE_PY" -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "$@" >&2
  "$dir/bin/python" -I -c "$check" >/dev/null
}

make_venv "$CACHE/venvs/graphiti-kuzu" \
  "import kuzu, graphiti_core, pyarrow, httpx; assert kuzu.__version__ == '0.11.3'" \
  graphiti-core==0.31.2 kuzu==0.11.3 httpx pyarrow
make_venv "$CACHE/venvs/cognee-1.0.3" \
  "import importlib.metadata as m, kuzu, pyarrow; assert m.version('cognee') == '1.0.3'; assert kuzu.__version__ == '0.11.3'" \
  cognee==1.0.3 kuzu==0.11.3 pyarrow
make_venv "$CACHE/readers/kuzu-0.11.3" \
  "import kuzu, pyarrow; assert kuzu.__version__ == '0.11.3'" \
  kuzu==0.11.3 pyarrow

make_venv "$CACHE/readers/ladybug-0.22.0" \
  "import ladybug, pyarrow; assert ladybug.__version__ == '0.22.0'" \
  ladybug==0.22.0 pyarrow

# kuzu 0.10.1 only to write a database *directory* (the pre-0.11 layout we must refuse clearly).
if [ ! -d "$CACHE/engines/kuzu-0.10.1/kuzu" ]; then
  echo "setup_sources: installing kuzu 0.10.1 into $CACHE/engines" >&2
  rm -rf "$CACHE/engines/kuzu-0.10.1"
  "$BASE_PY" -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$CACHE/engines/kuzu-0.10.1" kuzu==0.10.1 >&2
fi

# A user's upgrade of Cognee's LadybugDB 0.19 file to LadybugDB 0.22 (a newer storage version
# than cognee 1.6.5's ladybug can open): EXPORT with 0.22 (it reads 0.19 files), IMPORT anew.
UPGRADE_TO_LADYBUG_0_22='
import sys, tempfile, os, ladybug as lb
out = os.path.join(tempfile.mkdtemp(), "export")
lb.Connection(lb.Database(sys.argv[1], read_only=True)).execute(f"EXPORT DATABASE {out!r}")
lb.Connection(lb.Database(sys.argv[2])).execute(f"IMPORT DATABASE {out!r}")
'

KEY=$(cat "$HERE"/sources/*.py "$HERE/setup_sources.sh" | sha1sum | cut -c1-12)
OUT="$CACHE/sources/$KEY"
if [ ! -f "$OUT/done" ]; then
  rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp"
  echo "setup_sources: generating sources in $OUT" >&2
  (cd "$OUT.tmp" &&
    "$CACHE/venvs/graphiti-kuzu/bin/python" -W ignore "$HERE/sources/make_graphiti_kuzu.py" \
      graphiti-kuzu.kz graphiti-kuzu.json >&2 &&
    "$CACHE/venvs/cognee-1.0.3/bin/python" -W ignore "$HERE/sources/make_cognee_graph.py" \
      cognee-kuzu.kz cognee-kuzu.json >/dev/null 2>gen-cognee-kuzu.log &&
    "$TEST_PY" -W ignore "$HERE/sources/make_cognee_graph.py" \
      cognee-ladybug.lbug cognee-ladybug.json >/dev/null 2>gen-cognee-ladybug.log &&
    "$CACHE/readers/ladybug-0.22.0/bin/python" -I -c "$UPGRADE_TO_LADYBUG_0_22" \
      cognee-ladybug.lbug cognee-ladybug-0.22.lbug &&
    PYTHONPATH="$CACHE/engines/kuzu-0.10.1" "$BASE_PY" -c "import kuzu; c = kuzu.Connection(kuzu.Database('kuzu-0.10-dir')); c.execute('CREATE NODE TABLE Entity(uuid STRING PRIMARY KEY)')") || {
    echo "setup_sources: generation failed; logs in $OUT.tmp" >&2
    exit 1
  }
  touch "$OUT.tmp/done"
  rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
  # Sources from older generator versions are never read again.
  find "$CACHE/sources" -mindepth 1 -maxdepth 1 ! -name "$KEY" -exec rm -rf {} +
fi
echo "$OUT"

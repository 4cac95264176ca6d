#!/usr/bin/env bash
# Re-measure the storage-version table of compat/anatid_migrate/formats.py: install each engine
# release into its own folder (pip --target, no venv), write a one-table database with it, and
# print the 4-byte magic and the little-endian uint64 at bytes 4..12. Needs PyPI; not run by CI.
#
#   bash tests/migrate/measure_storage_codes.sh [PYTHON]
set -euo pipefail
PY=${1:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for spec in kuzu==0.10.1 kuzu==0.11.3 \
  ladybug==0.15.3 ladybug==0.15.4 ladybug==0.16.0 ladybug==0.16.1 ladybug==0.17.0 ladybug==0.17.1 \
  ladybug==0.18.0 ladybug==0.18.3 ladybug==0.19.0 ladybug==0.19.1 ladybug==0.20.0 ladybug==0.20.4 \
  ladybug==0.21.0 ladybug==0.21.2 ladybug==0.22.0; do
  pkg=${spec%%==*}
  dir="$WORK/$spec"
  "$PY" -m pip install --quiet --disable-pip-version-check --no-deps --target "$dir" "$spec" &>/dev/null
  PYTHONPATH="$dir" "$PY" -c "
import os, struct, sys, $pkg as m
path = os.path.join(sys.argv[1], 'db')
conn = m.Connection(m.Database(path))
conn.execute('CREATE NODE TABLE T(id STRING PRIMARY KEY)')
del conn
head = path if os.path.isfile(path) else os.path.join(path, 'catalog.kz')
data = open(head, 'rb').read(12)
layout = 'file' if os.path.isfile(path) else 'directory'
print(f'{sys.argv[2]:<18} {data[:4].decode()} {struct.unpack(\"<Q\", data[4:12])[0]:>3}  {layout}')
" "$dir" "$spec"
done

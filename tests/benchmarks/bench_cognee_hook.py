"""What the Cognee import hook (``anatid_cognee_hook.pth``) costs at interpreter start-up.

Three measurements, each hook on against hook off (``ANATID_COGNEE_HOOK=0``, which makes the
``.pth`` line skip even importing the hook module), in the same run, interleaved so load drift
hits both sides alike:

1. ``python -c pass``: wall time of a whole interpreter that never imports Cognee;
2. ``python -X importtime -c pass``: which of our modules start-up imports (expected: none;
   the ``.pth`` line only builds a finder, ``anatid_cognee_hook`` is imported with Cognee);
3. the .pth line alone, compiled and run in-process (µs), as site.py does at start-up;
4. ``python -c "import cognee"``: what registering anatid adds when Cognee *is* imported
   (the hook then imports ``anatid_cognee``, ``anatid_core``, duckdb, numpy, pyarrow).

Usage: ``python tests/benchmarks/bench_cognee_hook.py [--runs 40] [--cognee-runs 5]``
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import provenance  # noqa: E402

_ENV_OFF = {"ANATID_COGNEE_HOOK": "0"}
_QUIET = {"TELEMETRY_DISABLED": "1", "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LOG_LEVEL": "ERROR"}


def _run(code: str, extra: dict[str, str], *flags: str) -> tuple[float, str]:
    env = {**os.environ, **_QUIET, **extra}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *flags, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return (time.perf_counter() - start) * 1000, done.stderr


def _p50_p95(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return samples[len(samples) // 2], samples[min(len(samples) - 1, int(len(samples) * 0.95))]


def _interleaved(code: str, runs: int) -> tuple[list[float], list[float]]:
    _run(code, {}), _run(code, _ENV_OFF)  # warm the OS file cache and the .pyc files
    on, off = [], []
    for _ in range(runs):
        on.append(_run(code, {})[0])
        off.append(_run(code, _ENV_OFF)[0])
    return on, off


def _our_startup_imports() -> list[str]:
    stderr = _run("pass", {}, "-X", "importtime")[1]
    names = re.findall(r"^import time:\s+\d+\s+\|\s+\d+\s+\|\s+(\S+)$", stderr, re.M)
    return [n for n in names if n.split(".")[0].startswith(("anatid", "cognee", "duckdb"))]


def _pth_line_us(repeat: int = 2000) -> float:
    """In-process cost of what site.py does with the .pth line: compile it, run it (µs)."""
    pth = Path(__file__).resolve().parents[2] / "drivers" / "anatid_cognee_hook.pth"
    (line,) = [x for x in pth.read_text().splitlines() if x.startswith("import ")]
    saved = list(sys.meta_path)
    start = time.perf_counter()
    for _ in range(repeat):
        sys.meta_path[:] = saved
        exec(compile(line, str(pth), "exec"), {})
    elapsed = time.perf_counter() - start
    sys.meta_path[:] = saved
    return elapsed / repeat * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--cognee-runs", type=int, default=5)
    args = parser.parse_args()

    print("provenance:", provenance())
    on, off = _interleaved("pass", args.runs)
    (on50, on95), (off50, off95) = _p50_p95(on), _p50_p95(off)
    print(f"| python -c pass, hook on  | p50 {on50:.1f} ms | p95 {on95:.1f} ms |")
    print(f"| python -c pass, hook off | p50 {off50:.1f} ms | p95 {off95:.1f} ms |")
    print(f"| difference of p50        | {on50 - off50:+.1f} ms |")

    print(f"| compile + run the .pth line in-process | {_pth_line_us():.0f} µs |")
    print(f"| modules of ours imported at start-up (-X importtime) | {_our_startup_imports()} |")

    on, off = _interleaved("import cognee", args.cognee_runs)
    (on50, _), (off50, _) = _p50_p95(on), _p50_p95(off)
    print(f"| python -c 'import cognee', hook on (registers anatid) | p50 {on50:.0f} ms |")
    print(f"| python -c 'import cognee', hook off                   | p50 {off50:.0f} ms |")


if __name__ == "__main__":
    main()

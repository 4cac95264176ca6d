"""What a command imports: the set of modules loaded when it exits, measured in a fresh process.

Start-up cost is asserted as modules, never as time (issue 44: ``anatid-mcp --help`` took 7.6 s
importing Graphiti, the MCP SDK and the model clients). The child runs the command's module as
``__main__`` and prints ``sorted(sys.modules)`` as one JSON line on stderr at exit, however the
command ends (``--help`` exits through ``SystemExit``).
"""

from __future__ import annotations

import json
import subprocess
import sys

_WRAPPER = """
import atexit, json, runpy, sys
atexit.register(lambda: sys.__stderr__.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
module = sys.argv[1]
sys.argv = [module, *sys.argv[2:]]
runpy.run_module(module, run_name="__main__", alter_sys=True)
"""


def loaded_modules(module: str, *args: str, timeout: float = 120) -> set[str]:
    """The modules loaded by ``python -m MODULE ARGS`` by the time it exits."""
    proc = subprocess.run(
        [sys.executable, "-c", _WRAPPER, module, *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    lines = [line for line in proc.stderr.splitlines() if line.startswith("MODULES ")]
    assert lines, f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    return set(json.loads(lines[-1][len("MODULES ") :]))


def tops(modules: set[str]) -> set[str]:
    """The top-level packages among ``modules``."""
    return {m.split(".")[0] for m in modules}

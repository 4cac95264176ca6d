"""What the two "killed export, then rerun" tests share: a child process that runs an export
and stalls once it has written a few pages, and killing it there with SIGKILL.

The child is ``python -c CHILD`` with argv ``FILE URL MARKER HISTORY``: it imports ``setup``
(the host's offline environment and the page-size module), shrinks the pages so that the memory
takes several, and calls ``call`` with a progress hook that writes MARKER after the fourth page
and then sleeps until it is killed.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

_CHILD = """
import sys, time
from pathlib import Path
{setup}

class StallMidExport:
    def __init__(self): self.seen = 0
    def phase(self, name, total): pass
    def advance(self, n):
        self.seen += 1
        if self.seen == 4:
            Path(sys.argv[3]).write_text("exporting")
            time.sleep(600)
    def close(self): pass

{pages}.PAGE = 3
{call}(sys.argv[1], sys.argv[2], history_dir=sys.argv[4], progress=StallMidExport())
"""


def kill_mid_export(
    setup: str, pages: str, call: str, args: tuple[Path, str, Path, Path], *, repo: Path,
    timeout: float,
) -> None:  # fmt: skip
    """Run the export child and SIGKILL it once it has written a few pages (``timeout``: how
    long it may take to get there)."""
    code = _CHILD.format(setup=textwrap.dedent(setup).strip(), pages=pages, call=call)
    marker = args[2]
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)], cwd=repo, env=os.environ.copy()
    )
    try:
        deadline = time.monotonic() + timeout
        while not marker.exists():
            assert proc.poll() is None, "the export ended before it could be interrupted"
            assert time.monotonic() < deadline, "the export never started writing"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)

"""Every anatid file is closed when the process ends: at a normal exit and on SIGTERM (issue 12).

A normal interpreter exit (a script, ``cognee-cli``, Ctrl-C, whose ``KeyboardInterrupt`` unwinds
the stack) runs ``atexit``, and :func:`arm` registers the registry's ``close_all`` there.

SIGTERM does not: at its default disposition the kernel ends the process on the spot. Servers
built on uvicorn catch SIGTERM, shut down, then put the handler back that was there when they
started and raise the signal again "for the expected behaviour", which at the default is that
same instant death. Cognee's own API server evicts its engine caches on the way (its lifespan
shutdown), which closes the files; ``cognee-mcp --transport http``/``sse`` and any other server
that embeds Cognee do not, and left every file open with its WAL (data intact, but not closed).

So :func:`arm`, when SIGTERM is at its default, installs a handler that closes every anatid file
of this process, then restores the default and raises the signal again: the process still dies
by SIGTERM (same exit status for its supervisor), with its files closed first. The handler is
installed when Cognee registers anatid (``import cognee``), before any server starts and saves
the handler it will restore later. It never replaces a handler someone else installed (a server
that is running, gunicorn's workers, the user's own): those take care of their own shutdown.

The files are closed in a worker thread, joined for at most ``SETTINGS["close_timeout"]``
seconds: the signal interrupts the main thread wherever it was, possibly holding a lock the
close needs, and a stuck close must not keep the process alive. A second SIGTERM during the
close ends the process at once (the default is restored first).
"""

from __future__ import annotations

import atexit
import signal
import threading
from collections.abc import Callable
from types import FrameType

#: How long the SIGTERM handler waits for the files to close before the process dies anyway
#: (Docker's ``stop`` waits 10 s before SIGKILL).
SETTINGS: dict[str, float] = {"close_timeout": 8.0}

_lock = threading.Lock()
_close_all: Callable[[], None] | None = None


def arm(close_all: Callable[[], None]) -> None:
    """Close the files with ``close_all`` at exit and on SIGTERM (see the module). Idempotent;
    installs the SIGTERM handler only from the main thread and only over the default."""
    global _close_all
    with _lock:
        if _close_all is None:
            _close_all = close_all
            atexit.register(close_all)
    install_sigterm_handler()


def install_sigterm_handler() -> bool:
    """Install the closing SIGTERM handler if SIGTERM is at its default; whether it is ours now."""
    if threading.current_thread() is not threading.main_thread():
        return False  # signal.signal works only in the main thread
    current = signal.getsignal(signal.SIGTERM)
    if current is _on_sigterm:
        return True
    if current is not signal.SIG_DFL:
        return False
    signal.signal(signal.SIGTERM, _on_sigterm)
    return True


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    signal.signal(signum, signal.SIG_DFL)  # a second SIGTERM ends the process at once
    close_all = _close_all
    if close_all is not None:
        closer = threading.Thread(target=close_all, name="anatid-close-on-sigterm", daemon=True)
        closer.start()
        closer.join(SETTINGS["close_timeout"])
    signal.raise_signal(signum)

"""Exit statuses of ``anatid``, and the error the command line raises for its own bad input.

:class:`CommandError` stays in the CLI rather than in :mod:`anatid_core.base.errors`: it carries an
exit status, a notion only a command line has, and it never crosses the library's surface (no driver
maps it, no library caller can meet it). The core's own errors (:class:`anatid_core.AnatidError`)
are mapped onto the same statuses in one place, :func:`anatid_core.cli.app.main`.
"""

from __future__ import annotations

#: Exit status when the command ran but found something wrong (check) or nothing (show, history).
EXIT_PROBLEMS = 1
#: Exit status for bad input, a missing or locked file (argparse also uses 2 for usage errors).
EXIT_ERROR = 2


class CommandError(Exception):
    """Bad input detected by the command line itself; the message is printed as one line."""

    def __init__(self, message: str, *, status: int = EXIT_ERROR) -> None:
        super().__init__(message)
        self.status = status

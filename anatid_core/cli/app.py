"""``anatid``'s entry point: parse, run the subcommand, and turn every failure into one line.

Every failure ends in one line on stderr and a non-zero exit status, never a traceback (pass
``--traceback`` to see one when reporting a bug). This is the one place where errors become exit
statuses.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from anatid_core import AnatidError, StoreCorrupt, StoreLocked

from .parser import PROG, build_parser
from .status import EXIT_ERROR, CommandError
from .terminal import one_line


def _fail(message: str, status: int) -> int:
    print(f"{PROG}: {one_line(message, 0)}", file=sys.stderr)
    return status


def _locked(exc: StoreLocked, path: str) -> str:
    # Other processes hand the file over between their operations; this one waited for a turn
    # longer than anatid_core.LEASE["timeout"] (a long transaction, or a hung process).
    return f"{path}: {exc}"


def _corrupt(exc: StoreCorrupt, args: argparse.Namespace) -> str:
    # A damaged file (not a file of another kind): anatid check says what cannot be read. The
    # check command reports damage itself, as a problem of the file (exit 1).
    if exc.damaged and args.command != "check":
        return f"{exc}; run anatid check {args.file} for a diagnosis"
    return str(exc)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    return _run(args)


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except CommandError as exc:
        return _fail(str(exc), exc.status)
    except StoreLocked as exc:
        return _fail(_locked(exc, args.file), EXIT_ERROR)
    except StoreCorrupt as exc:
        return _fail(_corrupt(exc, args), EXIT_ERROR)
    except AnatidError as exc:
        return _fail(str(exc), EXIT_ERROR)
    except BrokenPipeError:
        # `anatid export ... | head`: the reader left; that is not an error.
        sys.stderr.close()
        return 0
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        return _fail(f"{exc.filename or args.file}: {exc.strerror or exc}", EXIT_ERROR)
    except Exception as exc:  # a bug: still one line, unless asked for the traceback
        if args.traceback:
            raise
        return _fail(
            f"unexpected {type(exc).__name__}: {exc} (run with --traceback and report it)",
            EXIT_ERROR,
        )

"""The ``anatid`` command line: look inside an anatid store file as you would with ``sqlite3``.

A client of the core like any other: it imports only the public names of :mod:`anatid_core`, and
``import anatid_core`` does not import it. Bottom to top:

* :mod:`.terminal`: tables, times and JSON-ready values, as plain text (standard library only);
* :mod:`.status`: exit statuses and :class:`~.status.CommandError`, the command line's own input
  errors;
* :mod:`.files`: opening the store read-only (or a view of one instant) and writing an output file;
* :mod:`.export` and :mod:`.viewer` (with ``viewer.html``): JSON Lines / GraphML, and the HTML page;
* :mod:`.commands`, :mod:`.search`, :mod:`.records`: what each subcommand does;
* :mod:`.parser`: the subcommands, their options and help texts;
* :mod:`.app`: :func:`main`, where every failure becomes one line on stderr and an exit status.
"""

from .app import main
from .parser import build_parser

__all__ = ["build_parser", "main"]

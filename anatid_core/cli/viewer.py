"""``anatid view`` and its self-contained HTML page: the graph, with a slider over transaction
time.

Every version of every node and edge goes into the page with its transaction interval
``[tx_from, tx_to)``, so the page can show the graph as the store knew it at any instant without
asking the store again. The page is ``viewer.html`` and its script ``viewer.js`` next to this module
(a small force layout on SVG, a search, neighbourhoods and filters for a large graph), inlined
into one file: no library, no network. An edge is labelled by its ``name`` when it has one, else
by its ``rel``: a generic rule, so a host that files every fact under one relationship type and
names each one (Graphiti's ``RELATES_TO`` named ``WORKS_AT``) reads by its names.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime, timedelta, timezone
from importlib import resources
from typing import Any

from anatid_core import Edge, Node, Store, View

from .files import open_store, output, output_path
from .terminal import fmt_time

#: Characters of ``text`` kept per version in the page (the page is for looking, not for backup).
TEXT_CHARS = 400


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _micros(value: datetime | None) -> int | None:
    """Microseconds since the epoch, exactly (the page compares them with ``<``; a float
    timestamp could round two versions of one transaction apart)."""
    return None if value is None else (value - _EPOCH) // timedelta(microseconds=1)


def node_entry(n: Node) -> dict[str, Any]:
    return {
        "id": n.id,
        "v": n.version,
        "tf": _micros(n.tx_from),
        "tt": _micros(n.tx_to),
        "vf": fmt_time(n.valid_from, open_end=""),
        "vt": fmt_time(n.valid_to, open_end=""),
        "name": n.name,
        "labels": list(n.labels),
        "group": n.group,
        "text": n.text[:TEXT_CHARS],
    }


def edge_entry(e: Edge) -> dict[str, Any]:
    return {
        "id": e.id,
        "v": e.version,
        "tf": _micros(e.tx_from),
        "tt": _micros(e.tx_to),
        "vf": fmt_time(e.valid_from, open_end=""),
        "vt": fmt_time(e.valid_to, open_end=""),
        "src": e.src,
        "dst": e.dst,
        "rel": e.rel,
        "name": e.name,
        "group": e.group,
        "text": e.text[:TEXT_CHARS],
    }


def payload(reader: Store | View, *, title: str, groups: list[str] | None) -> dict[str, Any]:
    """The page's data: every node and edge version (times in microseconds since the epoch)."""
    nodes = [node_entry(n) for n in reader.versions("node", groups=groups) if isinstance(n, Node)]
    edges = [edge_entry(e) for e in reader.versions("edge", groups=groups) if isinstance(e, Edge)]
    return {
        "title": title,
        "generated": fmt_time(datetime.now(timezone.utc)),
        "nodes": nodes,
        "edges": edges,
    }


def render(data: dict[str, Any]) -> str:
    """The page: the template with its script and the data inlined (``<`` escaped in the data so
    no ``</script>`` inside a name can end the data block)."""
    here = resources.files("anatid_core.cli")
    template = here.joinpath("viewer.html").read_text(encoding="utf-8")
    script = here.joinpath("viewer.js").read_text(encoding="utf-8")
    template = template.replace("__ANATID_SCRIPT__", script)
    blob = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    title = data["title"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    # Fill the title into the template's parts around the data slot, so neither value can
    # inject the other's marker.
    before, after = template.split("__ANATID_DATA__")
    title_in = "__ANATID_TITLE__"
    return before.replace(title_in, title) + blob + after.replace(title_in, title)


#: Above this many nodes the HTML page still works but lays out slowly (seconds) and is crowded.
VIEW_COMFORTABLE_NODES = 5000


# --------------------------------------------------------------------------------------- view


def default_page_name(store_file: str) -> str:
    """``memory.duckdb`` -> ``memory.html`` in the current folder; never the store itself (a
    store named ``memory.html`` gets ``memory.html.html``)."""
    name = os.path.splitext(os.path.basename(store_file))[0] + ".html"
    if os.path.exists(name) and os.path.samefile(name, store_file):
        return os.path.basename(store_file) + ".html"
    return name


def cmd_view(args: argparse.Namespace) -> int:
    name = args.out or default_page_name(args.file)
    target = output_path(name, source=args.file)
    with open_store(args.file) as store:
        data = payload(store, title=os.path.basename(args.file), groups=args.group)
    page = render(data)
    with output(target, like=args.file) as out:
        out.write(page)
    ids = len({v["id"] for v in data["nodes"]})
    if target is not None:
        print(
            f"wrote {name}: {ids} nodes, {len(data['nodes'])} node versions, "
            f"{len(data['edges'])} edge versions; open it in a browser",
            file=sys.stderr,
        )
    if ids > VIEW_COMFORTABLE_NODES:
        print(
            f"note: {ids} nodes make a slow, crowded page; --group draws one group at a time",
            file=sys.stderr,
        )
    return 0

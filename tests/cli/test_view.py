"""``anatid view``: a self-contained page, checked in headless Chromium.

The page writes what it shows into ``<output id="status">`` (counts, the instant, the visible
node ids, errors caught), and takes the slider position from its URL (``?step=N``, applied
through the slider's own input handler). Chromium's ``--dump-dom`` then shows the state after
the scripts ran; ``--enable-logging=stderr`` shows any console message or uncaught error.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from anatid_core import Edge, Node, Store

from . import view_graphs
from .browser import Browser, Page
from .conftest import Seeded, anatid
from .view_graphs import Memory

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Debian's chromium is not installed (apt-get install chromium); the page is "
    "checked without a browser by the other tests here",
)


def _page(seeded: Seeded, tmp_path: Path) -> Path:
    out = tmp_path / "graph.html"
    r = anatid("view", seeded.path, "--out", out)
    assert r.code == 0, r.err
    assert "wrote" in r.err and "5 nodes" in r.err
    return out


def _status(page: Path, query: str = "") -> tuple[dict[str, str], str]:
    assert CHROMIUM is not None
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            "--enable-logging=stderr",
            "--v=0",
            "--virtual-time-budget=5000",
            f"--user-data-dir={page.parent / 'chromium-profile'}",
            "--dump-dom",
            page.as_uri() + query,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    match = re.search(r"<output id=\"status\"([^>]*)>", proc.stdout)
    assert match, proc.stdout[:2000]
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', match.group(1)))
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return attrs, "\n".join(console)


def test_page_is_self_contained(seeded: Seeded, tmp_path: Path) -> None:
    html = _page(seeded, tmp_path).read_text()
    # No fetches: no external script, stylesheet, image or font; the only URL is SVG's namespace.
    assert re.findall(r"https?://[^\s\"')]+", html) == ["http://www.w3.org/2000/svg"] * 2
    assert "<link" not in html and " src=" not in html and "@import" not in html
    # A name holding </script> cannot end the data block early.
    assert "</script> things" not in html and "\\u003c/script> things" in html
    # Three script blocks (the error counter, the data, viewer.js), each ended once, at its end.
    assert html.count("</script>") == 3 and html.lower().count("</script") == 3


def test_page_embeds_every_version_with_its_transaction_interval(
    seeded: Seeded, tmp_path: Path
) -> None:
    html = _page(seeded, tmp_path).read_text()
    blob = re.search(r'id="anatid-data">(.*?)</script>', html, re.S)
    assert blob
    data = json.loads(blob.group(1))
    assert len(data["nodes"]) == 6 and len(data["edges"]) == 5
    alice = [v for v in data["nodes"] if v["id"] == "alice"]
    assert [v["name"] for v in alice] == ["Alice", "Alice Smith"]
    assert alice[0]["tt"] == alice[1]["tf"] and alice[1]["tt"] is None


@needs_chromium
def test_page_draws_the_graph_and_the_slider_moves_through_time(
    seeded: Seeded, tmp_path: Path
) -> None:
    page = _page(seeded, tmp_path)
    now, console = _status(page)
    assert console == ""
    assert now["ready"] == "1" and now["errors"] == "0"
    # 7 write transactions, 7 instants (deleting bob ends e-knows in the same one)
    assert now["steps"] == "7" and now["step"] == "6"
    assert now["nodes"] == "4" and now["edges"] == "3"
    assert now["visible-ids"] == "acme alice globex paris"

    first, console = _status(page, "?step=0")
    assert console == ""
    assert (first["step"], first["nodes"], first["edges"]) == ("0", "4", "0")
    assert first["visible-ids"] == "acme alice bob paris"

    second, _ = _status(page, "?step=1")
    assert (second["nodes"], second["edges"]) == ("4", "3")
    assert second["t"] != first["t"]

    before_delete, _ = _status(page, "?step=-2")
    assert before_delete["visible-ids"] == "acme alice bob globex paris"
    assert before_delete["edges"] == "4"


@needs_chromium
def test_page_of_an_empty_store_loads_without_errors(tmp_path: Path) -> None:
    from anatid_core import Store

    Store.open(tmp_path / "empty.duckdb").close()
    out = tmp_path / "empty.html"
    assert anatid("view", tmp_path / "empty.duckdb", "--out", out).code == 0
    state, console = _status(out)
    assert console == ""
    assert (state["ready"], state["nodes"], state["steps"], state["errors"]) == ("1", "0", "0", "0")


@needs_chromium
def test_the_browser_check_catches_a_script_error(seeded: Seeded, tmp_path: Path) -> None:
    """The checks above can fail: the same page with a failing script is reported."""
    page = _page(seeded, tmp_path)
    html = page.read_text().replace("</body>", "<script>notDefinedAnywhere();</script></body>")
    page.write_text(html)
    state, console = _status(page)
    assert "notDefinedAnywhere is not defined" in console
    assert state["ready"] == "1"


# ------------------------------------------------------------------------------------------------
# Driven like a person would (issue 36): hover, click, type, untick, through the DevTools
# protocol (browser.py); screenshots at 50 and 5,000 nodes go to the test's tmp dir.

# The page's LIMITS (viewer.js) these tests lean on.
OVERVIEW, FOCUS_CAP = 100, 300


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    with Browser(tmp_path_factory.mktemp("chromium")) as b:
        yield b


def _view(store: Path, out: Path) -> str:
    r = anatid("view", store, "--out", out)
    assert r.code == 0, r.err
    return out.as_uri()


@pytest.fixture(scope="module")
def fifty(tmp_path_factory: pytest.TempPathFactory) -> tuple[Memory, str]:
    folder = tmp_path_factory.mktemp("view50")
    memory = view_graphs.build(folder / "memory.duckdb", 50, 120)
    return memory, _view(memory.path, folder / "memory.html")


@pytest.fixture(scope="module")
def five_thousand(tmp_path_factory: pytest.TempPathFactory) -> tuple[Memory, str]:
    folder = tmp_path_factory.mktemp("view5000")
    memory = view_graphs.build(folder / "memory.duckdb", 5000, 15000)
    return memory, _view(memory.path, folder / "memory.html")


def _facet(page: Page, kind: str) -> dict[str, int]:
    rows = page.js(
        f"Array.from(document.querySelectorAll('.facet[data-kind={kind}] li'))"
        ".map(li => [li.dataset.value, Number(li.dataset.count)])"
    )
    return {value: count for value, count in rows if count}


def _to_step(page: Page, step: int) -> None:
    page.js(
        "(() => { const s = document.getElementById('slider'); "
        f"s.value = String({step} < 0 ? Number(s.max) + 1 + ({step}) : {step}); "
        "s.dispatchEvent(new Event('input')); })()"
    )


def _note_button(page: Page, text: str) -> None:
    """A real click on the note's button of that text."""
    xy = page.js(
        "(() => { const b = Array.from(document.querySelectorAll('#note button'))"
        f".find(b => b.textContent === {json.dumps(text)}); const r = b.getBoundingClientRect(); "
        "return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    page.click(*xy)


def test_edges_show_their_relation_and_the_fact_on_hover_and_click(
    seeded: Seeded, browser: Browser, tmp_path: Path
) -> None:
    page = browser.open(_page(seeded, tmp_path).as_uri())
    labels = page.js(
        "Object.fromEntries(Array.from(document.querySelectorAll('.elabel:not([hidden])'))"
        ".map(t => [t.dataset.id, t.textContent]))"
    )
    assert labels == {"e-acme": "WORKS_AT", "e-globex": "WORKS_AT", "e-paris": "LOCATED_IN"}

    middle = page.center('.edge[data-id="e-globex"] .vis')  # a line's box is centred on it
    page.hover(*middle)
    tip = page.js(
        "[document.getElementById('tip').hidden, document.getElementById('tip').innerText]"
    )
    assert tip[0] is False
    assert tip[1].split("\n") == ["WORKS_AT", "Alice works at Globex", "Alice Smith \u2192 Globex"]

    page.click(*middle)
    assert page.js("document.querySelector('#details h2').textContent") == "WORKS_AT"
    fact = page.js("document.querySelector('#details dd[data-row=fact]').textContent")
    assert fact == "Alice works at Globex"
    assert page.js("document.querySelector('.edge.picked').dataset.id") == "e-globex"
    assert page.console() == []


def test_a_named_edge_is_labelled_by_its_name_not_its_relation(
    browser: Browser, tmp_path: Path
) -> None:
    """A Graphiti fact is a RELATES_TO edge named WORKS_AT (its driver writes the fact's name in
    the edge's name and the sentence in its text): the page labels it WORKS_AT; an edge with no
    name keeps its relation; the relation filter stays by relation (issue 44)."""
    store = tmp_path / "facts.duckdb"
    with Store.open(store) as s:
        s.upsert_nodes([Node("alice", name="Alice"), Node("acme", name="Acme")])
        s.upsert_nodes([Node("bob", name="Bob")])
        s.upsert_edges(
            [
                Edge(
                    "f1", "alice", "acme", "RELATES_TO", name="WORKS_AT", text="Alice works at Acme"
                ),
                Edge("f2", "bob", "alice", "KNOWS"),
            ]
        )
    page = browser.open(_view(store, tmp_path / "facts.html"))
    labels = page.js(
        "Object.fromEntries(Array.from(document.querySelectorAll('.elabel:not([hidden])'))"
        ".map(t => [t.dataset.id, t.textContent]))"
    )
    assert labels == {"f1": "WORKS_AT", "f2": "KNOWS"}
    assert _facet(page, "rel") == {"RELATES_TO": 1, "KNOWS": 1}

    middle = page.center('.edge[data-id="f1"] .vis')
    page.hover(*middle)
    tip = page.js("document.getElementById('tip').innerText")
    assert tip.split("\n") == ["WORKS_AT", "Alice works at Acme", "Alice \u2192 Acme"]
    page.click(*middle)
    assert page.js("document.querySelector('#details h2').textContent") == "WORKS_AT"
    ends = page.js("document.querySelector('#details dd[data-row=edge]').textContent")
    assert ends == "Alice \u2013RELATES_TO\u2192 Acme"
    assert page.console() == []


def test_legend_counts_are_those_of_the_selected_instant(
    seeded: Seeded, browser: Browser, tmp_path: Path
) -> None:
    page = browser.open(_page(seeded, tmp_path).as_uri())
    assert _facet(page, "label") == {"Person": 1, "Company": 2, "City": 1}  # Bob deleted
    assert _facet(page, "rel") == {"WORKS_AT": 2, "LOCATED_IN": 1}
    _to_step(page, 0)  # the first transaction: four nodes, no edge yet
    assert _facet(page, "label") == {"Person": 2, "Company": 1, "City": 1}
    assert _facet(page, "rel") == {}
    _to_step(page, -2)  # before Bob's deletion
    assert _facet(page, "label") == {"Person": 2, "Company": 2, "City": 1}
    assert _facet(page, "rel") == {"KNOWS": 1, "WORKS_AT": 2, "LOCATED_IN": 1}
    assert _facet(page, "group") == {"g1": 4, "g2": 1}


# For every drawn edge, points along its visible part (outside the circles), and every label
# whose own box (in its rotated frame) holds one of them: a label painted after the edge would
# hide it there. And an edge's own label must sit beside its line, not on it.
LABEL_COVER = """(() => {
  const svg = document.getElementById('graph');
  const labels = Array.from(document.querySelectorAll('.nlabel:not([hidden]), .elabel:not([hidden])'));
  const boxes = labels.map(l => [l, l.getBBox(), l.getScreenCTM().inverse()]);
  let overlaps = 0, above = 0, ownOnLine = 0, shortest = Infinity;
  for (const g of document.querySelectorAll('.edge:not([hidden])')) {
    const line = g.querySelector('.vis'), m = line.getScreenCTM();
    const x1 = line.x1.baseVal.value, y1 = line.y1.baseVal.value;
    const x2 = line.x2.baseVal.value, y2 = line.y2.baseVal.value;
    const len = Math.hypot(x2 - x1, y2 - y1);
    if (len < 20) continue;
    const covering = new Set();
    for (let i = 1; i < 10; i++) {
      const f = (9 + (len - 18) * i / 10) / len;
      const p = new DOMPoint(x1 + (x2 - x1) * f, y1 + (y2 - y1) * f).matrixTransform(m);
      for (const [l, b, inv] of boxes) {
        const q = p.matrixTransform(inv);
        if (q.x >= b.x && q.x <= b.x + b.width && q.y >= b.y && q.y <= b.y + b.height) covering.add(l);
      }
    }
    for (const l of covering) {
      if (l.classList.contains('elabel') && l.dataset.id === g.dataset.id) { ownOnLine++; continue; }
      overlaps++;
      shortest = Math.min(shortest, len);
      if (l.compareDocumentPosition(g) & Node.DOCUMENT_POSITION_PRECEDING) above++;
    }
  }
  return {overlaps, above, ownOnLine, shortest: isFinite(shortest) ? shortest : null,
          labels: labels.length};
})()"""


def test_no_label_hides_an_edge_however_short(
    fifty: tuple[Memory, str], browser: Browser, tmp_path: Path
) -> None:
    memory, url = fifty
    page = browser.open(url)
    state = page.status()
    assert (state["mode"], state["drawnNodes"]) == ("all", state["nodes"])
    # Every node named and every edge labelled with its relation, at 50 nodes.
    drawn_edges = int(state["drawnEdges"])
    assert page.js("document.querySelectorAll('.elabel:not([hidden])').length") == drawn_edges
    assert page.js("document.querySelectorAll('.nlabel:not([hidden])').length") == int(
        state["nodes"]
    )
    cover = page.js(LABEL_COVER)
    # Labels do cross edges in a graph this dense (so the check below checks something)...
    assert cover["overlaps"] > 10 and cover["shortest"] < 80
    # ...but every one lies under the edge, which stays whole; no edge label sits on its line.
    assert cover["above"] == 0 and cover["ownOnLine"] == 0, cover
    shot = page.screenshot(tmp_path / "view-50.png")
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 20_000
    assert page.console() == []


def test_five_thousand_nodes_open_on_an_overview_with_a_way_in(
    five_thousand: tuple[Memory, str], browser: Browser, tmp_path: Path
) -> None:
    memory, url = five_thousand
    started = time.monotonic()
    page = browser.open(url)
    opened = time.monotonic() - started
    assert opened < 20, f"the page took {opened:.1f} s to open"
    state = page.status()
    alive = len(memory.nodes) - len(memory.deleted)
    assert state["mode"] == "overview" and int(state["nodes"]) == alive
    # The best-connected nodes only, and a note that says what is not drawn and how to see it.
    best = set(memory.by_degree()[:OVERVIEW])
    shown = set(state["visibleIds"].split())
    assert len(shown) <= OVERVIEW and shown <= best and len(shown) >= OVERVIEW - 5
    assert int(state["notDrawn"]) == len(memory.nodes) - OVERVIEW
    note = page.js("document.getElementById('note').innerText")
    assert f"{len(memory.nodes) - OVERVIEW:,} are not drawn" in note and "draw all 5,000" in note
    shot = page.screenshot(tmp_path / "view-5000.png")
    print(f"screenshot: {shot} (opened in {opened:.1f} s)")

    # A search by name, then Enter: the node and its neighbours, and nothing else.
    ranking = memory.by_degree()
    target = next(n for n in ranking[200:] if n not in memory.deleted)
    name = memory.nodes[target][0]
    page.click_on("#search")
    page.type(name)
    first = page.js("document.querySelector('#results button').dataset.id")
    assert first == target
    page.press("Enter")
    state = page.status()
    assert (state["mode"], state["focus"], state["depth"]) == ("focus", target, "1")
    alive_ids = set(memory.nodes) - set(memory.deleted)
    around = memory.neighbours(target) & alive_ids
    assert set(state["visibleIds"].split()) == {target} | around
    assert page.js("document.querySelector('#details h2').textContent") == name

    # Depth 2, from the note: two steps out, cut at the cap, the cut said.
    _note_button(page, "depth 2")
    state = page.status()
    one = memory.neighbours(target)
    two = set().union(*(memory.neighbours(n) for n in one)) | one | {target}
    assert state["depth"] == "2"
    drawn, expected = set(state["visibleIds"].split()), min(FOCUS_CAP, len(two))
    assert drawn <= two and expected - len(memory.deleted) <= len(drawn) <= expected
    assert int(state["notDrawn"]) == max(0, len(two) - FOCUS_CAP)
    page.screenshot(tmp_path / "view-5000-focus.png")

    # A filter: untick "Person"; no person is drawn, and the note says what the filter hides.
    page.click_on('.facet[data-kind=label] li[data-value="Person"] input')
    state = page.status()
    people = {n for n, (_, label, _) in memory.nodes.items() if label == "Person"}
    assert state["visibleIds"] and not set(state["visibleIds"].split()) & people
    assert f"Filters hide {len(people):,} of 5,000 nodes" in page.js(
        "document.getElementById('note').innerText"
    )
    page.click_on('.facet[data-kind=label] li[data-value="Person"] input')

    # Back to the overview; a double-click on a node focuses on it.
    _note_button(page, "back to the overview")
    assert page.status()["mode"] == "overview"
    hub = ranking[0]
    page.click_on(f'.node[data-id="{hub}"] circle', count=2)
    state = page.status()
    assert (state["mode"], state["focus"]) == ("focus", hub)

    # And everything, when asked: every node known at this instant drawn.
    _note_button(page, "back to the overview")
    started = time.monotonic()
    _note_button(page, "draw all 5,000 (slow)")
    state = page.status()
    assert state["mode"] == "all" and int(state["drawnNodes"]) == alive
    print(f"draw all: {time.monotonic() - started:.1f} s")
    assert page.console() == []

"""``anatid view``: a self-contained page, checked in headless Chromium.

The page writes what it shows into ``<output id="status">`` (counts, the instant, the visible
node ids, errors caught), and takes the slider position from its URL (``?step=N``, applied
through the slider's own input handler). Chromium's ``--dump-dom`` then shows the state after
the scripts ran; ``--enable-logging=stderr`` shows any console message or uncaught error.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import Seeded, anatid

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


def test_page_embeds_every_version_with_its_transaction_interval(
    seeded: Seeded, tmp_path: Path
) -> None:
    import json

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

"""A headless Chromium driven over the DevTools protocol, with the standard library only.

``--remote-debugging-pipe`` makes Chromium read commands from its file descriptor 3 and write
answers and events to 4, as JSON messages ended by a NUL byte: no port, no websocket package.
A test opens a page, reads it with JavaScript (:meth:`Page.js`), and acts as a person would:
real mouse events at a point (:meth:`Page.click`, :meth:`Page.hover`), typed text
(:meth:`Page.type`), key presses; :meth:`Page.screenshot` saves a PNG.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(AssertionError):
    """Chromium answered a command with an error, died, or did not answer in time."""


class Browser:
    """One Chromium process; ``with Browser(tmp_path) as b: page = b.open(url)``."""

    def __init__(self, profile: Path, *, width: int = 1400, height: int = 900) -> None:
        assert CHROMIUM is not None, "Debian's chromium is not installed"
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def fds_3_and_4() -> None:  # in the child, before exec: its fds 3 and 4 are the pipes
            a, b = os.dup(to_child), os.dup(from_child)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=fds_3_and_4,
            close_fds=False,  # the pipes are non-inheritable; only the dup2'ed 3 and 4 pass
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.width, self.height = width, height

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=5)
        except (BrowserError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._read, self._write):
            try:
                os.close(fd)
            except OSError:
                pass

    # ------------------------------------------------------------------------------ protocol
    def _message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer in time")
            ready, _, _ = select.select([self._read], [], [], left)
            if ready:
                chunk = os.read(self._read, 1 << 20)
                if not chunk:
                    raise BrowserError(f"chromium exited ({self.proc.poll()})")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(raw)

    def send(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        session: str | None = None,
        timeout: float = 60,
    ) -> dict[str, Any]:
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._write, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def open(self, url: str, *, timeout: float = 60) -> Page:
        """A new tab at ``url``, once its script has set ``#status[data-ready=1]``."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        page = Page(self, session)
        page.send("Runtime.enable")
        page.send("Page.enable")
        page.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
        )
        page.send("Page.navigate", {"url": url})
        page.wait_for("document.getElementById('status')?.dataset.ready === '1'", timeout)
        return page


class Page:
    def __init__(self, browser: Browser, session: str) -> None:
        self.browser, self.session = browser, session

    def send(self, method: str, params: dict[str, Any] | None = None, **kw: Any) -> dict[str, Any]:
        return self.browser.send(method, params, session=self.session, **kw)

    def js(self, expression: str, *, timeout: float = 60) -> Any:
        """The value of a JavaScript expression in the page (JSON-able values only)."""
        r = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            timeout=timeout,
        )
        if "exceptionDetails" in r:
            raise BrowserError(f"{expression[:200]}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not self.js(f"!!({expression})"):
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {expression}")
            time.sleep(0.05)

    def status(self) -> dict[str, str]:
        """The page's ``<output id="status">`` data attributes (camelCase, as the page sets them)."""
        return self.js("Object.assign({}, document.getElementById('status').dataset)")

    def console(self) -> list[str]:
        """Console messages and uncaught exceptions of this tab so far."""
        out = []
        for e in self.browser.events:
            if e.get("sessionId") != self.session:
                continue
            if e.get("method") == "Runtime.consoleAPICalled":
                out.append(
                    " ".join(str(a.get("value", a.get("description"))) for a in e["params"]["args"])
                )
            elif e.get("method") == "Runtime.exceptionThrown":
                d = e["params"]["exceptionDetails"]
                out.append(str(d.get("exception", {}).get("description") or d.get("text")))
        return out

    # ------------------------------------------------------------------------------ input
    def center(self, selector: str) -> tuple[float, float]:
        """The middle of the first element matching ``selector``, in CSS pixels of the view."""
        box = self.js(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
            ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        return box[0], box[1]

    def mouse(self, kind: str, x: float, y: float, **kw: Any) -> None:
        self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, **kw})

    def hover(self, x: float, y: float) -> None:
        self.mouse("mouseMoved", x, y)

    def click(self, x: float, y: float, *, count: int = 1) -> None:
        self.mouse("mouseMoved", x, y)
        for n in range(1, count + 1):
            self.mouse("mousePressed", x, y, button="left", clickCount=n)
            self.mouse("mouseReleased", x, y, button="left", clickCount=n)

    def click_on(self, selector: str, *, count: int = 1) -> None:
        self.click(*self.center(selector), count=count)

    def type(self, text: str) -> None:
        self.send("Input.insertText", {"text": text})

    def press(self, key: str) -> None:
        """A key such as "Enter" or "Escape", down and up."""
        code = {"Enter": 13, "Escape": 27}[key]
        for kind in ("keyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent",
                {"type": kind, "key": key, "code": key, "windowsVirtualKeyCode": code},
            )

    def screenshot(self, path: Path) -> Path:
        shot = self.send("Page.captureScreenshot", {"format": "png"})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

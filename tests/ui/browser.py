"""Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`): no
websocket library, no driver download; Debian's /usr/bin/chromium (tools/ensure_chromium.sh).

What the live page's test and scripts/ui_screenshots.py need: open a page, read its DOM with
`evaluate` while it updates itself, and record what a person would not see: every request the page
made (to check none leaves loopback), every console message, uncaught exception and browser log
entry of level error (a Content-Security-Policy violation is one), screenshots and the heap.

Chromium reads commands from fd 3 and writes answers and events to fd 4, each a JSON object ending
in a NUL byte; bash `exec` puts the pipe ends on those numbers (dash refuses descriptors above 9).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shlex
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars"]


class BrowserError(RuntimeError):
    """The browser answered a command with an error, or stopped answering."""


class Browser:
    """One headless Chromium with one page (a tab) attached."""

    def __init__(self, profile: Path, *, width: int = 1400, height: int = 1000, timeout: float = 60.0) -> None:
        if not CHROMIUM.exists():
            raise BrowserError("Debian's chromium is not installed: the README's test command installs it "
                               "(tools/ensure_chromium.sh); run that script as root")
        self.timeout = timeout
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        command = [str(CHROMIUM), *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
                   "--remote-debugging-pipe", "about:blank"]
        profile.mkdir(parents=True, exist_ok=True)
        # Chromium's own log (dbus noise on a machine without a session bus): kept for a failure's message.
        self.log_path = profile / "chromium.log"
        log = self.log_path.open("w")
        shell = f"exec {shlex.join(command)} 3<&{to_browser_r} 4>&{from_browser_w}"
        self.process = subprocess.Popen(["/bin/bash", "-c", shell], pass_fds=(to_browser_r, from_browser_w),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        log.close()
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next = 0
        self._lock = threading.Lock()
        self._answers: dict[int, dict[str, Any]] = {}
        self._arrived = threading.Condition()
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page", "Performance"):
            self.send(f"{domain}.enable", session=True)
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False}, session=True)

    # ---- the protocol -------------------------------------------------------------------------------

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = os.read(self._from_browser, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                with self._arrived:
                    self._arrived.notify_all()
                return
            buffer += chunk
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                message = json.loads(raw)
                with self._arrived:
                    if "id" in message:
                        self._answers[message["id"]] = message
                    else:
                        self.events.append(message)
                    self._arrived.notify_all()

    def send(self, method: str, params: dict[str, Any] | None = None, *, session: bool = False) -> dict[str, Any]:
        with self._lock:
            self._next += 1
            ident = self._next
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        try:
            os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            self.process.wait(timeout=10)
            raise BrowserError(f"Chromium ended before {method} (exit code {self.process.poll()}): "
                               + self.log_path.read_text(errors="replace")[-1500:]) from None
        deadline = time.monotonic() + self.timeout
        with self._arrived:
            while ident not in self._answers:
                left = deadline - time.monotonic()
                if left <= 0 or self.process.poll() is not None:
                    raise BrowserError(f"Chromium did not answer {method} (exit code {self.process.poll()}): "
                                       + self.log_path.read_text(errors="replace")[-1500:])
                self._arrived.wait(min(left, 0.5))
            answer = self._answers.pop(ident)
        if "error" in answer:
            raise BrowserError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    # ---- what a test asks --------------------------------------------------------------------------

    def open(self, url: str) -> None:
        self.send("Page.navigate", {"url": url}, session=True)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serializable values only)."""
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, session=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def wait_for(self, expression: str, *, timeout: float = 60.0, what: str = "") -> Any:
        """Poll `expression` until it is truthy; its value. The page is never reloaded meanwhile."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                value = self.evaluate(expression)
            except BrowserError:
                value = None
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out waiting for {what or expression}; errors so far: {self.errors()}")
            time.sleep(0.1)

    def screenshot(self, path: Path, *, selector: str | None = None) -> None:
        params: dict[str, Any] = {"format": "png"}
        if selector is not None:
            box = self.evaluate(f"(function(){{var r=document.querySelector({json.dumps(selector)})"
                                ".getBoundingClientRect();return {x:r.left+window.scrollX,y:r.top+window.scrollY,"
                                "width:r.width,height:r.height};})()")
            params["clip"] = box | {"scale": 1}
            params["captureBeyondViewport"] = True
        data = self.send("Page.captureScreenshot", params, session=True)["data"]
        path.write_bytes(base64.b64decode(data))

    def metrics(self) -> dict[str, float]:
        return {m["name"]: m["value"] for m in self.send("Performance.getMetrics", session=True)["metrics"]}

    def requests(self) -> list[str]:
        """Every URL the page asked for (documents, scripts, styles, fetches, images)."""
        with self._arrived:
            return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def errors(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions, and the browser's own error log (a CSP
        violation, a failed load)."""
        found = []
        with self._arrived:
            events = list(self.events)
        for event in events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                found.append("console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"]))
            elif method == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                found.append("exception: " + str(details.get("exception", {}).get("description") or details.get("text")))
            elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}")
        return found

    def close(self) -> None:
        with contextlib.suppress(BrowserError):   # it may have gone already; the wait below ends it anyway
            self.send("Browser.close")
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=15)
        for fd in (self._to_browser, self._from_browser):
            with contextlib.suppress(OSError):   # closed already (close() called twice)
                os.close(fd)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

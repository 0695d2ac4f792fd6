"""web_cdp.py - headless Debian chromium driven over the DevTools protocol,
with Python's standard library only (tests/web.py, tests/bench/web_bench.py).

Chromium is started with --remote-debugging-port=0; the port and the
browser's websocket path come from its "DevTools listening on ws://..."
line on stderr. The websocket is a minimal RFC 6455 client over a socket:
text frames out (masked, as a client must), text frames in (continuations
joined, pings answered). A page is a target attached with flatten=True, so
every command carries its sessionId. Nothing is downloaded: no browser, no
package."""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time

CHROMIUM = os.environ.get("QKV_CHROMIUM", "/usr/bin/chromium")


class WebSocket:
    def __init__(self, host, port, path, timeout=60):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise ConnectionError("websocket: the browser closed the handshake")
            head += chunk
        if not head.startswith(b"HTTP/1.1 101"):
            raise ConnectionError("websocket: no upgrade: " + head.split(b"\r\n")[0].decode(errors="replace"))
        self.buf = b""

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("websocket: the browser closed the connection")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _frame(self, opcode, payload):
        head = bytes([0x80 | opcode])
        n = len(payload)
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[k % 4] for k, b in enumerate(payload))
        self.sock.sendall(head + mask + body)

    def send(self, text):
        self._frame(0x1, text.encode())

    def recv(self):
        parts = []
        while True:
            b0, b1 = self._read(2)
            opcode, n = b0 & 0x0F, b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b1 & 0x80 else None
            data = self._read(n)
            if mask:
                data = bytes(b ^ mask[k % 4] for k, b in enumerate(data))
            if opcode == 0x9:        # ping
                self._frame(0xA, data)
                continue
            if opcode == 0x8:
                raise ConnectionError("websocket: closed by the browser")
            if opcode in (0x1, 0x2, 0x0):
                parts.append(data)
                if b0 & 0x80:
                    return b"".join(parts).decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    """Headless chromium with one page; cmd() sends a command to the page."""

    def __init__(self, width=1000, height=700):
        if not os.access(CHROMIUM, os.X_OK):
            raise FileNotFoundError(CHROMIUM)
        self.profile = tempfile.mkdtemp(prefix="qkv-web-")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
             f"--window-size={width},{height}", f"--user-data-dir={self.profile}",
             "--remote-debugging-port=0", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        url, seen = None, []
        deadline = time.time() + 30
        while time.time() < deadline:
            line = self.proc.stderr.readline().decode(errors="replace")
            if not line:
                break
            seen.append(line)
            m = re.search(r"DevTools listening on (ws://[^\s]+)", line)
            if m:
                url = m.group(1)
                break
        if not url:
            self.quit()
            raise RuntimeError("chromium gave no DevTools address:\n" + "".join(seen[-5:]))
        threading.Thread(target=self._drain, daemon=True).start()  # a full pipe would stop chromium
        m = re.match(r"ws://([^:/]+):(\d+)(/.*)", url)
        self.ws = WebSocket(m.group(1), int(m.group(2)), m.group(3))
        self.next_id = 0
        self.events = []
        self.dialogs = []
        self.origin = 0
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.cmd("Page.enable")
        self.cmd("Runtime.enable")
        self.cmd("Network.enable")
        self.cmd("Log.enable")
        self.cmd("Emulation.setDeviceMetricsOverride",
                 {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def _drain(self):
        for _ in iter(lambda: self.proc.stderr.read(65536), b""):
            pass

    def call(self, method, params=None, session=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        deadline = time.time() + timeout
        while time.time() < deadline:
            r = json.loads(self.ws.recv())
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError(f"{method}: {r['error']}")
                return r.get("result", {})
            if r.get("method") == "Page.javascriptDialogOpening":
                # a page's question (beforeunload): noted and accepted, so a navigation goes on
                self.dialogs.append(r["params"])
                self.ws.send(json.dumps({"id": 10 ** 9 + len(self.dialogs), "method": "Page.handleJavaScriptDialog",
                                         "params": {"accept": True}, "sessionId": r.get("sessionId")}))
            self.events.append(r)
        raise TimeoutError(method)

    def cmd(self, method, params=None):
        return self.call(method, params, self.session)

    def eval(self, expr, await_promise=False):
        r = self.cmd("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                          "awaitPromise": await_promise})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError("page: " + d.get("exception", {}).get("description", d.get("text", "?")))
        return r["result"].get("value")

    def goto(self, url, ready="window.qkv && window.qkv.ready", timeout=30, fresh=True):
        """Opens url and waits until ready. fresh: through about:blank first, since a URL
        that differs only in its hash would not load the page again (the tab's history
        then has about:blank before url)."""
        if fresh:
            # and wait for it: a navigation sent while the page before still unloads (with a
            # beforeunload handler) can stall in headless chromium
            self.cmd("Page.navigate", {"url": "about:blank"})
            self.goto_wait("location.href == 'about:blank'", timeout, "about:blank")
        self.cmd("Page.navigate", {"url": url})
        self.goto_wait(ready, timeout, url)

    def goto_wait(self, ready="window.qkv && window.qkv.ready", timeout=30, what="the next page"):
        """Waits for a document other than the last one waited for (after a reload, a
        history step or a navigation the page made) to be ready."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                if self.eval(f"performance.timeOrigin != {self.origin!r} && !!({ready})"):
                    self.origin = self.eval("performance.timeOrigin")
                    return
            except RuntimeError:
                pass
            time.sleep(0.02)
        raise TimeoutError("the page did not get ready: " + what)

    def key(self, key, code=None, text=None, vk=0, mods=0):
        """A real key press through the browser's input pipeline; mods: 1 Alt, 2 Ctrl, 4 Meta, 8 Shift."""
        base = {"key": key, "code": code or key, "windowsVirtualKeyCode": vk, "modifiers": mods}
        down = dict(base, type="keyDown")
        if text is not None:
            down["text"] = text
        self.cmd("Input.dispatchKeyEvent", down)
        self.cmd("Input.dispatchKeyEvent", dict(base, type="keyUp"))

    def type(self, s):
        for ch in s:
            if ch == "\r":
                self.key("Enter", "Enter", "\r", 13)
            else:
                self.key(ch, None, ch, ord(ch.upper()) if ch.isalnum() else 0)

    def screenshot(self, path):
        data = self.cmd("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))

    def wait_event(self, method, timeout=10):
        """The first event called method that came since the last call to wait_event for it."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            for k, e in enumerate(self.events):
                if e.get("method") == method:
                    del self.events[k]
                    return e["params"]
            self.eval("0")  # reads what the browser sent meanwhile
            time.sleep(0.02)
        raise TimeoutError(method)

    def console(self):
        """The page's console errors and warnings, its uncaught exceptions and the browser's
        log entries (a Content-Security-Policy refusal is one), so far."""
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append(p["type"] + ": " + " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif m == "Runtime.exceptionThrown":
                d = p.get("exceptionDetails", {})
                out.append("exception: " + d.get("exception", {}).get("description", d.get("text", "")))
            elif m == "Log.entryAdded" and p["entry"].get("level") in ("error", "warning"):
                out.append(p["entry"]["level"] + ": " + p["entry"].get("text", ""))
        return out

    def requests(self):
        """Every URL the page asked the network for, so far."""
        return [e["params"]["request"]["url"] for e in self.events
                if e.get("method") == "Network.requestWillBeSent"]

    def quit(self):
        try:
            self.ws.close()
        except AttributeError:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

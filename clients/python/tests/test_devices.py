"""A session's devices on both clients: each test drives the shared session
``sess`` (1024x768) and checks the effect the way a user would, with a real
program in the sandbox (xev, xterm, a GTK window) or by reading back."""

from __future__ import annotations

import hashlib
import io
import pathlib
import re
import time
from typing import Any, Callable, List, Tuple

import httpx
import pytest

import deskrun

REPO = pathlib.Path(__file__).resolve().parents[3]


def until(what: str, cond: Callable[[], Any], tries: int = 600) -> Any:
    """Polls cond until it is truthy; the bound counts polls of the sandbox,
    each a round trip, not seconds."""
    for _ in range(tries):
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"{what}: never happened")


def xev_events(s: Any, log: str) -> List[Tuple[str, str]]:
    out = []
    for block in s.files.read_text(log).split("\n\n"):
        m = re.match(r"(ButtonPress|ButtonRelease|KeyPress|KeyRelease) event", block)
        if m:
            b = re.search(r"button (\d+)", block)
            k = re.search(r"keysym 0x[0-9a-f]+, (\w+)\)", block)
            out.append((m.group(1), b.group(1) if b else k.group(1) if k else ""))
    return out


@pytest.fixture
def xev(sess: Any) -> Any:
    """An xev window at the top left of the screen, logging to ~/xev.log."""
    # Local sandboxes are processes of this host: kill by pid, never by name.
    pid = sess.commands.run("rm -f $HOME/xev.log; stdbuf -oL xev -geometry 300x300+0+0 > $HOME/xev.log 2>&1 & echo $!").stdout.strip()
    w = until("xev's window", lambda: sess.windows.find("Event Tester"))
    sess.windows.activate(w.id)
    home = sess.commands.run("printf %s $HOME").stdout
    yield home + "/xev.log"
    sess.commands.run(["kill", pid])
    until("xev gone", lambda: sess.windows.find("Event Tester") is None)


def test_mouse(sess: Any, xev: str) -> None:
    sess.mouse.move(150, 160)
    assert sess.mouse.position() == (150, 160)
    sess.mouse.click(100, 100)
    sess.mouse.click(120, 120, button="right")
    sess.mouse.double_click(110, 110)
    sess.mouse.right_click(111, 111)
    sess.mouse.scroll(2, x=100, y=100)
    sess.mouse.scroll(-1)
    sess.mouse.drag([(50, 50), (100, 80), (150, 150)])
    assert sess.mouse.position() == (150, 150)
    sess.mouse.down("middle")
    sess.mouse.up("middle")
    sess.wait_idle(100)
    buttons = [b for kind, b in xev_events(sess, xev) if kind == "ButtonPress"]
    assert buttons == ["1", "3", "1", "1", "3", "5", "5", "4", "1", "2"], buttons


def test_keyboard(sess: Any, xev: str) -> None:
    sess.mouse.move(100, 100)
    sess.keyboard.type("ab")
    sess.keyboard.press("Return")
    sess.keyboard.press("ctrl+a")
    sess.keyboard.press(["shift", "b"])
    sess.keyboard.hotkey("alt", "F5")
    sess.keyboard.press("x", repeat=2)
    sess.keyboard.down("c")
    sess.keyboard.up("c")
    sess.wait_idle(100)
    keys = [k for kind, k in xev_events(sess, xev) if kind == "KeyPress"]
    assert keys == ["a", "b", "Return", "Control_L", "a", "Shift_L", "B", "Alt_L", "F5", "x", "x", "c"], keys


def test_typing_unicode_into_a_terminal(sess: Any) -> None:
    pid = sess.commands.run("xterm -geometry 80x10+0+0 -title pyterm -xrm 'XTerm*allowTitleOps: false' >/dev/null 2>&1 & echo $!").stdout.strip()
    w = until("xterm", lambda: sess.windows.find("pyterm"))
    sess.windows.activate(w.id)
    sess.mouse.move(200, 60)
    until("the shell's prompt", lambda: sess.commands.run(["pgrep", "-P", pid]).stdout.strip())
    sess.keyboard.type("echo 'héllo wörld ✓' > ~/typed.txt\n")
    home = sess.commands.run("printf %s $HOME").stdout
    until("the typed file", lambda: sess.files.exists(home + "/typed.txt") and sess.files.read_text(home + "/typed.txt"))
    assert sess.files.read_text(home + "/typed.txt") == "héllo wörld ✓\n"
    sess.windows.close(w.id)


def test_screen(sess: Any) -> None:
    full = sess.screen.screenshot()
    assert full.mime_type == "image/png" and full.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert (full.width, full.height) == (1024, 768) and full.scale == 1 and full.screen == (1024, 768)
    small = sess.screen.screenshot(max_width=512)
    assert (small.width, small.height) == (512, 384) and small.scale == 0.5
    assert small.to_screen(100, 50) == (200, 100)
    jpeg = sess.screen.screenshot(format="jpeg", quality=50)
    assert jpeg.mime_type == "image/jpeg" and (jpeg.width, jpeg.height) == (1024, 768)
    region = sess.screen.screenshot(region=(10, 20, 110, 70))
    assert (region.width, region.height) == (100, 50)
    settled = sess.screen.screenshot(settle_ms=100, timeout_ms=5000)
    assert settled.settled in (True, False) and settled.settle_ms is not None
    img = sess.screen.image(max_width=256)
    assert img.size == (256, 192)
    assert sess.screen.png(region=(0, 0, 8, 8))[:4] == b"\x89PNG"
    assert sess.screen.size() == (1024, 768)


def test_clipboard(sess: Any) -> None:
    sess.clipboard.set("deskrun ✓")
    assert sess.clipboard.get() == "deskrun ✓"
    assert sess.commands.run("xclip -o -selection clipboard").stdout == "deskrun ✓"
    sess.clipboard.set("primary text", selection="primary")
    assert sess.clipboard.get(selection="primary") == "primary text"
    png = sess.screen.png(region=(0, 0, 16, 16))
    sess.clipboard.set_image(png)
    got = sess.clipboard.get_image()
    assert got[:8] == b"\x89PNG\r\n\x1a\n"


def test_windows(sess: Any) -> None:
    sess.commands.run("xterm -geometry 40x10+50+60 -title pywin -xrm 'XTerm*allowTitleOps: false' >/dev/null 2>&1 &")
    w = until("xterm", lambda: sess.windows.find("pywin"))
    assert w in sess.windows.list()
    sess.windows.activate(w.id)
    until("activation", lambda: (sess.windows.active() or w).id == w.id and sess.windows.active())
    sess.windows.move_resize(w.id, x=200, y=150, width=300, height=200)
    b = until("the move", lambda: (lambda g: g.bounds if g.bounds and abs(g.bounds.x - 200) <= 4 else None)(sess.windows.get(w.id)))
    assert abs(b.y - 150) <= 30 and abs(b.w - 300) <= 20 and abs(b.h - 200) <= 20, b
    sess.windows.maximize(w.id)
    until("maximized", lambda: sess.windows.get(w.id).maximized)
    sess.windows.restore(w.id)
    until("restored", lambda: not sess.windows.get(w.id).maximized)
    sess.windows.minimize(w.id)
    until("minimized", lambda: sess.windows.get(w.id).minimized)
    sess.windows.close(w.id)
    until("closed", lambda: sess.windows.find("pywin") is None)


def test_commands(sess: Any) -> None:
    r = sess.commands.run("echo out; echo err >&2; exit 3")
    assert (r.exit_code, r.stdout, r.stderr, r.ok) == (3, "out\n", "err\n", False)
    assert sess.commands.run(["printf", "%s", "a b"]).stdout == "a b"
    assert sess.commands.run("echo $FOO", env={"FOO": "bar"}).stdout == "bar\n"
    assert sess.commands.run("pwd", cwd="/tmp").stdout == "/tmp\n"
    assert sess.commands.run("cat", stdin="piped").stdout == "piped"
    assert sess.commands.run("echo $DISPLAY").stdout.startswith(":")
    t = sess.commands.run("sleep 30", timeout=0.3)
    assert t.timed_out and not t.ok
    with pytest.raises(deskrun.CommandFailed) as e:
        sess.commands.run("exit 7", check=True)
    assert e.value.result.exit_code == 7
    sess.commands.run("sleep 300 >/dev/null 2>&1 &")
    assert sess.commands.kill_all() >= 1
    assert sess.shell is sess.commands or sess.shell.run("true").ok


def test_named_shells(sess: Any) -> None:
    sh = sess.commands.shell("py")
    r = sh.exec("cd /tmp && export X=kept && pwd")
    assert r.exit_code == 0 and r.output == "/tmp\n" and not r.running
    assert sh.exec("echo $X $PWD", cwd="/tmp").output == "kept /tmp\n"
    r = sh.exec("read line; echo got $line")
    # Interactive input reaches the running command.
    if r.running:
        sh.write("yes")
        r = sh.wait(10)
    assert "got" in r.output
    long = sh.exec("sleep 60")
    sh.kill()
    assert not sh.view().running or long.command == "sleep 60"


def test_files(sess: Any, tmp_path: pathlib.Path) -> None:
    home = sess.commands.run("printf %s $HOME").stdout
    d = home + "/pyfiles"
    sess.files.write(d + "/a.txt", "hé")
    sess.files.write(d + "/sub/b.bin", b"\x00\x01")
    assert sess.files.read(d + "/a.txt") == "hé".encode()
    assert sess.files.read_text(d + "/a.txt") == "hé"
    entries = sess.files.list(d)
    assert [(e.name, e.kind) for e in entries] == [("a.txt", "file"), ("sub", "dir")]
    assert entries[0].size == 3 and entries[0].path == d + "/a.txt"
    assert sess.files.exists(d + "/sub/b.bin") and not sess.files.exists(d + "/nope")
    with pytest.raises(deskrun.NotFound):
        sess.files.list(d + "/nope")
    with pytest.raises(deskrun.InvalidRequest):
        sess.files.list("relative")

    # 24 MiB both ways, streamed from and to files.
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        for i in range(24):
            f.write(hashlib.sha256(str(i).encode()).digest() * (1 << 15))
    want = hashlib.sha256(big.read_bytes()).hexdigest()
    assert sess.files.upload(big, d + "/big.bin") == big.stat().st_size
    assert sess.commands.run(["sha256sum", d + "/big.bin"]).stdout.split()[0] == want
    back = tmp_path / "back.bin"
    assert sess.files.download(d + "/big.bin", back) == big.stat().st_size
    assert hashlib.sha256(back.read_bytes()).hexdigest() == want
    buf = io.BytesIO()
    sess.files.download(d + "/a.txt", buf)
    assert buf.getvalue() == "hé".encode()
    with open(big, "rb") as f:
        sess.files.upload(f, d + "/big2.bin")
    assert sess.commands.run(["stat", "-c", "%s", d + "/big2.bin"]).stdout.strip() == str(big.stat().st_size)
    with pytest.raises(deskrun.NotFound):
        sess.files.download(d + "/nope", tmp_path / "nope")
    sess.files.remove(d, recursive=True)
    assert not sess.files.exists(d)


def test_tickets_and_viewer(server: Any, sess: Any) -> None:
    t = sess.ticket()
    assert len(t.ticket) > 10 and t.expires_at is not None
    url = sess.viewer_url(view_only=True)
    r = httpx.get(url)  # no token: the ticket lets the browser in
    assert r.status_code == 200 and "<canvas" in r.text.lower() or "vnc" in r.text.lower()
    assert httpx.get(server.url + f"/v1/sessions/{sess.id}/view").status_code == 401
    assert sess.vnc_url().startswith("ws://") and "ticket=" in sess.vnc_url()
    assert "<html" in sess.viewer_page().lower()


def test_ports(sess: Any) -> None:
    import socket

    with socket.socket() as sk:  # a local sandbox shares this host's loopback
        sk.bind(("127.0.0.1", 0))
        port = sk.getsockname()[1]
    home = sess.commands.run("printf %s $HOME").stdout
    sess.files.write(home + "/www/hello.txt", "hi from the sandbox")
    pid = sess.commands.run(f"cd {home}/www && /usr/bin/python3 -m http.server {port} --bind 127.0.0.1 >/dev/null 2>&1 & echo $!").stdout.strip()

    def fetch() -> Any:
        r = _try(lambda: sess.ports.request("GET", port, "/hello.txt"))
        return r if r is not None and r.status_code == 200 else None

    r = until("the port", fetch)
    assert r.text == "hi from the sandbox"
    assert sess.ports.url(port, "/x").endswith(f"/v1/sessions/{sess.id}/ports/{port}/x")
    sess.commands.run(["kill", pid])


def _try(f: Callable[[], Any]) -> Any:
    try:
        return f()
    except deskrun.Unavailable:
        return None


def test_recording(api: Any) -> None:
    with api.sessions.create(record=True, screen=(640, 480)) as s:
        assert s.info.record and s.info.recording_started_at is not None
        s.commands.run("xterm -geometry 40x5+0+0 >/dev/null 2>&1 &")
        s.wait_idle(300, timeout_ms=3000)
        video = s.recording.read()
        assert video[:4] == b"\x1a\x45\xdf\xa3", "not a WebM file"
        url = s.recording.url()
        assert httpx.get(url).content[:4] == b"\x1a\x45\xdf\xa3"
        buf = io.BytesIO()
        assert s.recording.download(buf) > 0
    with api.sessions.create() as plain, pytest.raises(deskrun.NotFound):
        plain.recording.read()


def test_set_ttl(api: Any) -> None:
    with api.sessions.create(ttl=600) as s:
        assert s.info.expires_at is not None
        before = s.info.expires_at
        info = s.set_ttl(1200)
        assert info.expires_at is not None and info.expires_at > before
        with pytest.raises(deskrun.InvalidRequest) as e:
            s.set_ttl(0)
        assert e.value.field == "ttl_s"


GTKAPP = REPO / "agentd" / "atspi" / "testdata" / "gtkapp.py"


def test_accessibility(sess: Any) -> None:
    home = sess.commands.run("printf %s $HOME").stdout
    sess.files.upload(GTKAPP, home + "/gtkapp.py")
    pid = sess.commands.run(f"/usr/bin/python3 {home}/gtkapp.py 'Py A11y' > {home}/gtk.log 2>&1 & echo $!").stdout.strip()
    until("the GTK window's button", lambda: sess.accessibility.find("Press Me", "push button"), tries=1200)
    els = sess.accessibility.elements()
    assert all(e.index == i + 1 for i, e in enumerate(els))
    button = sess.accessibility.find("press me", "push button")[0]
    assert button.bounds[2] > 0 and button.center[0] > button.bounds[0]
    assert sess.accessibility.find("Press Me", exact=True)
    assert sess.accessibility.find("no such element anywhere") == []
    sess.accessibility.click("Press Me", "Button")
    until("the press", lambda: "pressed" in sess.files.read_text(home + "/gtk.log"))
    entry = [e for e in sess.accessibility.elements() if e.role == "text"][0]
    sess.accessibility.type_into("typed by name", id=entry.id)
    until("the entry's text", lambda: "entry typed by name" in sess.files.read_text(home + "/gtk.log"))
    with pytest.raises(deskrun.FailedPrecondition):
        sess.accessibility.click("No Such Button Here")
    with pytest.raises(deskrun.FailedPrecondition):
        sess.accessibility.tree()  # the session has no OSWorld routes
    sess.commands.run(["kill", pid])


def test_accessibility_tree(server: Any) -> None:
    with server.client() as c, c.sessions.create(osworld=True) as s:
        home = s.commands.run("printf %s $HOME").stdout
        s.files.upload(GTKAPP, home + "/gtkapp.py")
        s.commands.run(f"/usr/bin/python3 {home}/gtkapp.py 'Py Tree' >/dev/null 2>&1 &")
        xml = until("the tree with the button", lambda: (lambda t: t if "Press Me" in t else None)(s.accessibility.tree()), tries=1200)
        assert xml.startswith("<desktop-frame")


def test_browser(sess: Any) -> None:
    home = sess.commands.run("printf %s $HOME").stdout
    page = home + "/page.html"
    sess.files.write(page, "<html><head><title>Py Page</title></head><body><h1>Hello</h1>"
                           "<input id=q><button onclick=\"document.title='clicked'\">Go</button></body></html>")
    nav = sess.browser.navigate("file://" + page)
    assert not nav.is_error and "Hello" in nav.text
    view = sess.browser.view()
    m = re.search(r"\[(\d+)\]<button", view.text)
    assert m, view.text
    sess.browser.click(int(m.group(1)))
    assert until("the click", lambda: sess.browser.console_exec("document.title") == "clicked")
    q = re.search(r"\[(\d+)\]<input", view.text)
    assert q
    sess.browser.input("typed", int(q.group(1)))
    assert sess.browser.console_exec("document.getElementById('q').value") == "typed"
    sess.browser.press_key("End")
    sess.browser.scroll_down(to_bottom=True)
    sess.browser.scroll_up(to_top=True)
    sess.browser.console_exec("console.log('from py')")
    assert "from py" in sess.browser.console_view().text
    with pytest.raises(deskrun.FailedPrecondition):
        sess.browser.click(9999)

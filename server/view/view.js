// A small RFB 3.8 viewer: security None, 32-bit xRGB pixels, Raw and
// DesktopSize encodings, over the session's vnc WebSocket.
"use strict";
(function () {
  const q = new URLSearchParams(location.search);
  const status = document.getElementById("status");
  const canvas = document.getElementById("screen");
  const ctx = canvas.getContext("2d");
  const viewOnly = q.get("view_only") === "1";
  const wsURL = new URL("vnc", location.href);
  wsURL.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  wsURL.search = "";
  if (q.get("ticket")) wsURL.searchParams.set("ticket", q.get("ticket"));
  if (viewOnly) wsURL.searchParams.set("view_only", "1");
  const ws = new WebSocket(wsURL, ["binary"]);
  ws.binaryType = "arraybuffer";

  let buf = new Uint8Array(0);
  let state = "version";
  let width = 0, height = 0, img = null;
  let pending = null; // the update being read: {rects, rect}

  function need(n) { return buf.length >= n; }
  function take(n) { const b = buf.subarray(0, n); buf = buf.subarray(n); return b; }
  function u16(b, o) { return (b[o] << 8) | b[o + 1]; }
  function u32(b, o) { return ((b[o] << 24) >>> 0) + (b[o + 1] << 16) + (b[o + 2] << 8) + b[o + 3]; }
  function send(arr) { if (ws.readyState === 1) ws.send(new Uint8Array(arr)); }
  function be16(v) { return [(v >> 8) & 255, v & 255]; }
  function be32(v) { return [(v >>> 24) & 255, (v >> 16) & 255, (v >> 8) & 255, v & 255]; }
  function resize(w, h) {
    width = w; height = h; canvas.width = w; canvas.height = h;
    img = ctx.createImageData(w, h);
  }
  function request(incremental) { send([3, incremental ? 1 : 0, 0, 0, 0, 0, ...be16(width), ...be16(height)]); }

  function step() {
    switch (state) {
      case "version":
        if (!need(12)) return false;
        take(12); send(Array.from("RFB 003.008\n", c => c.charCodeAt(0)));
        state = "security"; return true;
      case "security": {
        if (!need(1)) return false;
        const n = buf[0]; if (!need(1 + n)) return false;
        const types = take(1 + n).subarray(1);
        if (!types.includes(1)) { fail("the server offers no security type this viewer speaks"); return false; }
        send([1]); state = "result"; return true;
      }
      case "result":
        if (!need(4)) return false;
        if (u32(take(4), 0) !== 0) { fail("refused"); return false; }
        send([1]); state = "init"; return true;
      case "init": {
        if (!need(24)) return false;
        const n = u32(buf, 20); if (!need(24 + n)) return false;
        const b = take(24 + n);
        resize(u16(b, 0), u16(b, 2));
        // 32-bit little-endian xRGB, the server's default, set explicitly.
        send([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]);
        send([2, 0, 0, 2, ...be32(0), ...be32(-223)]);
        status.textContent = new TextDecoder().decode(b.subarray(24)) + (viewOnly ? " (view only)" : "");
        request(false); state = "msg"; return true;
      }
      case "msg": {
        if (!need(1)) return false;
        const t = buf[0];
        if (t === 0) { if (!need(4)) return false; pending = { rects: u16(take(4), 2) }; state = pending.rects ? "rect" : "done"; return true; }
        if (t === 2) { take(1); return true; } // Bell
        if (t === 3) { if (!need(8)) return false; const n = u32(buf, 4); if (!need(8 + n)) return false; take(8 + n); return true; }
        fail("unknown server message " + t); return false;
      }
      case "rect": {
        if (!need(12)) return false;
        const b = buf.subarray(0, 12);
        const r = { x: u16(b, 0), y: u16(b, 2), w: u16(b, 4), h: u16(b, 6), enc: u32(b, 8) | 0 };
        if (r.enc === -223) { take(12); resize(r.w, r.h); }
        else if (r.enc === 0) {
          const n = r.w * r.h * 4; if (!need(12 + n)) return false;
          take(12); const px = take(n); const d = img.data;
          for (let j = 0; j < r.h; j++) {
            let o = ((r.y + j) * width + r.x) * 4, s = j * r.w * 4;
            for (let i = 0; i < r.w; i++, o += 4, s += 4) { d[o] = px[s + 2]; d[o + 1] = px[s + 1]; d[o + 2] = px[s]; d[o + 3] = 255; }
          }
        } else { fail("unknown encoding " + r.enc); return false; }
        if (--pending.rects === 0) state = "done";
        return true;
      }
      case "done":
        ctx.putImageData(img, 0, 0);
        document.body.dataset.frames = (+document.body.dataset.frames || 0) + 1;
        request(true); state = "msg"; return true;
    }
    return false;
  }
  function fail(msg) { status.textContent = msg; ws.close(); }

  ws.onmessage = (ev) => {
    const b = new Uint8Array(ev.data);
    const n = new Uint8Array(buf.length + b.length); n.set(buf); n.set(b, buf.length); buf = n;
    while (step()) { }
  };
  ws.onclose = (ev) => { status.textContent = "disconnected" + (ev.reason ? ": " + ev.reason : ""); };
  ws.onerror = () => { status.textContent = "connection failed"; };

  if (viewOnly) return;
  let mask = 0;
  function pos(ev) {
    const r = canvas.getBoundingClientRect();
    return [Math.max(0, Math.round((ev.clientX - r.left) * width / r.width)), Math.max(0, Math.round((ev.clientY - r.top) * height / r.height))];
  }
  function pointer(ev) { const [x, y] = pos(ev); send([5, mask, ...be16(x), ...be16(y)]); }
  const bit = [1, 2, 4]; // left, middle, right
  canvas.addEventListener("mousemove", pointer);
  canvas.addEventListener("mousedown", (ev) => { canvas.focus(); mask |= bit[ev.button] || 0; pointer(ev); ev.preventDefault(); });
  canvas.addEventListener("mouseup", (ev) => { mask &= ~(bit[ev.button] || 0); pointer(ev); ev.preventDefault(); });
  canvas.addEventListener("contextmenu", (ev) => ev.preventDefault());
  canvas.addEventListener("wheel", (ev) => {
    const b = ev.deltaY < 0 ? 8 : ev.deltaY > 0 ? 16 : ev.deltaX < 0 ? 32 : 64;
    mask |= b; pointer(ev); mask &= ~b; pointer(ev); ev.preventDefault();
  }, { passive: false });
  const keys = { Backspace: 0xff08, Tab: 0xff09, Enter: 0xff0d, Escape: 0xff1b, Delete: 0xffff, Home: 0xff50, End: 0xff57,
    PageUp: 0xff55, PageDown: 0xff56, ArrowLeft: 0xff51, ArrowUp: 0xff52, ArrowRight: 0xff53, ArrowDown: 0xff54, Insert: 0xff63,
    Shift: 0xffe1, Control: 0xffe3, Alt: 0xffe9, Meta: 0xffe7, CapsLock: 0xffe5, ContextMenu: 0xff67 };
  for (let i = 1; i <= 12; i++) keys["F" + i] = 0xffbd + i;
  function keysym(ev) {
    if (keys[ev.key]) return keys[ev.key];
    if ([...ev.key].length !== 1) return 0;
    const cp = ev.key.codePointAt(0);
    return cp < 0x100 ? cp : 0x01000000 + cp;
  }
  function key(down) {
    return (ev) => { const k = keysym(ev); if (!k) return; send([4, down ? 1 : 0, 0, 0, ...be32(k)]); ev.preventDefault(); };
  }
  canvas.addEventListener("keydown", key(true));
  canvas.addEventListener("keyup", key(false));
})();

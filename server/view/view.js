// A small RFB 3.8 viewer over the session's vnc WebSocket: security
// None, 32-bit xRGB pixels, the encodings Tight (fill, JPEG, and the
// copy and palette filters on its four zlib streams, inflated by the
// browser's DecompressionStream), CopyRect and Raw, and the DesktopSize
// pseudo-encoding. It asks for JPEG quality level 6 and compression
// level 2, as noVNC does by default.
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

  let width = 0, height = 0;

  // The socket's bytes, read in order by the protocol loop below.
  let buf = new Uint8Array(0), wanted = 0, wake = null, closed = false;
  function concat(a, b) { const n = new Uint8Array(a.length + b.length); n.set(a); n.set(b, a.length); return n; }
  async function read(n) {
    while (buf.length < n) {
      if (closed) throw new Error("closed");
      wanted = n;
      await new Promise((r) => { wake = r; });
    }
    const b = buf.subarray(0, n);
    buf = buf.subarray(n);
    return b;
  }
  async function u8() { return (await read(1))[0]; }
  function u16(b, o) { return (b[o] << 8) | b[o + 1]; }
  function u32(b, o) { return ((b[o] << 24) >>> 0) + (b[o + 1] << 16) + (b[o + 2] << 8) + b[o + 3]; }
  function send(arr) { if (ws.readyState === 1) ws.send(new Uint8Array(arr)); }
  function be16(v) { return [(v >> 8) & 255, v & 255]; }
  function be32(v) { return [(v >>> 24) & 255, (v >> 16) & 255, (v >> 8) & 255, v & 255]; }
  function resize(w, h) { width = w; height = h; canvas.width = w; canvas.height = h; }
  function request(incremental) { send([3, incremental ? 1 : 0, 0, 0, 0, 0, ...be16(width), ...be16(height)]); }

  // A persistent zlib stream of Tight: fed compressed chunks, read by
  // the exact number of bytes each rectangle holds.
  class Inflater {
    constructor() {
      const ds = new DecompressionStream("deflate");
      this.w = ds.writable.getWriter();
      this.r = ds.readable.getReader();
      this.out = new Uint8Array(0);
    }
    async inflate(data, n) {
      this.w.write(data);
      while (this.out.length < n) {
        const { value, done } = await this.r.read();
        if (done) throw new Error("zlib stream ended");
        this.out = concat(this.out, value);
      }
      const b = this.out.subarray(0, n);
      this.out = this.out.subarray(n);
      return b;
    }
  }
  let zs = [null, null, null, null];

  async function compactLen() {
    let n = 0;
    for (let i = 0; i < 3; i++) {
      const b = await u8();
      if (i === 2) return n | (b << 14);
      n |= (b & 0x7f) << (7 * i);
      if (!(b & 0x80)) break;
    }
    return n;
  }

  function put(x, y, w, h, rgb) { // rgb: a function (i) -> [r, g, b] of pixel i
    const im = ctx.createImageData(w, h), d = im.data;
    for (let i = 0, o = 0; i < w * h; i++, o += 4) { const p = rgb(i); d[o] = p[0]; d[o + 1] = p[1]; d[o + 2] = p[2]; d[o + 3] = 255; }
    ctx.putImageData(im, x, y);
  }

  async function tight(r) {
    const ctl = await u8();
    for (let i = 0; i < 4; i++) if (ctl & (1 << i)) zs[i] = null;
    const kind = ctl >> 4;
    if (kind === 8) { // fill
      const p = await read(3);
      ctx.fillStyle = "rgb(" + p[0] + "," + p[1] + "," + p[2] + ")";
      ctx.fillRect(r.x, r.y, r.w, r.h);
      return;
    }
    if (kind === 9) { // JPEG
      const data = (await read(await compactLen())).slice();
      const bmp = await createImageBitmap(new Blob([data], { type: "image/jpeg" }), { colorSpaceConversion: "none" });
      ctx.drawImage(bmp, r.x, r.y);
      bmp.close();
      return;
    }
    if (kind > 9) throw new Error("tight compression " + ctl);
    const stream = kind & 3;
    const filter = kind & 4 ? await u8() : 0;
    let pal = null, size = r.w * r.h * 3;
    if (filter === 1) {
      const n = (await u8()) + 1;
      pal = (await read(3 * n)).slice();
      size = n === 2 ? ((r.w + 7) >> 3) * r.h : r.w * r.h;
    } else if (filter !== 0) throw new Error("tight filter " + filter);
    let data;
    if (size < 12) data = (await read(size)).slice();
    else {
      const z = (await read(await compactLen())).slice();
      if (!zs[stream]) zs[stream] = new Inflater();
      data = await zs[stream].inflate(z, size);
    }
    if (!pal) { put(r.x, r.y, r.w, r.h, (i) => [data[3 * i], data[3 * i + 1], data[3 * i + 2]]); return; }
    const px = (ix) => [pal[3 * ix], pal[3 * ix + 1], pal[3 * ix + 2]];
    if (pal.length === 6) {
      const row = (r.w + 7) >> 3;
      put(r.x, r.y, r.w, r.h, (i) => { const x = i % r.w, y = (i / r.w) | 0; return px((data[y * row + (x >> 3)] >> (7 - (x & 7))) & 1); });
    } else put(r.x, r.y, r.w, r.h, (i) => px(data[i]));
  }

  async function rect() {
    const b = await read(12);
    const r = { x: u16(b, 0), y: u16(b, 2), w: u16(b, 4), h: u16(b, 6), enc: u32(b, 8) | 0 };
    switch (r.enc) {
      case -223: resize(r.w, r.h); return;
      case 0: {
        const px = await read(r.w * r.h * 4);
        put(r.x, r.y, r.w, r.h, (i) => [px[4 * i + 2], px[4 * i + 1], px[4 * i]]);
        return;
      }
      case 1: {
        const s = await read(4);
        ctx.drawImage(canvas, u16(s, 0), u16(s, 2), r.w, r.h, r.x, r.y, r.w, r.h);
        return;
      }
      case 7: await tight(r); return;
    }
    throw new Error("unknown encoding " + r.enc);
  }

  async function run() {
    await read(12);
    send(Array.from("RFB 003.008\n", (c) => c.charCodeAt(0)));
    const n = await u8();
    const types = await read(n);
    if (!types.includes(1)) throw new Error("the server offers no security type this viewer speaks");
    send([1]);
    if (u32(await read(4), 0) !== 0) throw new Error("refused");
    send([1]);
    const init = await read(24);
    resize(u16(init, 0), u16(init, 2));
    const name = new TextDecoder().decode(await read(u32(init, 20)));
    // 32-bit little-endian xRGB, the server's default, set explicitly.
    send([0, 0, 0, 0, 32, 24, 0, 1, 0, 255, 0, 255, 0, 255, 16, 8, 0, 0, 0, 0]);
    const encs = [1, 7, 0, -32 + 6, -256 + 2, -223]; // CopyRect, Tight, Raw, quality 6, compression 2, DesktopSize
    send([2, 0, ...be16(encs.length), ...encs.flatMap(be32)]);
    status.textContent = name + (viewOnly ? " (view only)" : "");
    request(false);
    for (;;) {
      const t = await u8();
      if (t === 0) {
        const h = await read(3);
        for (let i = u16(h, 1); i > 0; i--) await rect();
        document.body.dataset.frames = (+document.body.dataset.frames || 0) + 1;
        request(true);
      } else if (t === 2) { // Bell
      } else if (t === 3) { const h = await read(7); await read(u32(h, 3)); }
      else throw new Error("unknown server message " + t);
    }
  }
  function fail(msg) { status.textContent = msg; ws.close(); }

  ws.onmessage = (ev) => {
    buf = concat(buf, new Uint8Array(ev.data));
    if (wake && buf.length >= wanted) { const w = wake; wake = null; w(); }
  };
  ws.onclose = (ev) => {
    closed = true;
    if (wake) { const w = wake; wake = null; w(); }
    status.textContent = "disconnected" + (ev.reason ? ": " + ev.reason : "");
  };
  ws.onerror = () => { status.textContent = "connection failed"; };
  run().catch((e) => { if (!closed) fail(e.message); });

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

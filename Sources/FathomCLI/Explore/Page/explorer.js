// Fathom explorer: the page's view of `fathom explore` (Documentation/Explorer.md). Coordinates
// stay decimal strings (exact, any depth: `Dec`); every image comes from the server's render of
// the location the page shows, coarse first, then in full; gestures move the last image at once.
"use strict";
(() => {
  const token = new URLSearchParams(location.search).get("token") || "";
  const client = Math.random().toString(36).slice(2) + Date.now().toString(36);

  /** A decimal number of any size and depth: m * 10^e, m a BigInt. */
  class Dec {
    constructor(m, e) { this.m = m; this.e = e; }
    static parse(text) {
      const match = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(String(text).trim());
      if (!match || (match[2] === "" && !match[3])) throw new Error("not a decimal number: " + text);
      const fraction = match[3] || "";
      let m = BigInt((match[2] || "0") + fraction);
      if (match[1] === "-") m = -m;
      const e = (match[4] ? parseInt(match[4], 10) : 0) - fraction.length;
      // The engine's radii reach 1e-1000000; an exponent far past that (a hostile link) would
      // make every sum build a huge power of ten.
      if (!Number.isSafeInteger(e) || Math.abs(e) > 10000000) throw new Error("exponent out of range: " + text);
      return new Dec(m, e).normal();
    }
    static fromNumber(x) { return Dec.parse(x.toExponential(16)); }
    normal() {
      if (this.m === 0n) return new Dec(0n, 0);
      let m = this.m, e = this.e;
      while (m % 10n === 0n) { m /= 10n; e++; }
      return new Dec(m, e);
    }
    add(b) {
      if (this.e > b.e) return b.add(this);
      return new Dec(this.m + b.m * 10n ** BigInt(b.e - this.e), this.e).normal();
    }
    sub(b) { return this.add(new Dec(-b.m, b.e)); }
    mulNumber(x) { const b = Dec.fromNumber(x); return new Dec(this.m * b.m, this.e + b.e).normal(); }
    /** Drops the digits below 10^floor (toward zero). */
    trim(floor) {
      if (this.e >= floor) return this;
      return new Dec(this.m / 10n ** BigInt(floor - this.e), floor).normal();
    }
    /** Rounded toward zero to `digits` significant digits. */
    significant(digits) {
      const length = (this.m < 0n ? -this.m : this.m).toString().length;
      return length <= digits ? this : this.trim(this.e + length - digits);
    }
    /** log10 |x| (x != 0), to double precision. */
    log10() {
      const s = (this.m < 0n ? -this.m : this.m).toString(), k = Math.min(s.length, 17);
      return Math.log10(Number(s.slice(0, k))) + (s.length - k) + this.e;
    }
    /** this / b as a double (for moving an image by pixels). */
    ratio(b) {
      if (this.m === 0n) return 0;
      const sign = (this.m < 0n) !== (b.m < 0n) ? -1 : 1;
      return sign * Math.pow(10, this.log10() - b.log10());
    }
    /** Positional from 1e-9 to 1e21 (-0.75, 0.000123), else scientific (1.5e-300). */
    toString() {
      if (this.m === 0n) return "0";
      const negative = this.m < 0n, s = (negative ? -this.m : this.m).toString();
      const exponent = this.e + s.length - 1;
      let text;
      if (this.e >= 0 && exponent < 21) text = s + "0".repeat(this.e);
      else if (this.e < 0 && exponent >= 0) text = s.slice(0, s.length + this.e) + "." + s.slice(s.length + this.e);
      else if (exponent < 0 && exponent >= -9) text = "0." + "0".repeat(-exponent - 1) + s;
      else text = (s.length > 1 ? s[0] + "." + s.slice(1) : s) + "e" + exponent;
      return (negative ? "-" : "") + text;
    }
  }

  const $ = (id) => document.getElementById(id);
  const canvas = $("view"), context = canvas.getContext("2d");
  const home = { family: "mandelbrot", re: Dec.parse("-0.5"), im: Dec.parse("0"), radius: Dec.parse("1.5") };

  /** The view the page shows: location and colour. */
  let state = {
    family: "mandelbrot", power: 3, juliaRe: "-0.8", juliaIm: "0.156", newton: "z^3-1",
    re: home.re, im: home.im, radius: home.radius, iterations: 1000, autoIterations: true,
    palette: "cosine", gradient: "", smooth: true, logScale: false, rotation: 0,
  };

  /** The automatic iteration limit: more with depth (1000 at the home view). */
  function automaticIterations(radius) {
    const digits = Math.max(0, -radius.log10());
    return Math.min(100000000, Math.round(1000 + 100 * Math.pow(digits, 1.5)));
  }
  function iterations(s) { return s.autoIterations ? automaticIterations(s.radius) : s.iterations; }

  /** The location file the server renders (Documentation/Explorer.md, "The render API"). */
  function locationFile(s) {
    const file = {
      family: s.family, center: [s.re.toString(), s.im.toString()], radius: s.radius.toString(),
      maxIterations: iterations(s),
      color: { palette: s.palette, smooth: s.smooth, scale: s.logScale ? "log" : "auto" },
    };
    if (s.rotation) file.rotation = s.rotation;
    if (s.gradient) file.color.gradient = gradientStops(s.gradient);
    if (s.family === "multibrot") file.power = s.power;
    if (s.family === "julia") file.juliaC = [s.juliaRe, s.juliaIm];
    if (s.family === "newton") file.newton = s.newton;
    return file;
  }

  /** The view of a location file (an import, a preset, a minibrot): its family, center,
   * radius and iteration limit, and its colour where it gives one. */
  function fromLocationFile(file, s) {
    const next = Object.assign({}, s, {
      family: file.family, re: Dec.parse(file.center[0]), im: Dec.parse(file.center[1]),
      radius: Dec.parse(file.radius), iterations: file.maxIterations, autoIterations: false,
    });
    if (file.family === "multibrot" && file.power) next.power = file.power;
    if (file.family === "julia" && file.juliaC) { next.juliaRe = file.juliaC[0]; next.juliaIm = file.juliaC[1]; }
    if (file.family === "newton" && file.newton) next.newton = file.newton;
    next.rotation = normalAngle(typeof file.rotation === "number" ? file.rotation : 0);
    next.gradient = "";
    if (file.color) {
      if (file.color.palette) next.palette = file.color.palette;
      if (file.color.gradient && Array.isArray(file.color.gradient.stops)) next.gradient = gradientText(file.color.gradient);
      if (typeof file.color.smooth === "boolean") next.smooth = file.color.smooth;
      if (file.color.scale) next.logScale = file.color.scale === "log";
    }
    return next;
  }

  /** An angle in degrees within (-180, 180]. */
  function normalAngle(a) {
    const r = ((a % 360) + 360) % 360;
    return r > 180 ? r - 360 : r;
  }
  /** A gradient as the HUD writes it: stops `RRGGBB` (spread evenly) or `POSITION:RRGGBB`,
   * separated by spaces. Returns the location file's `{stops: [{position, color}]}`; throws
   * on a malformed stop (the server checks the rest: positions in [0, 1), none twice). */
  function gradientStops(text) {
    const parts = text.trim().split(/[\s,]+/).filter((t) => t);
    if (parts.length > 1024) throw new Error("a gradient has at most 1024 stops");
    return { stops: parts.map((part, k) => {
      const match = /^(?:([0-9.]+(?:[eE][-+]?[0-9]+)?):)?#?([0-9a-fA-F]{6})$/.exec(part);
      if (!match) throw new Error("a gradient stop is RRGGBB or POSITION:RRGGBB, not " + part);
      const v = parseInt(match[2], 16);
      const position = match[1] !== undefined ? Number(match[1]) : k / parts.length;
      if (!(position >= 0 && position < 1)) throw new Error("a stop's position lies in [0, 1): " + part);
      return { position, color: [(v >> 16) / 255, ((v >> 8) & 255) / 255, (v & 255) / 255] };
    }) };
  }
  /** A location file's gradient as the HUD's text (each stop with its position). */
  function gradientText(gradient) {
    const hex = (x) => Math.round(Math.min(1, Math.max(0, x)) * 255).toString(16).padStart(2, "0");
    return gradient.stops.map((stop) =>
      String(stop.position) + ":" + stop.color.map(hex).join("")).join(" ");
  }

  // MARK: the URL holds the view

  function toHash(s) {
    const p = new URLSearchParams();
    p.set("f", s.family);
    if (s.family === "multibrot") p.set("p", String(s.power));
    if (s.family === "julia") { p.set("jr", s.juliaRe); p.set("ji", s.juliaIm); }
    if (s.family === "newton") p.set("n", s.newton);
    p.set("re", s.re.toString()); p.set("im", s.im.toString()); p.set("r", s.radius.toString());
    p.set("it", s.autoIterations ? "auto" : String(s.iterations));
    p.set("pal", s.palette); p.set("s", s.smooth ? "1" : "0"); p.set("log", s.logScale ? "1" : "0");
    if (s.gradient) p.set("g", s.gradient);
    if (s.rotation) p.set("rot", String(s.rotation));
    return "#" + p.toString();
  }
  function fromHash(hash, s) {
    const p = new URLSearchParams(hash.replace(/^#/, ""));
    const next = Object.assign({}, s);
    try {
      if (p.has("f")) next.family = p.get("f");
      if (p.has("p")) next.power = parseInt(p.get("p"), 10);
      if (p.has("jr")) next.juliaRe = Dec.parse(p.get("jr")).toString();
      if (p.has("ji")) next.juliaIm = Dec.parse(p.get("ji")).toString();
      if (p.has("n")) next.newton = p.get("n");
      if (p.has("re")) next.re = Dec.parse(p.get("re"));
      if (p.has("im")) next.im = Dec.parse(p.get("im"));
      if (p.has("r")) next.radius = Dec.parse(p.get("r"));
      if (p.has("it")) {
        next.autoIterations = p.get("it") === "auto";
        if (!next.autoIterations) next.iterations = parseInt(p.get("it"), 10);
      }
      if (p.has("pal")) next.palette = p.get("pal");
      if (p.has("s")) next.smooth = p.get("s") === "1";
      if (p.has("log")) next.logScale = p.get("log") === "1";
      next.gradient = p.get("g") || "";
      if (next.gradient) gradientStops(next.gradient);
      const rotation = p.has("rot") ? Number(p.get("rot")) : 0;
      if (!Number.isFinite(rotation)) throw new Error("rot: a number of degrees");
      next.rotation = normalAngle(rotation);
    } catch (error) { say("the URL's view: " + error.message); return s; }
    return next;
  }
  /** When the URL last took a view: changes within a second of it (a wheel's or a pinch's
   * steps, a drag's moves) replace that history entry, so back and forward move by gestures. */
  let remembered = 0;
  function remember(push) {
    const url = location.pathname + location.search + toHash(state);
    if (url === location.pathname + location.search + location.hash) return;
    const now = performance.now();
    if (push && now - remembered > 1000) history.pushState(null, "", url); else history.replaceState(null, "", url);
    remembered = now;
    saveState();
  }

  // MARK: the server's state: the last view and the bookmarks, kept across runs

  const kept = { last: null, bookmarks: [], journal: [] };
  /** Journal entries not yet sent. */
  let unsent = [];
  let saving = 0;
  /** One change of the server's state (it writes the file atomically after each). */
  function post(path, value) {
    return fetch(path, { method: "POST", headers: { "X-Fathom-Token": token, "Content-Type": "application/json" },
      body: JSON.stringify(value) }).then((r) => { if (!r.ok) r.text().then((t) => say("not saved: " + t)); });
  }
  /** Sends the last view and the new journal entries half a second after the last change. */
  function saveState() {
    kept.last = toHash(state);
    clearTimeout(saving);
    saving = setTimeout(() => {
      post("/api/state/last", { view: kept.last });
      if (unsent.length) { post("/api/state/journal", unsent); unsent = []; }
    }, 500);
  }
  async function loadState() {
    try {
      const response = await fetch("/api/state", { headers: { "X-Fathom-Token": token } });
      if (!response.ok) return;
      const state = await response.json();
      kept.last = state.last || null;
      kept.bookmarks = Array.isArray(state.bookmarks) ? state.bookmarks : [];
      kept.journal = Array.isArray(state.journal) ? state.journal : [];
    } catch (error) { say("no saved state: " + error.message); }
    showBookmarks();
  }
  // MARK: the journal: every change of view, pans coalesced (50 ms), kept with the state

  function note() {
    if (replaying) return;
    const entry = { t: Date.now(), view: toHash(state) };
    const last = kept.journal[kept.journal.length - 1];
    if (last && last.view === entry.view) return;
    const pending = unsent[unsent.length - 1];
    if (last && entry.t - last.t < 50 && pending === last) {
      kept.journal[kept.journal.length - 1] = entry;
      unsent[unsent.length - 1] = entry;
    } else {
      kept.journal.push(entry);
      unsent.push(entry);
    }
    if (kept.journal.length > 1000) kept.journal.splice(0, kept.journal.length - 1000);
    if (unsent.length > 1000) unsent.splice(0, unsent.length - 1000);
  }

  /** 10^x times d, for any x (a journal's steps can span thousands of decades). */
  function timesPowerOfTen(d, x) {
    const whole = Math.floor(x);
    return new Dec(d.m, d.e + whole).mulNumber(Math.pow(10, x - whole)).significant(17);
  }
  /** The view a fraction f of the way from a to b: center linear, radius logarithmic. */
  function between(a, b, f) {
    return Object.assign({}, b, {
      re: a.re.add(b.re.sub(a.re).mulNumber(f)), im: a.im.add(b.im.sub(a.im).mulNumber(f)),
      radius: timesPowerOfTen(a.radius, f * (b.radius.log10() - a.radius.log10())),
      rotation: normalAngle(a.rotation + f * normalAngle(b.rotation - a.rotation)),
    });
  }
  let replaying = false;
  /** Plays the journal back in at most 30 s (its own pace when shorter, pauses cut to 1 s),
   * rendering as it goes. */
  async function replay() {
    stopAuto();
    const entries = kept.journal.slice();
    if (entries.length < 2) { say("the journal has fewer than two views"); return; }
    replaying = true;
    document.body.dataset.replayed = "";
    // The replay's clock: the journal's own, with each pause between views shortened to 1 s,
    // then sped up to fit 30 s.
    const times = [0];
    for (let k = 1; k < entries.length; k++) times.push(times[k - 1] + Math.min(1000, Math.max(0, entries[k].t - entries[k - 1].t)));
    const span = times[times.length - 1];
    const pace = span > 30000 ? 30000 / span : 1;
    const views = entries.map((e) => trimmed(fromHash(e.view, state)));
    const start = performance.now();
    let lastRender = 0;
    await new Promise((done) => {
      const frame = () => {
        const t = (performance.now() - start) * (1 / pace);
        let k = 0;
        while (k < entries.length - 2 && times[k + 1] <= t) k++;
        const gap = Math.max(1, times[k + 1] - times[k]);
        const f = Math.min(1, Math.max(0, (t - times[k]) / gap));
        if (views[k].family === views[k + 1].family) state = between(views[k], views[k + 1], f);
        else state = f < 1 ? views[k] : views[k + 1];
        draw();
        showHUD();
        if (performance.now() - lastRender > 250) { lastRender = performance.now(); render(); }
        if (t >= span) { done(); return; }
        requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    });
    state = views[views.length - 1];
    replaying = false;
    document.body.dataset.replayed = String(entries.length);
    say("replayed " + entries.length + " views in " + ((performance.now() - start) / 1000).toFixed(1) + " s");
    changed(0, true);
  }
  $("replay").addEventListener("click", replay);
  /** The journal's views as location files (keyframes, a video). */
  function journalFiles() { return kept.journal.map((e) => locationFile(fromHash(e.view, state))); }
  $("keyframes").addEventListener("click", async () => {
    const files = journalFiles();
    const response = await fetch("/api/keyframes", {
      method: "POST", headers: { "X-Fathom-Token": token, "Content-Type": "application/json" },
      body: JSON.stringify(files),
    });
    const text = await response.text();
    if (!response.ok) { say(text.trim()); return; }
    const written = JSON.parse(text);
    document.body.dataset.keyframes = written.folder;
    say(files.length + " keyframes in " + written.folder + "; render them with: " + written.command);
  });

  /** The bookmarks as a strip of thumbnails (the name alone for one kept without), newest first. */
  function showBookmarks() {
    const list = $("bookmarks");
    list.replaceChildren();
    kept.bookmarks.slice().reverse().forEach((b) => {
      // A new bookmark's thumbnail is its data URL until the page loads again; a kept one's is
      // the server's file (`/api/thumbnail`).
      const thumbnail = typeof b.thumbnail !== "string" ? null
        : b.thumbnail.startsWith("data:image/jpeg;base64,") ? b.thumbnail
        : /^[0-9A-Fa-f-]{36}\.jpg$/.test(b.thumbnail) ? "/api/thumbnail?name=" + b.thumbnail + "&token=" + token : null;
      list.append(thumbnailButton(b.name, b.name, thumbnail, () => {
        stopAuto();
        state = fromHash(b.view, state);
        remembered = 0;
        changed(0, true);
      }));
    });
  }
  /** The view as shown, at most 160x90, as a JPEG data URL. */
  function thumbnail() {
    const small = document.createElement("canvas");
    const scale = Math.min(160 / canvas.width, 90 / canvas.height);
    small.width = Math.max(1, Math.round(canvas.width * scale));
    small.height = Math.max(1, Math.round(canvas.height * scale));
    small.getContext("2d").drawImage(canvas, 0, 0, small.width, small.height);
    return small.toDataURL("image/jpeg", 0.8);
  }
  function addBookmark() {
    const digits = Math.max(0, Math.round(-state.radius.log10()));
    const name = state.family + " 1e-" + digits + " (" + state.re.toString().slice(0, 12) + ", " + state.im.toString().slice(0, 12) + ")";
    const bookmark = { name, view: toHash(state), saved: new Date().toISOString(), thumbnail: thumbnail() };
    kept.bookmarks.push(bookmark);
    showBookmarks();
    post("/api/state/bookmark", bookmark);
    say("bookmarked: " + name);
  }
  $("bookmark").addEventListener("click", addBookmark);

  // MARK: zoom to a minibrot (the server's MinibrotFinder, as fathom find)

  /** Zooms to the minibrot that dominates a disc around (x, y): the whole view's at the center
   * (as `fathom find`), half the view's radius around any other point (under the cursor). */
  async function zoomToMinibrot(x, y, share) {
    if (state.family !== "mandelbrot") { say("minibrots are found on Mandelbrot views"); return; }
    const { re, im } = pointAt(state, x, y);
    const search = Object.assign({}, state, { re, im, radius: state.radius.mulNumber(share).significant(17) });
    const number = ++viewNumber;
    say("looking for a minibrot...");
    const response = await fetch("/api/minibrot?client=" + client + "&view=" + number, {
      method: "POST", headers: { "X-Fathom-Token": token, "Content-Type": "application/json" },
      body: JSON.stringify(locationFile(search)),
    });
    if (number !== viewNumber || response.status === 409) return;
    if (!response.ok) { say((await response.text()).trim()); return; }
    state = fromLocationFile(await response.json(), state);
    document.body.dataset.minibrot = response.headers.get("X-Fathom-Period");
    say("minibrot of period " + response.headers.get("X-Fathom-Period"));
    changed(0, true);
  }
  $("minibrot").addEventListener("click", () => zoomToMinibrot(canvas.width / 2, canvas.height / 2, 1));

  // MARK: presets, import by dropping a file, export

  /** A strip's button: a thumbnail (when there is one) over a name; `open` on a click. */
  function thumbnailButton(name, title, thumbnail, open) {
    const item = document.createElement("button");
    item.type = "button";
    item.title = title;
    if (thumbnail) {
      const image = document.createElement("img");
      image.src = thumbnail;
      image.alt = "";
      item.append(image);
    }
    const label = document.createElement("span");
    label.textContent = name;
    item.append(label);
    item.addEventListener("click", open);
    return item;
  }
  /** The built-in views, each with its thumbnail (rendered when the page was built). */
  async function loadPresets() {
    try {
      const response = await fetch("/api/presets", { headers: { "X-Fathom-Token": token } });
      if (!response.ok) return;
      for (const p of await response.json()) {
        const thumbnail = typeof p.thumbnail === "string" && p.thumbnail.startsWith("data:image/jpeg;base64,") ? p.thumbnail : null;
        $("presets").append(thumbnailButton(p.name, p.name + ": " + p.summary, thumbnail, () => {
          stopAuto();
          state = fromLocationFile(p.location, state);
          shown = null;
          middle = null;
          changed(0, true);
        }));
      }
    } catch (error) { say("no presets: " + error.message); }
  }
  /** Opens a dropped file through the server's reader (JSON, .kfr or a Fathom PNG). */
  async function openFile(file) {
    if (file.size > 4 << 20) { say(file.name + ": larger than 4 MiB"); return; }
    const response = await fetch("/api/import?name=" + encodeURIComponent(file.name), {
      method: "POST", headers: { "X-Fathom-Token": token, "Content-Type": "application/octet-stream" },
      body: await file.arrayBuffer(),
    });
    if (!response.ok) { say((await response.text()).trim()); return; }
    state = fromLocationFile(await response.json(), state);
    shown = null;
    middle = null;
    say("opened " + file.name);
    changed(0, true);
  }
  window.addEventListener("dragover", (event) => { event.preventDefault(); document.body.classList.add("dropping"); });
  window.addEventListener("dragleave", () => document.body.classList.remove("dropping"));
  window.addEventListener("drop", (event) => {
    event.preventDefault();
    document.body.classList.remove("dropping");
    const file = event.dataTransfer && event.dataTransfer.files[0];
    if (file) openFile(file);
  });
  async function exportView(format) {
    const response = await fetch("/api/export?format=" + format, {
      method: "POST", headers: { "X-Fathom-Token": token, "Content-Type": "application/json" },
      body: JSON.stringify(locationFile(state)),
    });
    if (!response.ok) { say((await response.text()).trim()); return; }
    const link = document.createElement("a");
    link.href = URL.createObjectURL(await response.blob());
    link.download = "fathom-view." + format;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 1000);
  }
  // MARK: full-size renders in the background (they go on when the tab is closed)

  let polling = 0;
  async function showJobs() {
    let jobs = [];
    try {
      const response = await fetch("/api/jobs", { headers: { "X-Fathom-Token": token } });
      if (response.ok) jobs = await response.json();
    } catch (error) { return; }
    const list = $("jobs");
    list.textContent = "";
    for (const job of jobs.slice(-5)) {
      const line = document.createElement("div");
      line.className = "job";
      line.dataset.state = job.state;
      const size = job.width + "x" + job.height + (job.supersample > 1 ? " " + job.supersample + "x" + job.supersample : "") +
        (job.frames ? ", " + job.frames + " frames" : "");
      const share = job.state === "running" ? " " + Math.floor(100 * job.fraction) + "%" : "";
      line.append(job.name + " " + size + ": " + job.state + share + " " + job.seconds.toFixed(1) + " s" +
        (job.message ? " (" + job.message + ")" : ""));
      if (job.state === "done") {
        for (const kind of job.video ? ["mp4"] : job.npy ? ["png", "npy"] : ["png"]) {
          const link = document.createElement("a");
          link.href = "/api/jobs/file?id=" + job.id + "&kind=" + kind + "&token=" + token;
          link.textContent = kind;
          line.append(" ", link);
        }
      } else if (job.state === "running" || job.state === "queued") {
        const stop = document.createElement("button");
        stop.type = "button";
        stop.textContent = "cancel";
        stop.addEventListener("click", () => fetch("/api/jobs/cancel?id=" + job.id, {
          method: "POST", headers: { "X-Fathom-Token": token } }).then(showJobs));
        line.append(" ", stop);
      }
      list.append(line);
    }
    const busy = jobs.some((j) => j.state === "running" || j.state === "queued");
    clearTimeout(polling);
    if (busy) polling = setTimeout(showJobs, 1000);
  }
  $("jobStart").addEventListener("click", async () => {
    const query = "width=" + parseInt($("jobWidth").value, 10) + "&height=" + parseInt($("jobHeight").value, 10) +
      "&supersample=" + $("jobSamples").value + ($("jobDeep").checked ? "&depth=16" : "") + ($("jobNPY").checked ? "&npy=1" : "");
    const response = await fetch("/api/jobs?" + query, {
      method: "POST", headers: { "X-Fathom-Token": token, "Content-Type": "application/json" },
      body: JSON.stringify(locationFile(state)),
    });
    if (!response.ok) { say((await response.text()).trim()); return; }
    showJobs();
  });

  // The journal as a zoom video, at the full-size fields' size: a background job.
  $("video").addEventListener("click", async () => {
    // The views since the journal's last change of family (a video is of one family), at most 900.
    const all = journalFiles(), same = (a, b) => JSON.stringify([a.family, a.power, a.juliaC, a.newton]) ===
      JSON.stringify([b.family, b.power, b.juliaC, b.newton]);
    let first = all.length - 1;
    while (first > 0 && all.length - first < 900 && same(all[first - 1], all[all.length - 1])) first--;
    const files = all.slice(first);
    if (files.length < 2) { say("the journal has fewer than two views of this family"); return; }
    const query = "width=" + parseInt($("jobWidth").value, 10) + "&height=" + parseInt($("jobHeight").value, 10);
    const response = await fetch("/api/jobs/video?" + query, {
      method: "POST", headers: { "X-Fathom-Token": token, "Content-Type": "application/json" },
      body: JSON.stringify(files),
    });
    if (!response.ok) { say((await response.text()).trim()); return; }
    say("the journal's " + files.length + " views are rendering as a video (below)");
    showJobs();
  });

  $("exportJSON").addEventListener("click", () => exportView("json"));
  $("exportKFR").addEventListener("click", () => exportView("kfr"));

  // MARK: geometry (Documentation/Conventions.md: s = 2 radius / min(W, H), y up)

  function spacing(s) { return s.radius.mulNumber(2 / Math.min(canvas.width, canvas.height)); }
  /** A screen offset (u right, v up, in pixels) as the plane's: turned by the view's rotation
   * (counter-clockwise, as the engine's `Viewport.rotated`). */
  function turned(s, u, v) {
    // Quarter turns exactly (cos 90 degrees in doubles is 6e-17, which would leave digits in re).
    const quarter = s.rotation % 90 === 0 ? ((s.rotation / 90) % 4 + 4) % 4 : -1;
    const a = s.rotation * Math.PI / 180;
    const c = quarter < 0 ? Math.cos(a) : [1, 0, -1, 0][quarter], n = quarter < 0 ? Math.sin(a) : [0, 1, 0, -1][quarter];
    return [u * c - v * n, u * n + v * c];
  }
  /** The screen position in view s of a point of the plane (inverse of `pointAt`). */
  function screenOf(s, point) {
    const step = spacing(s);
    const [u, v] = turned(Object.assign({}, s, { rotation: -s.rotation }), point.re.sub(s.re).ratio(step), point.im.sub(s.im).ratio(step));
    return { x: canvas.width / 2 + u, y: canvas.height / 2 - v };
  }
  /** The plane's point under screen pixel (x, y) of view s. */
  function pointAt(s, x, y) {
    const step = spacing(s), [u, v] = turned(s, x - canvas.width / 2, canvas.height / 2 - y);
    return { re: s.re.add(step.mulNumber(u)), im: s.im.add(step.mulNumber(v)) };
  }
  /** The digits of the center that matter at this radius (24 decimal places below it). */
  function trimmed(s) {
    const floor = Math.floor(s.radius.log10()) - 24;
    return Object.assign({}, s, { re: s.re.trim(floor), im: s.im.trim(floor) });
  }
  function pan(dx, dy) {
    const step = spacing(state), [u, v] = turned(state, -dx, dy);
    state = trimmed(Object.assign({}, state, { re: state.re.add(step.mulNumber(u)), im: state.im.add(step.mulNumber(v)) }));
  }
  /** Turns the view by `degrees` (counter-clockwise) about the screen point (x, y). */
  function rotateAt(x, y, degrees) {
    const before = pointAt(state, x, y);
    state = Object.assign({}, state, { rotation: normalAngle(state.rotation + degrees) });
    const after = pointAt(state, x, y);
    state = trimmed(Object.assign({}, state, { re: state.re.add(before.re.sub(after.re)), im: state.im.add(before.im.sub(after.im)) }));
  }
  /** Zooms by `factor` (< 1: in) keeping the point under (x, y) in place. */
  function zoomAt(x, y, factor) {
    const step = spacing(state);
    const [ou, ov] = turned(state, x - canvas.width / 2, canvas.height / 2 - y);
    const radius = state.radius.mulNumber(factor).significant(17);
    if (radius.log10() < -1000000) { say("deeper than 1e-1000000 is not offered here"); return; }
    state = trimmed(Object.assign({}, state, {
      re: state.re.add(step.mulNumber(ou * (1 - factor))), im: state.im.add(step.mulNumber(ov * (1 - factor))), radius,
    }));
  }

  // MARK: drawing

  /** The last image and the view it shows; over it, the middle of a newer render at full
   * resolution while the rest of that render runs (`middle`, null when none). */
  let shown = null, middle = null;
  function draw() {
    context.fillStyle = "#000";
    context.fillRect(0, 0, canvas.width, canvas.height);
    for (const image of [shown, middle]) if (image) drawImage(image);
  }
  /** An image where its view lies in the current view: scaled by the pixel spacings, moved by
   * the centers, turned by the rotations. `image.width` x `image.height` is the size its view
   * takes on the screen at its own spacing (2 radius / the smaller of the two). */
  function drawImage(image) {
    const spacingShown = image.state.radius.mulNumber(2 / Math.min(image.width, image.height));
    const scale = spacingShown.ratio(spacing(state));
    const at = screenOf(state, image.state);
    const w = image.width * scale, h = image.height * scale;
    const turn = normalAngle(image.state.rotation - state.rotation);
    context.imageSmoothingEnabled = !image.final || Math.abs(scale - 1) > 1e-9 || turn !== 0;
    context.save();
    context.translate(at.x, at.y);
    // The plane turned counter-clockwise is the screen (y down) turned clockwise.
    context.rotate(-turn * Math.PI / 180);
    context.drawImage(image.bitmap, -w / 2, -h / 2, w, h);
    context.restore();
  }
  function resize() {
    canvas.width = Math.max(1, Math.floor(window.innerWidth));
    canvas.height = Math.max(1, Math.floor(window.innerHeight));
    draw();
  }

  // MARK: rendering: coarse first, then the full image; a newer view cancels the older

  let viewNumber = 0;
  const timing = { started: 0 };
  function say(text) { $("status").textContent = text; }
  /** The render step that shows the middle of the view at full resolution first. */
  const middleOut = "middle";
  /** Renders the view at each of `scales` in turn (a fraction of the window's size, or
   * `middleOut`): "drawn" when the last one was drawn, "superseded" when a newer view came
   * first, "failed" when the server refused or did not answer (the status line says why). */
  async function render(scales = [8, middleOut, 1]) {
    const number = ++viewNumber, s = state, width = canvas.width, height = canvas.height;
    const file = JSON.stringify(locationFile(s));
    timing.started = performance.now();
    showHUD();
    // The full image within the server's limits (4096 a side, 3840 x 2160 pixels): a larger
    // window gets a smaller image of the same view, drawn to fill it.
    const fit = Math.min(1, 4096 / width, 4096 / height, Math.sqrt(3840 * 2160 / (width * height)));
    for (const scale of scales) {
      // The `middleOut` step renders the middle of the full image alone, a fifth of its width
      // and height (centered: the same parity as the full size), as the full render renders
      // those pixels (the server's `window=`: the same references and passes). It costs a 25th
      // of the full render's pixels, so it runs only where the preview took 50 ms or more.
      if (scale === middleOut && performance.now() - timing.started < 50) continue;
      const part = scale === middleOut ? 5 : 1, pixelScale = scale === middleOut ? 1 : scale;
      const w = Math.max(1, Math.floor(width * fit / pixelScale)), h = Math.max(1, Math.floor(height * fit / pixelScale));
      let window = "", view = s, onScreen = { width, height };
      if (part > 1) {
        const cw = Math.max(1, Math.floor(w / part)), ch = Math.max(1, Math.floor(h / part));
        const pw = cw % 2 === w % 2 ? cw : cw + 1, ph = ch % 2 === h % 2 ? ch : ch + 1;
        window = "&window=" + (w - pw) / 2 + "," + (h - ph) / 2 + "," + pw + "," + ph;
        // For drawing: the window as a view of its own (its center the view's, its spacing the same).
        view = Object.assign({}, s, { radius: s.radius.mulNumber(Math.min(pw, ph) / Math.min(w, h)).significant(17) });
        onScreen = { width: pw / fit, height: ph / fit };
      }
      say((scale === 1 || part > 1 ? "rendering " : "preview ") + w + "x" + h + ", " + iterations(s) + " iterations..." +
        (part > 1 ? " (the middle first)" : ""));
      let response, polling = 0;
      if (scale === 1) polling = setInterval(() => showProgress(number, w, h), 300);
      try {
        const full = scale === 1 || part > 1 || scales.length === 1 ? "" : "&full=" + Math.floor(width * fit) + "x" + Math.floor(height * fit);
        response = await fetch("/api/render?width=" + w + "&height=" + h + full + window + "&client=" + client + "&view=" + number, {
          method: "POST", headers: { "X-Fathom-Token": token, "Content-Type": "application/json" }, body: file,
        });
      } catch (error) {
        clearInterval(polling);
        if (number === viewNumber) say("the server did not answer: " + error.message);
        return number === viewNumber ? "failed" : "superseded";
      }
      clearInterval(polling);
      if (number !== viewNumber || response.status === 409) return "superseded";
      if (!response.ok && part > 1) continue;  // the middle is a courtesy: the full image follows
      if (!response.ok) { say("refused: " + (await response.text()).trim()); return "failed"; }
      const bitmap = await createImageBitmap(await response.blob());
      if (number !== viewNumber) return "superseded";
      // The image keeps its view's size on screen whatever its resolution; the server names
      // the pixel auto-zoom heads for.
      if (part > 1) {
        // Over the preview until the full image comes; provisional like it.
        middle = { bitmap, state: view, width: onScreen.width, height: onScreen.height, final: false };
        draw();
        document.body.dataset.middle = String(number);
        continue;
      }
      const target = (response.headers.get("X-Fathom-Target") || "").split(",").map(Number);
      if (!document.body.dataset.firstImage) document.body.dataset.firstImage = performance.now().toFixed(0);
      shown = { bitmap, state: s, width, height, final: scale === 1 && fit === 1,
        target: target.length === 2 ? { x: (target[0] + 0.5) * width / w, y: (target[1] + 0.5) * height / h } : null };
      middle = null;
      draw();
      const seconds = ((performance.now() - timing.started) / 1000).toFixed(2);
      if (scale === 1) {
        say("settled " + w + "x" + h + " in " + seconds + " s (" + response.headers.get("X-Fathom-Path") + ")");
        document.body.dataset.settled = String(number);
      }
    }
    return "drawn";
  }
  /** The running render's share done and the time left, by the engine's estimate. */
  async function showProgress(number, w, h) {
    try {
      const response = await fetch("/api/progress?client=" + client, { headers: { "X-Fathom-Token": token } });
      const p = await response.json();
      if (number !== viewNumber || p.view !== number) return;
      const left = p.fraction > 0.02 ? ", about " + (p.seconds * (1 - p.fraction) / p.fraction).toFixed(1) + " s left" : "";
      say("rendering " + w + "x" + h + ": " + Math.floor(100 * p.fraction) + "% in " + p.seconds.toFixed(1) + " s" + left);
    } catch (error) { /* the render's own answer says what went wrong */ }
  }
  let pending = 0;
  /** Renders after `delay` ms without a newer change; the moved image shows at once. */
  function changed(delay, push) {
    note();
    draw();
    showHUD();
    clearTimeout(pending);
    pending = setTimeout(() => { remember(push); render(); }, delay);
  }

  // MARK: auto-zoom: toward the boundary, at a rate that adapts to the renders

  /** While auto-zoom runs: the zoom rate (decades a second), the last frame's time, whether a
   * render is under way, and how many it drew. */
  let auto = null;
  function autoZoom(on) {
    if (!on) {
      if (stopAuto()) changed(0, true);
      return;
    }
    if (auto || replaying) return;
    $("autoZoom").textContent = "stop auto-zoom";
    auto = { rate: 0.25, last: performance.now(), busy: false, drawn: 0 };
    document.body.dataset.autozoom = "0";
    requestAnimationFrame(autoStep);
  }
  /** Ends auto-zoom where it is, without a render (the caller's own change follows); whether it ran. */
  function stopAuto() {
    if (!auto) return false;
    auto = null;
    $("autoZoom").textContent = "auto-zoom";
    return true;
  }
  /** One frame: the center eases toward the shown image's target (the server's
   * `X-Fathom-Target`: the escaped pixel next to the set that took the most iterations) while the
   * radius shrinks at the current rate; one render at a time at a quarter of the window's size,
   * after which the rate is set so that the view zooms by about 2x while one image renders. */
  function autoStep(now) {
    if (!auto) return;
    const dt = Math.min(0.1, Math.max(0, (now - auto.last) / 1000));
    auto.last = now;
    const target = shown && shown.target ? pointAt(shown.state, shown.target.x, shown.target.y) : null;
    if (target) {
      // Zoom at the target, so it keeps its place on the screen, and move it a share toward
      // the middle (a third of the way in about 0.13 s); the zoom slows while the target is
      // far from the middle, and stops beyond 0.3 of the window's smaller side.
      if (state.radius.log10() - auto.rate * dt < -1000000) { say("auto-zoom stopped at 1e-1000000"); autoZoom(false); return; }
      const at = screenOf(state, target), f = 1 - Math.exp(-3 * dt);
      const away = Math.hypot(at.x - canvas.width / 2, at.y - canvas.height / 2) / (0.3 * Math.min(canvas.width, canvas.height));
      zoomAt(at.x, at.y, Math.pow(10, -auto.rate * dt * Math.max(0, 1 - away)));
      pan((canvas.width / 2 - at.x) * f, (canvas.height / 2 - at.y) * f);
    } else if (auto.drawn > 0) {
      say("nothing escapes in this view: auto-zoom stopped");
      autoZoom(false);
      return;
    }
    draw();
    showHUD();
    if (!auto.busy) {
      // One render at a time; the URL follows (the journal takes the view where auto-zoom stops).
      auto.busy = true;
      remember(false);
      const started = performance.now(), run = auto;
      render([4]).then((outcome) => {
        if (auto !== run) return;
        run.busy = false;
        if (outcome === "failed") { stopAuto(); return; }  // the status line says why
        if (outcome !== "drawn") return;
        run.drawn++;
        document.body.dataset.autozoom = String(run.drawn);
        const seconds = Math.max(0.05, (performance.now() - started) / 1000);
        run.rate = 0.7 * run.rate + 0.3 * Math.min(1.5, Math.max(0.02, Math.log10(2) / seconds));
        say("auto-zoom: radius " + state.radius.significant(4).toString() + ", " + run.rate.toFixed(2) +
          " decades/s (" + seconds.toFixed(2) + " s an image)");
      }, (error) => {
        if (auto === run) { say("auto-zoom stopped: " + error.message); stopAuto(); }
      });
    }
    requestAnimationFrame(autoStep);
  }
  $("autoZoom").addEventListener("click", () => autoZoom(!auto));

  // MARK: the HUD

  function showHUD() {
    // A text field the user is in keeps what they type (auto-zoom redraws the HUD every frame).
    const set = (id, property, value) => {
      const input = $(id);
      const typing = document.activeElement === input && input.tagName === "INPUT" && input.type !== "checkbox";
      if (!typing) input[property] = value;
    };
    set("family", "value", state.family);
    set("power", "value", state.power);
    $("powerLabel").hidden = state.family !== "multibrot";
    $("newtonLabel").hidden = state.family !== "newton";
    set("newton", "value", state.newton);
    $("juliaRow").hidden = state.family !== "julia";
    set("juliaRe", "value", state.juliaRe);
    set("juliaIm", "value", state.juliaIm);
    set("palette", "value", state.palette);
    set("gradient", "value", state.gradient);
    set("rotation", "value", String(state.rotation));
    set("smooth", "checked", state.smooth);
    set("logScale", "checked", state.logScale);
    set("autoIterations", "checked", state.autoIterations);
    set("iterations", "value", iterations(state));
    $("iterations").disabled = state.autoIterations;
    set("re", "value", state.re.toString());
    set("im", "value", state.im.toString());
    set("radius", "value", state.radius.toString());
  }
  function readHUD() {
    const next = Object.assign({}, state);
    next.family = $("family").value;
    next.power = Math.min(16, Math.max(3, parseInt($("power").value, 10) || 3));
    next.newton = $("newton").value.trim();
    next.juliaRe = Dec.parse($("juliaRe").value).toString();
    next.juliaIm = Dec.parse($("juliaIm").value).toString();
    next.palette = $("palette").value;
    next.gradient = $("gradient").value.trim().replace(/\s+/g, " ");
    if (next.gradient) gradientStops(next.gradient);
    const rotation = Number($("rotation").value);
    if (!Number.isFinite(rotation)) throw new Error("the rotation is a number of degrees");
    next.rotation = normalAngle(rotation);
    next.smooth = $("smooth").checked; next.logScale = $("logScale").checked;
    next.autoIterations = $("autoIterations").checked;
    if (!next.autoIterations) next.iterations = Math.min(1000000000, Math.max(1, parseInt($("iterations").value, 10) || 1000));
    next.re = Dec.parse($("re").value); next.im = Dec.parse($("im").value);
    next.radius = Dec.parse($("radius").value);
    if (next.radius.m <= 0n) throw new Error("the radius must be greater than zero");
    return next;
  }
  function fromHUD(event) {
    if (event) event.preventDefault();
    // The HUD is read before auto-zoom stops (its inputs hold the user's change).
    let next;
    try { next = readHUD(); } catch (error) { say(error.message); return; }
    stopAuto();
    state = next;
    shown = null;
    middle = null;
    changed(0, true);
  }
  $("hud").addEventListener("submit", fromHUD);
  for (const id of ["family", "power", "newton", "palette", "gradient", "rotation", "smooth", "logScale", "autoIterations", "iterations", "juliaRe", "juliaIm"]) {
    $(id).addEventListener("change", () => fromHUD());
  }
  $("home").addEventListener("click", () => {
    state = Object.assign({}, state, { re: home.re, im: home.im, radius: home.radius, rotation: 0 });
    changed(0, true);
  });

  /** The mouse's next gesture on the view, set by a HUD button for those without a key to
   * hold: "box" (the next drag zooms to its box, as shift-drag) or "julia" (the next click picks
   * Julia's c, as ctrl-click); null for none. */
  let mode = null;
  function setMode(next) {
    mode = next;
    $("boxMode").classList.toggle("active", mode === "box");
    $("juliaMode").classList.toggle("active", mode === "julia");
    canvas.classList.toggle("picking", mode !== null);
  }
  $("boxMode").addEventListener("click", () => setMode(mode === "box" ? null : "box"));
  $("juliaMode").addEventListener("click", () => {
    if (state.family !== "mandelbrot") { say("Julia's c is picked on a Mandelbrot view"); return; }
    setMode(mode === "julia" ? null : "julia");
    if (mode) say("click the view to open the Julia set of that c");
  });

  // MARK: gestures

  const pointers = new Map();
  let drag = null;
  canvas.addEventListener("pointerdown", (event) => {
    if (stopAuto()) changed(0, true);
    canvas.setPointerCapture(event.pointerId);
    pointers.set(event.pointerId, { x: event.offsetX, y: event.offsetY });
    if (pointers.size === 1) {
      drag = { x: event.offsetX, y: event.offsetY, x0: event.offsetX, y0: event.offsetY, box: event.shiftKey || mode === "box" };
      canvas.classList.add("dragging");
    } else {
      drag = null;  // a pinch: no drag until one finger is left, which then starts its own
      $("box").hidden = true;
    }
  });
  canvas.addEventListener("pointermove", (event) => {
    const previous = pointers.get(event.pointerId);
    if (!previous) return;
    if (pointers.size === 2) {
      // A pinch: zoom at the midpoint by the change of the fingers' distance.
      const [a, b] = [...pointers.values()];
      const before = Math.hypot(a.x - b.x, a.y - b.y), angleBefore = Math.atan2(a.y - b.y, a.x - b.x);
      pointers.set(event.pointerId, { x: event.offsetX, y: event.offsetY });
      const [c, d] = [...pointers.values()];
      const after = Math.hypot(c.x - d.x, c.y - d.y), angleAfter = Math.atan2(c.y - d.y, c.x - d.x);
      if (before > 0 && after > 0) zoomAt((c.x + d.x) / 2, (c.y + d.y) / 2, before / after);
      // A twist turns the view with the fingers (screen angles grow clockwise, y down).
      const twist = normalAngle((angleBefore - angleAfter) * 180 / Math.PI);
      if (before > 0 && after > 0 && twist !== 0) rotateAt((c.x + d.x) / 2, (c.y + d.y) / 2, -twist);
      changed(150, true);
      return;
    }
    pointers.set(event.pointerId, { x: event.offsetX, y: event.offsetY });
    if (!drag) return;
    if (drag.box) {
      const box = $("box");
      box.hidden = false;
      Object.assign(box.style, {
        left: Math.min(drag.x0, event.offsetX) + "px", top: Math.min(drag.y0, event.offsetY) + "px",
        width: Math.abs(event.offsetX - drag.x0) + "px", height: Math.abs(event.offsetY - drag.y0) + "px",
      });
      return;
    }
    pan(event.offsetX - drag.x, event.offsetY - drag.y);
    drag.x = event.offsetX; drag.y = event.offsetY;
    note();
    draw();
    showHUD();
  });
  function release(event) {
    pointers.delete(event.pointerId);
    if (pointers.size === 1 && !drag) {
      // The finger left after a pinch drags from where it is now.
      const [p] = [...pointers.values()];
      drag = { x: p.x, y: p.y, x0: p.x, y0: p.y, box: false };
      return;
    }
    if (!drag || pointers.size > 0) return;
    canvas.classList.remove("dragging");
    const d = drag;
    drag = null;
    const used = mode;
    setMode(null);
    if (d.box) {
      $("box").hidden = true;
      const w = Math.abs(event.offsetX - d.x0), h = Math.abs(event.offsetY - d.y0);
      if (w < 4 || h < 4) { if (used === "box") setMode("box"); return; }
      const cx = (event.offsetX + d.x0) / 2, cy = (event.offsetY + d.y0) / 2;
      pan(canvas.width / 2 - cx, canvas.height / 2 - cy);
      zoomAt(canvas.width / 2, canvas.height / 2, Math.max(w / canvas.width, h / canvas.height));
      changed(0, true);
    } else if ((event.ctrlKey || used === "julia") && state.family === "mandelbrot" && Math.hypot(event.offsetX - d.x0, event.offsetY - d.y0) < 3) {
      // Ctrl-click on a Mandelbrot view: the Julia set of that c (to a tenth of a pixel's digits).
      const floor = Math.floor(spacing(state).log10()) - 1, c = pointAt(state, event.offsetX, event.offsetY);
      state = Object.assign({}, state, {
        family: "julia", juliaRe: c.re.trim(floor).toString(), juliaIm: c.im.trim(floor).toString(),
        re: Dec.parse("0"), im: Dec.parse("0"), radius: Dec.parse("1.5"), rotation: 0,
      });
      shown = null;
      middle = null;
      changed(0, true);
    } else if (d.x !== d.x0 || d.y !== d.y0) {
      changed(0, true);
    }
  }
  canvas.addEventListener("pointerup", release);
  canvas.addEventListener("pointercancel", release);
  canvas.addEventListener("wheel", (event) => {
    event.preventDefault();
    stopAuto();
    const lines = event.deltaMode === 1 ? 40 : event.deltaMode === 2 ? 800 : 1;
    zoomAt(event.offsetX, event.offsetY, Math.exp(event.deltaY * lines * 0.0015));
    changed(120, true);
  }, { passive: false });
  canvas.addEventListener("dblclick", (event) => {
    pan(canvas.width / 2 - event.offsetX, canvas.height / 2 - event.offsetY);
    changed(0, true);
  });
  /** Where the pointer was last over the view (null before it came). */
  let cursor = null;
  canvas.addEventListener("pointermove", (event) => { cursor = { x: event.offsetX, y: event.offsetY }; });
  canvas.addEventListener("keydown", (event) => {
    const w = canvas.width, h = canvas.height;
    if (event.key === "a") { autoZoom(!auto); return; }
    if (stopAuto()) changed(0, true);
    if (event.key === "m") { zoomToMinibrot(cursor ? cursor.x : w / 2, cursor ? cursor.y : h / 2, 0.5); return; }
    if (event.key === "b") { addBookmark(); return; }
    if (event.key === "h") { $("hud").hidden = !$("hud").hidden; return; }
    const keys = {
      "+": () => zoomAt(w / 2, h / 2, 0.5), "=": () => zoomAt(w / 2, h / 2, 0.5), "-": () => zoomAt(w / 2, h / 2, 2),
      ArrowLeft: () => pan(w / 10, 0), ArrowRight: () => pan(-w / 10, 0),
      ArrowUp: () => pan(0, h / 10), ArrowDown: () => pan(0, -h / 10),
      "[": () => rotateAt(w / 2, h / 2, 15), "]": () => rotateAt(w / 2, h / 2, -15),
    };
    if (!keys[event.key]) return;
    event.preventDefault();
    keys[event.key]();
    changed(120, true);
  });
  const followURL = () => {
    if (location.hash === toHash(state)) return;
    state = fromHash(location.hash, state);
    remembered = 0;
    changed(0, false);
  };
  window.addEventListener("popstate", followURL);
  window.addEventListener("hashchange", followURL);
  window.addEventListener("resize", () => { resize(); changed(150, false); });

  // The page's start: the view in the URL, else the last one kept, else home.
  (async () => {
    await Promise.all([loadState(), loadPresets(), showJobs()]);
    state = fromHash(location.hash || kept.last || "", state);
    resize();
    canvas.focus();
    remember(false);
    render();
  })();
  window.fathomExplorer = { Dec, state: () => state, locationFile: () => locationFile(state), render, kept, openFile, journalFiles };
})();

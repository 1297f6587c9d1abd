/* The span waterfall: a bar per span on a time axis that zooms (drag on the minimap, buttons, an
   agent's selection), rows that collapse, and filters (semantic spans only, failed only, text). Only
   the rows in view are in the page, so 10,000 spans scroll as smoothly as ten. */
function buildWaterfall(ctx) {
  var v = ctx.v, spans = v.spans, n = spans.length, axis = Math.max(v.axis_ms || 0, 0.001);
  // rows are in depth-first order: a row's descendants are the rows up to end[row]
  var end = new Int32Array(n), inside = new Int32Array(n), start = new Float64Array(n), stop = new Float64Array(n);
  for (var i = n - 1; i >= 0; i--) {
    var s = spans[i];
    start[i] = s[F.start_ms];
    stop[i] = s[F.duration_ms] === null ? axis : s[F.start_ms] + s[F.duration_ms];
    if (end[i] < i + 1) end[i] = i + 1;
    var p = s[F.parent];
    if (p >= 0) { if (end[p] < end[i]) end[p] = end[i]; inside[p] += inside[i] + (s[F.failed] ? 1 : 0); }
  }
  var win = [0, axis], collapsed = {}, opts = { semantic: false, failed: false, text: null };
  var vis = [], depth = [], pos = new Int32Array(n), selected = -1, focusRow = -1, shown = {};

  var box = el("div", { cls: "waterfall", "data-spans": String(n) });
  box.appendChild(el("div", { cls: "legend" }, ["agent", "tool", "model", "other"].map(function (k) {
    return el("span", null, [el("span", { cls: "swatch wf-bar " + k, style: "position:static" }), k]);
  }).concat([el("span", null, [el("span", { cls: "swatch wf-bar failed", style: "position:static" }), "\u2717 failed (striped, marked \u2717)"])])));

  // -- the minimap: every span over the whole run; drag to zoom, click to move the window ----------
  var canvas = el("canvas", { cls: "wf-canvas", "aria-hidden": "true", height: "40" });
  var shadeL = el("div", { cls: "wf-shade left" }), shadeR = el("div", { cls: "wf-shade right" });
  var frame = el("div", { cls: "wf-frame" }), drag = el("div", { cls: "wf-drag", hidden: "" });
  var mini = el("div", { cls: "wf-minimap", title: "drag to zoom the axis; click to move the window there" }, [canvas, shadeL, shadeR, frame, drag]);
  var shownText = el("span", { cls: "wf-window", "aria-live": "polite" });
  var resetBtn = button("reset zoom", { cls: "wf-reset" }, function () { zoom(0, axis); });
  var controls = el("div", { cls: "wf-controls" }, [
    button("zoom in", { cls: "wf-in", "aria-label": "zoom in" }, function () { var c = (win[0] + win[1]) / 2, h = (win[1] - win[0]) / 4; zoom(c - h, c + h); }),
    button("zoom out", { cls: "wf-out", "aria-label": "zoom out" }, function () { var c = (win[0] + win[1]) / 2, h = win[1] - win[0]; zoom(c - h, c + h); }),
    resetBtn, shownText]);
  box.appendChild(el("div", { cls: "wf-head" }, [controls, mini]));
  var tickBox = el("div", { cls: "ticks" });
  box.appendChild(el("div", { cls: "wf-axis", "aria-hidden": "true" }, [el("span", { text: "span" }), tickBox]));
  var scroller = el("div", { cls: "wf-scroll", role: "listbox", "aria-label": "span waterfall, " + num(n) + " spans" });
  var spacer = el("div", { cls: "wf-spacer" });
  var empty = el("p", { cls: "empty wf-empty", hidden: "", text: "No span matches the filter." });
  scroller.appendChild(spacer);
  box.appendChild(scroller);
  box.appendChild(empty);

  function paintMinimap() {
    var w = mini.clientWidth || 600, ratio = window.devicePixelRatio || 1, h = 40;
    canvas.width = Math.round(w * ratio); canvas.height = Math.round(h * ratio);
    canvas.style.width = w + "px"; canvas.style.height = h + "px";
    var g = canvas.getContext("2d");
    if (!g) return;
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, w, h);
    var colour = { agent: "#1d4ed8", tool: "#047857", model: "#6d28d9", other: "#9ca3af" }, lane = Math.max((h - 8) / Math.max(n, 1), 0.5);
    for (var i = 0; i < n; i++) {
      g.fillStyle = colour[spans[i][F.kind]] || colour.other;
      var x0 = start[i] / axis * w, x1 = stop[i] / axis * w;
      g.fillRect(x0, i / n * (h - 8), Math.max(x1 - x0, 1), Math.max(lane, 0.5));
    }
    // each failure a red mark along the bottom, over the rest, so that none is hidden
    g.fillStyle = "#b91c1c";
    for (var j = 0; j < n; j++) if (spans[j][F.failed]) g.fillRect(Math.min(start[j] / axis * w, w - 2), h - 7, 2, 7);
  }
  function paintWindow() {
    var l = win[0] / axis * 100, r = win[1] / axis * 100;
    shadeL.style.width = l + "%"; shadeR.style.width = (100 - r) + "%";
    frame.style.left = l + "%"; frame.style.width = Math.max(r - l, 0.2) + "%";
    var whole = win[0] <= 0 && win[1] >= axis;
    resetBtn.disabled = whole;
    box.setAttribute("data-zoomed", whole ? "false" : "true");
    var width = tickBox.clientWidth || 600, count = Math.max(2, Math.min(10, Math.floor(width / (isNarrow() ? 110 : 75))));
    var t = ticks(win[0], win[1], count), span = win[1] - win[0];
    // the window's ends in the ticks' unit, a tenth of a step finer
    shownText.textContent = whole ? "whole run: " + dur(axis) : "showing " + tickLabel(win[0], t.step / 10, win[1]) +
      " \u2013 " + tickLabel(win[1], t.step / 10, win[1]) + " of " + dur(axis);
    tickBox.textContent = "";
    t.at.forEach(function (at, k) {
      var x = (at - win[0]) / span * 100;
      var edge = x < 4 ? " first" : x > 96 ? " last" : "";
      tickBox.appendChild(el("span", { cls: "tick" + edge, style: "left:" + x.toFixed(3) + "%", text: tickLabel(at, t.step, win[1]) }));
    });
    tickBox.setAttribute("data-step", String(t.step));
  }
  function zoom(a, b) {
    var least = Math.max(axis * 1e-7, 0.0005), w = Math.max(b - a, least);
    if (w >= axis) { a = 0; b = axis; } else {
      if (a < 0) { a = 0; } if (a + w > axis) a = axis - w;
      b = a + w;
    }
    if (a === win[0] && b === win[1]) return;
    win = [a, b];
    paintWindow();
    redraw();
  }
  // the window moved so that [a, b] is in it (zoomed in on it when it is wider than the window)
  function bring(a, b) {
    var w = win[1] - win[0];
    if (a >= win[0] && b <= win[1]) return;
    if (b - a > w) { var pad = (b - a) * 0.05; zoom(a - pad, b + pad); return; }
    var c = (a + b) / 2; zoom(c - w / 2, c + w / 2);
  }
  var dragFrom = null;
  function timeAt(e) { var r = mini.getBoundingClientRect(); return Math.min(Math.max((e.clientX - r.left) / r.width, 0), 1) * axis; }
  mini.addEventListener("pointerdown", function (e) {
    dragFrom = e.clientX; mini.setPointerCapture(e.pointerId);
    drag.hidden = false; drag.style.left = (timeAt(e) / axis * 100) + "%"; drag.style.width = "0";
  });
  mini.addEventListener("pointermove", function (e) {
    if (dragFrom === null) return;
    var r = mini.getBoundingClientRect(), a = Math.min(dragFrom, e.clientX) - r.left, b = Math.max(dragFrom, e.clientX) - r.left;
    drag.style.left = Math.max(a, 0) + "px"; drag.style.width = Math.max(Math.min(b, r.width) - Math.max(a, 0), 0) + "px";
  });
  mini.addEventListener("pointerup", function (e) {
    if (dragFrom === null) return;
    var r = mini.getBoundingClientRect(), from = dragFrom;
    dragFrom = null; drag.hidden = true;
    if (Math.abs(e.clientX - from) > 4) {
      var t0 = timeAt({ clientX: Math.min(from, e.clientX) }), t1 = timeAt({ clientX: Math.max(from, e.clientX) });
      zoom(t0, t1);
    } else {
      var c = (e.clientX - r.left) / r.width * axis, w = win[1] - win[0];
      zoom(c - w / 2, c + w / 2);
    }
  });

  // -- which rows are shown --------------------------------------------------------------------------
  function keep(i) {
    var s = spans[i];
    return (!opts.semantic || s[F.label] !== null) && (!opts.failed || s[F.failed]) && (!opts.text || opts.text[i] === 1);
  }
  function recompute() {
    vis = []; depth = []; pos.fill(-1);
    var stack = [], skip = 0;
    for (var i = 0; i < n; i++) {
      if (i < skip) continue;
      while (stack.length && end[stack[stack.length - 1]] <= i) stack.pop();
      if (!keep(i)) continue;
      pos[i] = vis.length; vis.push(i); depth.push(stack.length);
      if (collapsed[i]) skip = end[i];
      stack.push(i);
    }
    var most = Math.max(12, Math.floor(window.innerHeight * 0.6 / ROW));
    scroller.style.height = (Math.max(Math.min(vis.length, most), 1) * ROW + 2) + "px";
    spacer.style.height = vis.length * ROW + "px";
    scroller.setAttribute("aria-label", "span waterfall, " + num(vis.length) + " of " + num(n) + " spans shown");
    box.setAttribute("data-shown", String(vis.length));
    empty.hidden = vis.length > 0;
    redraw();
  }

  // -- the rows in view ----------------------------------------------------------------------------
  function row(i, k) {
    var s = spans[i], failed = s[F.failed], d = s[F.duration_ms], label = s[F.label] !== null ? s[F.label] : s[F.name];
    var more = "";
    if (s[F.tokens] !== null && s[F.tokens] !== undefined) more += " \u00b7 " + num(s[F.tokens]) + " tokens";
    var kids = end[i] > i + 1, folded = kids && collapsed[i];
    if (folded) more += " \u00b7 " + num(end[i] - i - 1) + " hidden" + (inside[i] ? " \u00b7 \u2717 " + num(inside[i]) + " failed inside" : "");
    var r = el("div", { cls: "wf-row" + (failed ? " failed" : ""), role: "option", tabindex: i === focusRow ? "0" : "-1",
      "data-row": String(i), "data-kind": s[F.kind], "data-failed": failed ? "true" : "false",
      "aria-selected": i === selected ? "true" : "false", style: "top:" + k * ROW + "px",
      "aria-expanded": kids ? (folded ? "false" : "true") : null,
      title: label + (label !== s[F.name] ? " (span " + s[F.name] + ")" : "") + ": " + s[F.kind] + ", " + dur(d) + (failed ? ", failed" : ""),
      "aria-label": s[F.kind] + " " + label + ", " + dur(d) + (failed ? ", failed" : "") + more });
    var cell = el("span", { cls: "wf-label", style: "padding-left:" + Math.min(depth[k], 30) * 10 + "px" });
    cell.appendChild(kids ? el("span", { cls: "wf-twisty", "aria-hidden": "true", title: folded ? "expand" : "collapse", text: folded ? "\u25b8" : "\u25be" })
      : el("span", { cls: "wf-twisty none", "aria-hidden": "true" }));
    cell.appendChild(el("span", { cls: "wf-name", text: (failed ? "\u2717 " : "") + label }));
    if (more) cell.appendChild(el("span", { cls: "wf-more", text: more }));
    r.appendChild(cell);
    var track = el("span", { cls: "wf-track" }), w = win[1] - win[0];
    var left = (start[i] - win[0]) / w * 100, right = (stop[i] - win[0]) / w * 100;
    if (right < 0 || left > 100) {
      track.appendChild(el("span", { cls: "wf-off " + (right < 0 ? "before" : "after"), text: right < 0 ? "\u25c2 earlier" : "later \u25b8" }));
    } else {
      var l = Math.max(left, -1), rr = Math.min(right, 101);
      track.appendChild(el("span", { cls: "wf-bar " + s[F.kind] + (failed ? " failed" : "") + (d === null ? " open" : ""),
        style: "left:" + l.toFixed(3) + "%;width:" + Math.max(rr - l, 0).toFixed(3) + "%" }));
      // the duration after the bar; before it when the bar ends near the right edge; inside a wide bar
      var e = Math.min(rr, 100), where;
      if (e < 85) where = "left:calc(" + e.toFixed(3) + "% + 4px)";
      else if (l > 15) where = "right:calc(" + (100 - l).toFixed(3) + "% + 4px)";
      else where = "right:calc(" + (100 - e).toFixed(3) + "% + 4px);color:#fff;font-weight:700";
      track.appendChild(el("span", { cls: "wf-dur", style: where, text: dur(d) }));
    }
    r.appendChild(track);
    return r;
  }
  function draw() {
    var top = scroller.scrollTop, h = scroller.clientHeight || 12 * ROW, m = vis.length;
    var from = Math.max(0, Math.floor(top / ROW) - OVERSCAN), to = Math.min(m, Math.ceil((top + h) / ROW) + OVERSCAN);
    var wanted = {};
    for (var k = from; k < to; k++) {
      var i = vis[k];
      wanted[i] = true;
      if (!shown[i]) { shown[i] = row(i, k); spacer.appendChild(shown[i]); }
    }
    for (var key in shown) if (!wanted[key] && document.activeElement !== shown[key]) { spacer.removeChild(shown[key]); delete shown[key]; }
  }
  function redraw() {
    var keepFocus = document.activeElement && document.activeElement.parentElement === spacer ? focusRow : -1;
    for (var key in shown) spacer.removeChild(shown[key]);
    shown = {};
    draw();
    if (keepFocus >= 0 && shown[keepFocus]) shown[keepFocus].focus({ preventScroll: true });
  }
  var pending = false;
  scroller.addEventListener("scroll", function () {
    if (pending) return; pending = true;
    requestAnimationFrame(function () { pending = false; draw(); });
  });
  // the row in view in the waterfall's own box (the page does not move)
  function scrollTo(i) {
    if (pos[i] < 0) return false;
    var top = pos[i] * ROW;
    if (top < scroller.scrollTop || top + ROW > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = Math.max(0, top - scroller.clientHeight / 3);
    draw();
    return true;
  }
  function toggle(i, open) {
    if (end[i] <= i + 1) return;
    if (open) delete collapsed[i]; else collapsed[i] = true;
    var anchor = pos[i] * ROW - scroller.scrollTop;
    recompute();
    scroller.scrollTop = Math.max(0, pos[i] * ROW - anchor);
    draw();
  }
  function moveTo(i, how) {
    if (i < 0 || i >= n || pos[i] < 0) return;
    if (shown[focusRow]) shown[focusRow].setAttribute("tabindex", "-1");
    focusRow = i; scrollTo(i);
    shown[i].setAttribute("tabindex", "0"); shown[i].focus({ preventScroll: true });
    if (how) ctx.select(null, i, how);
  }
  spacer.addEventListener("click", function (e) {
    var r = e.target.closest(".wf-row"); if (!r) return;
    var i = Number(r.getAttribute("data-row"));
    if (e.target.closest(".wf-twisty")) { toggle(i, !!collapsed[i]); return; }
    moveTo(i, "bar");
  });
  scroller.addEventListener("keydown", function (e) {
    var r = e.target.closest(".wf-row"); if (!r) return;
    var i = Number(r.getAttribute("data-row")), k = pos[i], page = Math.max(1, Math.floor(scroller.clientHeight / ROW) - 1);
    var handled = true, at = function (j) { return vis[Math.max(0, Math.min(vis.length - 1, j))]; };
    if (e.key === "ArrowDown") moveTo(at(k + 1));
    else if (e.key === "ArrowUp") moveTo(at(k - 1));
    else if (e.key === "PageDown") moveTo(at(k + page));
    else if (e.key === "PageUp") moveTo(at(k - page));
    else if (e.key === "Home") moveTo(at(0));
    else if (e.key === "End") moveTo(at(vis.length - 1));
    else if (e.key === "ArrowRight" && end[i] > i + 1 && collapsed[i]) toggle(i, true);
    else if (e.key === "ArrowLeft" && end[i] > i + 1 && !collapsed[i]) toggle(i, false);
    else if (e.key === "Enter" || e.key === " ") ctx.select(null, i, "bar-key");
    else handled = false;
    if (handled) e.preventDefault();
  });
  window.addEventListener("resize", function () { paintMinimap(); paintWindow(); });

  paintWindow();
  recompute();
  requestAnimationFrame(function () { paintMinimap(); paintWindow(); draw(); });
  return {
    elem: box,
    // mark row i selected, open the rows folded over it, and bring it into view and into the window
    select: function (i, reveal) {
      if (shown[selected]) shown[selected].setAttribute("aria-selected", "false");
      selected = i;
      if (i < 0) return;
      if (reveal) {
        var opened = false;
        for (var p = spans[i][F.parent]; p >= 0; p = spans[p][F.parent]) if (collapsed[p]) { delete collapsed[p]; opened = true; }
        if (opened) recompute();
        scrollTo(i);
        bring(start[i], stop[i]);
      }
      if (shown[focusRow] && focusRow !== i) shown[focusRow].setAttribute("tabindex", "-1");
      focusRow = i;
      if (shown[i]) { shown[i].setAttribute("aria-selected", "true"); shown[i].setAttribute("tabindex", "0"); }
    },
    // the window on the time range of rows (an agent's spans), a little wider
    zoomTo: function (rows) {
      if (!rows.length) return;
      var a = Infinity, b = -Infinity;
      rows.forEach(function (i) { a = Math.min(a, start[i]); b = Math.max(b, stop[i]); });
      var pad = Math.max((b - a) * 0.02, 0.0005);
      zoom(a - pad, b + pad);
    },
    // zoomed to the time range of rows (the agent run around row) when row's bar is a sliver
    zoomIfSliver: function (i, rows) {
      if (stop[i] - start[i] >= (win[1] - win[0]) * 0.005) return;
      this.zoomTo(rows);
    },
    zoom: zoom,
    // options: semantic (spans of records only), failed (failed spans only), text (a lower-case text)
    setOptions: function (o) {
      opts.semantic = !!o.semantic; opts.failed = !!o.failed; opts.text = null;
      if (o.text) {
        opts.text = new Uint8Array(n);
        for (var i = 0; i < n; i++) {
          var s = spans[i], label = s[F.label];
          opts.text[i] = String(s[F.name]).toLowerCase().indexOf(o.text) >= 0 || (label !== null && String(label).toLowerCase().indexOf(o.text) >= 0) ? 1 : 0;
        }
      }
      recompute();
      if (selected >= 0) scrollTo(selected);
    },
    window: function () { return win.slice(); }
  };
}

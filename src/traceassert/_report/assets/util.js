/* Shared by the page's parts: the data's field positions, elements, numbers and durations as people
   read them, and the ticks of a time axis. */
var ROW = 22, OVERSCAN = 10, SMALL_TREE = 300, TREE_FILTER_CAP = 1500, TREE_PAGE = 200, NARROW = 600;
var F = {};  // the position of each field of a waterfall row (DATA ... view.fields)
var MARK = { failed: "\u2717 failed", error: "\u2717 error", passed: "\u2713 passed", ok: "\u2713 ok",
  unknown: "? unknown", tool_failed: "\u2717 a tool failed", skipped: "\u2013 skipped", xfailed: "\u2013 xfailed", xpassed: "! xpassed" };
var BAD = { failed: true, error: true, tool_failed: true };

function el(tag, attrs, children) {
  var e = document.createElement(tag);
  if (attrs) for (var k in attrs) {
    if (attrs[k] === null || attrs[k] === undefined) continue;
    if (k === "text") e.textContent = attrs[k];
    else if (k === "cls") e.className = attrs[k];
    else e.setAttribute(k, attrs[k]);
  }
  if (children) children.forEach(function (c) { if (c) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
  return e;
}
function button(text, attrs, onclick) {
  var b = el("button", Object.assign({ type: "button", text: text }, attrs || {}));
  if (onclick) b.addEventListener("click", onclick);
  return b;
}

/* -- numbers ------------------------------------------------------------------------------------- */
// 5624743 as 5,624,743 (the same in every locale: the page reads the same everywhere)
function num(n) {
  if (n === null || n === undefined || typeof n !== "number" || !isFinite(n)) return "n/a";
  var whole = Math.round(Math.abs(n));
  return (n < 0 && whole ? "-" : "") + String(whole).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
// a number with `d` decimals and thousands separators: 3600.25 as 3,600.25
function fixed(v, d) {
  var t = v.toFixed(d), dot = t.indexOf("."), head = dot < 0 ? t : t.slice(0, dot);
  return head.replace(/\B(?=(\d{3})+(?!\d))/g, ",") + (dot < 0 ? "" : t.slice(dot));
}
function pad2(n) { return n < 10 ? "0" + n : String(n); }
// a duration in milliseconds as people read it: 0.412 ms, 12.3 ms, 1.25 s, 2m 05s, 1h 55m (as the
// view-model's labels: traceassert._report.human.seconds_text)
function dur(v) {
  if (v === null || v === undefined) return "open";
  if (typeof v !== "number" || !isFinite(v)) return "n/a";
  if (v < 1) return v.toFixed(3) + " ms";
  if (v < 1000) return v.toFixed(1) + " ms";
  var s = v / 1000;
  if (s < 60) return s.toFixed(2) + " s";
  var w = Math.round(s);
  if (w < 3600) return Math.floor(w / 60) + "m " + pad2(w % 60) + "s";
  return Math.floor(w / 3600) + "h " + pad2(Math.floor(w % 3600 / 60)) + "m";
}

/* -- a time axis --------------------------------------------------------------------------------- */
var STEPS = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500,
  1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5, 864e5];
// the ticks of the window [t0, t1] (ms from the trace's start): at most `count`, on round steps
function ticks(t0, t1, count) {
  var span = Math.max(t1 - t0, 1e-9), step = STEPS[STEPS.length - 1];
  for (var i = 0; i < STEPS.length; i++) if (span / STEPS[i] <= count) { step = STEPS[i]; break; }
  var first = Math.ceil(t0 / step - 1e-9), out = [];
  for (var k = first; k * step <= t1 + step * 1e-9 && out.length < 60; k++) out.push(k * step);
  return { step: step, at: out };
}
// one tick's label: every tick of an axis in the same unit (ms, or s; h/m/s from a second up)
function tickLabel(t, step, t1) {
  if (step >= 6e4) {
    var mins = Math.round(t / 6e4), h = Math.floor(mins / 60), m = mins % 60;
    if (!h && !m) return "0";
    return h ? h + "h" + (m ? " " + pad2(m) + "m" : "") : m + "m";
  }
  if (step >= 1e3) {
    var secs = Math.round(t / 1e3), hh = Math.floor(secs / 3600), mm = Math.floor(secs % 3600 / 60), ss = secs % 60;
    if (t1 >= 36e5) return (hh ? hh + "h " + pad2(mm) + "m " : mm + "m ") + pad2(ss) + "s";
    if (t1 >= 6e4) return mm + "m " + pad2(ss) + "s";
    return ss + " s";
  }
  if (t1 < 1e3) return fixed(t, Math.max(0, Math.ceil(-Math.log10(step) - 1e-9))) + " ms";
  var d = Math.max(0, Math.ceil(-Math.log10(step / 1e3) - 1e-9));
  if (t1 < 6e4) return fixed(t / 1e3, d) + " s";
  // deep in a long run: its minutes (and hours), then seconds to the step's decimals: 1h 54m 25.505s
  var scale = Math.pow(10, d), units = Math.round(t / 1e3 * scale), whole = Math.floor(units / scale);
  var frac = d ? "." + String(units % scale + scale).slice(1) : "";
  var h2 = Math.floor(whole / 3600), m2 = Math.floor(whole % 3600 / 60);
  return (h2 ? h2 + "h " + pad2(m2) + "m " : m2 + "m ") + pad2(whole % 60) + frac + "s";
}

// the tree node's own name (a tool's or an agent's), else its label
function nodeName(node) { return node.n !== undefined && node.n !== null ? node.n : node.t; }
function isNarrow() { return window.innerWidth < NARROW; }

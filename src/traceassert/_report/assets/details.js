/* The details panel: what is selected (a tree node, a span, or both), each value cut with its full
   text one click away; an agent's tools as chips. */
function pretty(text) {
  var head = text.replace(/^\s+/, "").charAt(0);
  if (head !== "{" && head !== "[") return text;
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
}
function valueCell(strings, cut, at) {
  var td = el("td", null, [el("span", { cls: "cut", text: typeof cut === "number" ? strings[cut] : cut })]);
  if (typeof at === "number") {
    var b = button("show full", { cls: "full", "aria-label": "show the full value" });
    b.addEventListener("click", function () {
      td.textContent = ""; td.appendChild(el("pre", { cls: "fullvalue", text: pretty(strings[at]) }));
    });
    td.appendChild(b);
  }
  return td;
}
// a key that may break after its dots and underscores (gen_ai.tool.call.arguments), not anywhere
function keyCell(key) {
  var th = el("th");
  key.split(/(?<=[._])/).forEach(function (part, i) { if (i) th.appendChild(el("wbr")); th.appendChild(document.createTextNode(part)); });
  return th;
}
// key / value rows; under 600 px the key stands above its value (CSS)
function kvTable(rows, cls, strings) {
  if (!rows.length) return el("p", { cls: "empty", text: "none" });
  var t = el("table", { cls: "kv " + cls });
  rows.forEach(function (r) { t.appendChild(el("tr", null, [keyCell(String(r[0])), valueCell(strings || [], r[1], r[2])])); });
  return t;
}

// the tools an agent run called, one chip per name (calls, failures); a chip selects the first call
// (the first failed one when some failed)
function toolChips(ctx, node, title) {
  var groups = [], by = {};
  node.c.forEach(function (c) {
    if (c.k !== "tool") return;
    var name = nodeName(c), g = by[name];
    if (!g) { g = by[name] = { name: name, calls: 0, failed: 0, first: c, bad: null }; groups.push(g); }
    g.calls++;
    if (c.s === "failed") { g.failed++; if (!g.bad) g.bad = c; }
  });
  var p = el("p", { cls: "chips" }, [el("span", { cls: "chips-title", text: title + (groups.length ? ": " : ": none") })]);
  groups.forEach(function (g) {
    var text = (g.failed ? "\u2717 " : "") + g.name + (g.calls > 1 ? " \u00d7" + num(g.calls) : "") +
      (g.failed ? " (" + num(g.failed) + " failed)" : "");
    p.appendChild(button(text, { cls: "chip" + (g.failed ? " failed" : ""), "data-tool": g.name },
      function () { ctx.select(g.bad || g.first, -1, "chip"); }));
  });
  return p;
}

function spanDetails(ctx, row) {
  var s = ctx.v.spans[row], box = el("div", { cls: "span-details" });
  box.appendChild(el("h4", { text: (s[F.failed] ? "\u2717 failed " : "") + s[F.kind] + " span: " + s[F.name] }));
  var head = [["span name", s[F.name]], ["span id", s[F.id]], ["status", s[F.status]], ["start", dur(s[F.start_ms])],
    ["duration", dur(s[F.duration_ms])]];
  if (s[F.label] !== null && s[F.label] !== undefined && s[F.label] !== s[F.name]) head.splice(1, 0, ["shown as", s[F.label]]);
  if (s[F.tokens] !== null && s[F.tokens] !== undefined) head.push(["tokens", num(s[F.tokens])]);
  box.appendChild(kvTable(head, "span-head"));
  box.appendChild(el("h5", { text: "Attributes" }));
  box.appendChild(kvTable(s[F.attributes], "attributes", ctx.v.strings));
  box.appendChild(el("h5", { text: "Events" }));
  if (!s[F.events].length) box.appendChild(el("p", { cls: "empty", text: "none" }));
  s[F.events].forEach(function (ev) {
    box.appendChild(el("p", null, [el("b", { text: ev[0] }), " at " + dur(ev[1])]));
    box.appendChild(kvTable(ev[2], "event", ctx.v.strings));
  });
  return box;
}

// the panel for a selected tree node (or none) and span row (or -1)
function showDetails(ctx, node, row) {
  var d = ctx.details;
  d.textContent = "";
  if (node) {
    d.appendChild(el("h4", { text: (node.s === "failed" ? "\u2717 failed " : "") + node.k + ": " + node.t }));
    if (node._f) d.appendChild(el("p", { cls: "inside-note", text: "\u2717 " + num(node._f) + " failed inside" }));
    d.appendChild(kvTable(node.d, "node-details", ctx.v.strings));
    if (node.k === "agent") d.appendChild(toolChips(ctx, node, "tools called"));
    if (node.sp.length > 1) {
      var p = el("p", null, ["spans: "]);
      node.sp.forEach(function (r) {
        p.appendChild(button(ctx.v.spans[r][F.name], { cls: "link" }, function () { ctx.select(node, r, "span-link"); }));
      });
      d.appendChild(p);
    }
  }
  if (row >= 0) d.appendChild(spanDetails(ctx, row));
  if (!node && row < 0) d.appendChild(el("p", { cls: "empty", text: "Select a tree node or a waterfall bar to see its details." }));
}

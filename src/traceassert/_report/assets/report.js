/* traceassert HTML report: vanilla script, no framework, no network.
   Sections are built when first opened; a tree node's children when first expanded; the waterfall
   keeps only the rows in view in the page (so 10k spans open quickly). */
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("traceassert-data").textContent);
  var ROW = 22, OVERSCAN = 8, MAX_ROWS_SHOWN = 20, SMALL_TREE = 300;
  var F = {};
  var MARK = { failed: "\u2717 failed", error: "\u2717 error", passed: "\u2713 passed", ok: "\u2713 ok",
    unknown: "? unknown", tool_failed: "\u2717 a tool failed", skipped: "\u2013 skipped", xfailed: "\u2013 xfailed", xpassed: "! xpassed" };

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
  function ms(v) {
    if (v === null || v === undefined) return "open";
    return v >= 1000 ? (v / 1000).toFixed(2) + " s" : v >= 1 ? v.toFixed(1) + " ms" : v.toFixed(3) + " ms";
  }
  // a pass rate never rounds a failure (or a pass) away: 2083 of 2084 is 99.95%, not 100.0%
  function pct(r) {
    if (r === null || r === undefined) return "n/a";
    if (r >= 1 || r <= 0) return (r >= 1 ? 100 : 0).toFixed(1) + "%";
    for (let d = 1; d < 14; d++) {
      const t = (r * 100).toFixed(d);
      if (parseFloat(t) > 0 && parseFloat(t) < 100) return t + "%";
    }
    return r < 0.5 ? ">0%" : "<100%";
  }

  /* -- summary bar ------------------------------------------------------------------------------ */
  function summary() {
    var s = DATA.summary, box = document.getElementById("summary"), items = [];
    function stat(label, value, bad) {
      items.push(el("span", { cls: "stat" + (bad ? " bad" : "") }, [label + " ", el("b", { text: String(value) })]));
    }
    if (DATA.kind === "tests") {
      stat("passed", s.passed);
      stat(s.failed ? "\u2717 failed" : "failed", s.failed, s.failed > 0);
      stat("repeated", s.repeated);
      stat("pass rate", pct(s.pass_rate));
      stat("tokens", s.tokens ? s.tokens.total : "not recorded");
      stat("slowest", s.slowest ? s.slowest.nodeid + " (" + s.slowest.seconds.toFixed(2) + " s)" : "n/a");
    } else {
      stat("traces", s.traces); stat("spans", s.spans); stat("tokens", s.tokens);
      stat(s.failed_tools ? "\u2717 failed tool executions" : "failed tool executions", s.failed_tools, s.failed_tools > 0);
    }
    items.forEach(function (i) { box.appendChild(i); });
  }

  /* -- sections --------------------------------------------------------------------------------- */
  function sections() {
    var main = document.getElementById("sections");
    main.textContent = "";
    var anyOpen = false;
    DATA.sections.forEach(function (sec, i) {
      var bad = sec.outcome === "failed" || sec.outcome === "error" || sec.outcome === "tool_failed";
      var node = el("section", { cls: "sec" + (bad ? " failed" : ""), id: "sec-" + i, "data-outcome": sec.outcome || "" });
      var body = el("div", { cls: "sec-body", id: "sec-body-" + i, hidden: "" });
      var meta = [];
      if (sec.duration_s !== null && sec.duration_s !== undefined) meta.push(sec.duration_s.toFixed(3) + " s");
      if (sec.view) meta.push(sec.view.counts.spans + " spans");
      var btn = el("button", { "aria-expanded": "false", "aria-controls": "sec-body-" + i }, [
        sec.outcome ? el("span", { cls: "outcome " + sec.outcome, text: MARK[sec.outcome] || sec.outcome }) : null,
        el("span", { cls: "sec-title", text: sec.title }),
        el("span", { cls: "sec-meta", text: meta.join(" \u00b7 ") })]);
      var built = false;
      function toggle(open) {
        if (open && !built) { built = true; buildSection(sec, body, i); }
        btn.setAttribute("aria-expanded", open ? "true" : "false");
        if (open) body.removeAttribute("hidden"); else body.setAttribute("hidden", "");
      }
      btn.addEventListener("click", function () { toggle(btn.getAttribute("aria-expanded") !== "true"); });
      node.appendChild(el("h2", null, [btn]));
      node.appendChild(body);
      main.appendChild(node);
      if (bad || (i === 0 && DATA.sections.length <= 3)) { toggle(true); anyOpen = true; }
    });
    if (!anyOpen && DATA.sections.length) main.querySelector("section.sec > h2 > button").click();
    if (!DATA.sections.length) main.appendChild(el("p", { text: "Nothing to show: no test or trace." }));
  }

  function buildSection(sec, body, i) {
    if (sec.message) body.appendChild(el("pre", { cls: "message", text: sec.message }));
    if (sec.repeat) {
      var r = sec.repeat;
      body.appendChild(el("p", { cls: "repeat", text: "repeated: " + (r.text || r.passed + " of " + r.counted + " run(s) passed (pass rate " +
        pct(r.pass_rate) + ", min_pass_rate " + pct(r.min_pass_rate) + ")") + "; runs: " + r.outcomes.join(", ") }));
    }
    if (sec.history && sec.history.length) body.appendChild(trend(sec.history));
    (sec.gates || []).forEach(function (g) { body.appendChild(el("p", { cls: "gate " + g.verdict.replace(" ", "-"), text: "gate: " + g.text })); });
    if (sec.scores && sec.scores.length) body.appendChild(scoresTable(sec.scores));
    if (sec.coverage) body.appendChild(coverageBlock(sec.coverage));
    if (sec.tokens) body.appendChild(el("p", { text: "tokens: " + sec.tokens.total + " (input " + sec.tokens.input +
      ", output " + sec.tokens.output + ") in " + sec.tokens.model_calls + " model call(s)" }));
    var v = sec.view;
    if (!v) { body.appendChild(el("p", { cls: "muted", text: "No spans captured for this test." })); return; }
    var c = v.counts;
    body.appendChild(el("p", { cls: "muted", text: c.spans + " spans, " + c.agent_invocations + " agent invocation(s), " +
      c.tool_executions + " tool execution(s) (" + c.failed_tool_executions + " failed), " + c.model_calls +
      " model call(s)" + (c.tokens !== null ? ", " + c.tokens + " tokens" : "") }));
    var details = el("div", { cls: "pane details", role: "region", "aria-label": "details", "aria-live": "polite" },
      [el("p", { cls: "empty", text: "Select a tree node or a waterfall bar to see its details." })]);
    var ctx = { v: v, details: details, i: i };
    var treePane = el("div", { cls: "pane tree-pane" });
    treePane.appendChild(buildTree(ctx));
    body.appendChild(el("h3", { text: "Invocation tree" }));
    body.appendChild(el("div", { cls: "panes" }, [treePane, details]));
    body.appendChild(el("h3", { text: "Span waterfall" }));
    body.appendChild(buildWaterfall(ctx));
    if (v.agents.length) { body.appendChild(el("h3", { text: "Per agent" })); body.appendChild(agentsTable(v.agents)); }
  }

  /* what no check examined, and the checks that passed vacuously (Coverage.to_dict) */
  function coverageBlock(c) {
    var seen = 0, total = 0;
    Object.keys(c.totals || {}).forEach(function (k) { seen += c.totals[k][0]; total += c.totals[k][1]; });
    var box = el("div", { cls: "coverage" }, [el("p", { text: "coverage: " + seen + " of " + total +
      " records examined by " + c.checks + " check(s)" })]);
    var missed = c.not_examined || [], vacuous = c.vacuous || [];
    if (missed.length) box.appendChild(el("ul", { cls: "not-examined", "aria-label": "not examined" },
      missed.map(function (r) { return el("li", { text: "not examined: " + r.kind + " " + r.text }); })));
    if (vacuous.length) box.appendChild(el("ul", { cls: "vacuous", "aria-label": "vacuous checks" },
      vacuous.map(function (v) { return el("li", { text: "vacuous: " + v.where + " " + v.check + ": " + v.why }); })));
    return box;
  }

  // the test's latest verdicts, oldest first: one bar per session, as high as its pass rate
  function trend(history) {
    var box = el("p", { cls: "trend", title: "latest sessions, oldest first" }, ["history: "]);
    history.forEach(function (h) {
      var rate = h.pass_rate === null || h.pass_rate === undefined ? (h.outcome === "passed" ? 1 : 0) : h.pass_rate;
      box.appendChild(el("span", { cls: "bar " + (h.outcome || ""), style: "height:" + Math.round(4 + 12 * rate) + "px",
        title: (h.outcome || "") + (h.pass_rate !== null && h.runs ? " (" + pct(h.pass_rate) + " of " + h.runs + " runs)" : "") + (h.revision ? " @ " + h.revision.slice(0, 12) : "") }));
    });
    return box;
  }

  function scoresTable(scores) {
    var t = el("table", { cls: "scores" }, [el("tr", null, ["score", "value", "passed", "run"].map(function (h) { return el("th", { text: h }); }))]);
    scores.forEach(function (s) {
      t.appendChild(el("tr", null, [el("td", { text: s.name }), el("td", { text: JSON.stringify(s.value) }),
        el("td", { text: s.passed === null || s.passed === undefined ? "" : s.passed ? "\u2713 yes" : "\u2717 no" }),
        el("td", { text: s.run === undefined ? "" : String(s.run) })]));
    });
    return t;
  }

  function agentsTable(rows) {
    var t = el("table", { cls: "agents" }, [el("tr", null, ["agent", "runs", "failed", "model calls", "tokens (own calls)", "time"].map(function (h) { return el("th", { text: h }); }))]);
    rows.forEach(function (a) {
      t.appendChild(el("tr", null, [el("td", { text: a.agent }), el("td", { cls: "num", text: String(a.runs) }),
        el("td", { cls: "num", text: a.failed ? "\u2717 " + a.failed : "0" }), el("td", { cls: "num", text: String(a.model_calls) }),
        el("td", { cls: "num", text: a.tokens === null ? "not recorded" : String(a.tokens) }), el("td", { cls: "num", text: a.seconds.toFixed(3) + " s" })]));
    });
    return t;
  }

  /* -- details panel ---------------------------------------------------------------------------- */
  function pretty(text) {
    var head = text.replace(/^\s+/, "").charAt(0);
    if (head !== "{" && head !== "[") return text;
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
  }
  function valueCell(strings, cut, at) {
    var td = el("td", null, [el("span", { cls: "cut", text: typeof cut === "number" ? strings[cut] : cut })]);
    if (typeof at === "number") {
      var b = el("button", { cls: "full", type: "button", text: "show full", "aria-label": "show the full value" });
      b.addEventListener("click", function () {
        td.textContent = ""; td.appendChild(el("pre", { cls: "fullvalue", text: pretty(strings[at]) }));
      });
      td.appendChild(b);
    }
    return td;
  }
  function kvTable(rows, cls, strings) {
    if (!rows.length) return el("p", { cls: "empty", text: "none" });
    var t = el("table", { cls: cls });
    rows.forEach(function (r) { t.appendChild(el("tr", null, [el("th", { text: r[0] }), valueCell(strings || [], r[1], r[2])])); });
    return t;
  }
  function showSpan(ctx, row) {
    var s = ctx.v.spans[row], d = ctx.details;
    d.textContent = "";
    d.appendChild(el("h4", { text: (s[F.failed] ? "\u2717 failed " : "") + s[F.kind] + " span: " + s[F.name] }));
    d.appendChild(kvTable([["span id", s[F.id]], ["status", s[F.status]], ["start", ms(s[F.start_ms])],
      ["duration", ms(s[F.duration_ms])]], "span-head"));
    d.appendChild(el("h3", { text: "Attributes" }));
    d.appendChild(kvTable(s[F.attributes], "attributes", ctx.v.strings));
    d.appendChild(el("h3", { text: "Events" }));
    if (!s[F.events].length) d.appendChild(el("p", { cls: "empty", text: "none" }));
    s[F.events].forEach(function (ev) {
      d.appendChild(el("p", null, [el("b", { text: ev[0] }), " at " + ms(ev[1])]));
      d.appendChild(kvTable(ev[2], "event", ctx.v.strings));
    });
    ctx.selectRow(row);
  }
  function showNode(ctx, node) {
    var d = ctx.details;
    d.textContent = "";
    d.appendChild(el("h4", { text: (node.s === "failed" ? "\u2717 failed " : "") + node.k + ": " + node.t }));
    d.appendChild(kvTable(node.d, "node-details", ctx.v.strings));
    if (node.sp.length) {
      var p = el("p", null, ["spans: "]);
      node.sp.forEach(function (row) {
        var b = el("button", { cls: "link", type: "button", text: ctx.v.spans[row][F.name] });
        b.addEventListener("click", function () { ctx.scrollTo(row); showSpan(ctx, row); });
        p.appendChild(b);
      });
      d.appendChild(p);
      ctx.scrollTo(node.sp[0]); ctx.selectRow(node.sp[0]);
    }
  }

  /* -- invocation tree (ARIA tree; children built on first expand) ------------------------------ */
  function buildTree(ctx) {
    var tree = el("ul", { role: "tree", "aria-label": "invocation tree" });
    var current = null;
    function item(node, level) {
      var kids = node.c.length > 0;
      var li = el("li", { role: "treeitem", tabindex: "-1", "aria-level": String(level), "aria-selected": "false",
        "data-kind": node.k, "data-state": node.s || "" });
      if (kids) li.setAttribute("aria-expanded", "false");
      li._node = node; li._level = level;
      li.appendChild(el("div", { cls: "node" }, [el("span", { cls: "twisty", "aria-hidden": "true", text: kids ? "\u25b8" : "" }),
        el("span", { cls: "kind " + node.k, text: node.k }), el("span", { cls: "label", text: node.t }),
        node.s && node.k !== "agent" || node.s === "failed" ? el("span", { cls: "state " + node.s, text: MARK[node.s] }) : null]));
      return li;
    }
    function expand(li, open) {
      if (!li.hasAttribute("aria-expanded")) return;
      var group = li.querySelector(":scope > ul");
      if (open && !group) {
        group = el("ul", { role: "group" });
        li._node.c.forEach(function (n) { group.appendChild(item(n, li._level + 1)); });
        li.appendChild(group);
      }
      if (group) group.hidden = !open;
      li.setAttribute("aria-expanded", open ? "true" : "false");
      li.querySelector(":scope > .node > .twisty").textContent = open ? "\u25be" : "\u25b8";
    }
    function focus(li) {
      if (!li) return;
      if (current) { current.setAttribute("tabindex", "-1"); current.setAttribute("aria-selected", "false"); }
      current = li; li.setAttribute("tabindex", "0"); li.setAttribute("aria-selected", "true"); li.focus();
      showNode(ctx, li._node);
    }
    function visible() {
      return Array.prototype.filter.call(tree.querySelectorAll("li[role=treeitem]"), function (li) { return li.offsetParent !== null; });
    }
    ctx.v.tree.forEach(function (n) { tree.appendChild(item(n, 1)); });
    // a small tree opens whole; in a big one the first ten agents open, the rest is built when opened
    var count = 0, stack = ctx.v.tree.slice();
    while (stack.length && count <= SMALL_TREE) { var n = stack.pop(); count++; stack.push.apply(stack, n.c); }
    if (count <= SMALL_TREE) {
      var open = Array.prototype.slice.call(tree.children);
      while (open.length) {
        var li = open.shift();
        expand(li, true);
        var group = li.querySelector(":scope > ul");
        if (group) open.push.apply(open, group.children);
      }
    } else {
      Array.prototype.filter.call(tree.children, function (li) { return li._node.k === "agent"; })
        .slice(0, 10).forEach(function (li) { expand(li, true); });
    }
    var first = tree.querySelector("li[role=treeitem]");
    if (first) { first.setAttribute("tabindex", "0"); current = first; }
    tree.addEventListener("click", function (e) {
      var li = e.target.closest("li[role=treeitem]");
      if (!li) return;
      if (e.target.closest(".twisty") || li === current) expand(li, li.getAttribute("aria-expanded") !== "true");
      focus(li);
    });
    tree.addEventListener("keydown", function (e) {
      var li = e.target.closest("li[role=treeitem]"); if (!li) return;
      var items = visible(), at = items.indexOf(li), open = li.getAttribute("aria-expanded");
      var handled = true;
      if (e.key === "ArrowDown") focus(items[at + 1]);
      else if (e.key === "ArrowUp") focus(items[at - 1]);
      else if (e.key === "Home") focus(items[0]);
      else if (e.key === "End") focus(items[items.length - 1]);
      else if (e.key === "ArrowRight") { if (open === "false") expand(li, true); else if (open === "true") focus(visible()[at + 1]); }
      else if (e.key === "ArrowLeft") { if (open === "true") expand(li, false); else focus(li.parentElement.closest("li[role=treeitem]")); }
      else if (e.key === "Enter" || e.key === " ") { if (open !== null) expand(li, open !== "true"); focus(li); }
      else handled = false;
      if (handled) e.preventDefault();
    });
    return tree;
  }

  /* -- span waterfall (only the rows in view are in the page) ------------------------------------ */
  function buildWaterfall(ctx) {
    var v = ctx.v, spans = v.spans, n = spans.length, axis = v.axis_ms || 1;
    var box = el("div", { cls: "waterfall", "data-spans": String(n) });
    box.appendChild(el("div", { cls: "legend" }, ["agent", "tool", "model", "other"].map(function (k) {
      return el("span", null, [el("span", { cls: "swatch wf-bar " + k, style: "position:static" }), k]);
    }).concat([el("span", null, [el("span", { cls: "swatch wf-bar failed", style: "position:static" }), "\u2717 failed (striped, marked \u2717)"])])));
    box.appendChild(el("div", { cls: "wf-axis", "aria-hidden": "true" }, [el("span", { text: "span" }),
      el("span", { cls: "ticks" }, [0, 0.25, 0.5, 0.75, 1].map(function (f) { return el("span", { text: ms(axis * f) }); }))]));
    var scroller = el("div", { cls: "wf-scroll", role: "listbox", "aria-label": "span waterfall, " + n + " spans",
      style: "height:" + (Math.min(n, MAX_ROWS_SHOWN) * ROW + 2) + "px" });
    var spacer = el("div", { cls: "wf-spacer", style: "height:" + n * ROW + "px" });
    scroller.appendChild(spacer);
    box.appendChild(scroller);
    var selected = -1, focusRow = 0, shown = {};
    function row(i) {
      var s = spans[i], failed = s[F.failed], start = s[F.start_ms], dur = s[F.duration_ms];
      var left = start / axis * 100, width = (dur === null ? axis - start : dur) / axis * 100;
      var label = (failed ? "\u2717 " : "") + s[F.name];
      var r = el("div", { cls: "wf-row" + (failed ? " failed" : ""), role: "option", tabindex: i === focusRow ? "0" : "-1",
        "data-row": String(i), "data-kind": s[F.kind], "data-failed": failed ? "true" : "false",
        "aria-selected": i === selected ? "true" : "false", style: "top:" + i * ROW + "px",
        title: s[F.name] + " (" + s[F.kind] + ", " + ms(dur) + (failed ? ", failed" : "") + ")",
        "aria-label": s[F.kind] + " " + s[F.name] + ", " + ms(dur) + (failed ? ", failed" : "") });
      r.appendChild(el("span", { cls: "wf-label", style: "padding-left:" + Math.min(s[F.depth], 30) * 10 + "px", text: label }));
      var track = el("span", { cls: "wf-track" });
      track.appendChild(el("span", { cls: "wf-bar " + s[F.kind] + (failed ? " failed" : "") + (dur === null ? " open" : ""),
        style: "left:" + left.toFixed(3) + "%;width:" + Math.max(width, 0).toFixed(3) + "%" }));
      // the duration after the bar; before it when the bar ends near the right edge; inside a wide bar
      var end = Math.min(left + width, 100), where;
      if (end < 85) where = "left:calc(" + end.toFixed(3) + "% + 4px)";
      else if (left > 15) where = "right:calc(" + (100 - left).toFixed(3) + "% + 4px)";
      else where = "right:calc(" + (100 - end).toFixed(3) + "% + 4px);color:#fff;font-weight:700";
      track.appendChild(el("span", { cls: "wf-dur", style: where, text: ms(dur) }));
      r.appendChild(track);
      return r;
    }
    function draw() {
      var top = scroller.scrollTop, h = scroller.clientHeight || MAX_ROWS_SHOWN * ROW;
      var from = Math.max(0, Math.floor(top / ROW) - OVERSCAN), to = Math.min(n, Math.ceil((top + h) / ROW) + OVERSCAN);
      var keep = {};
      for (var i = from; i < to; i++) {
        keep[i] = true;
        if (!shown[i]) { shown[i] = row(i); spacer.appendChild(shown[i]); }
      }
      for (var k in shown) if (!keep[k] && document.activeElement !== shown[k]) { spacer.removeChild(shown[k]); delete shown[k]; }
    }
    var pending = false;
    scroller.addEventListener("scroll", function () {
      if (pending) return; pending = true;
      requestAnimationFrame(function () { pending = false; draw(); });
    });
    ctx.scrollTo = function (i) {
      var top = i * ROW;
      if (top < scroller.scrollTop || top + ROW > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = Math.max(0, top - ROW * 3);
      draw();
    };
    ctx.selectRow = function (i) {
      if (shown[selected]) shown[selected].setAttribute("aria-selected", "false");
      selected = i;
      if (shown[i]) shown[i].setAttribute("aria-selected", "true");
    };
    function moveTo(i) {
      if (i < 0 || i >= n) return;
      if (shown[focusRow]) shown[focusRow].setAttribute("tabindex", "-1");
      focusRow = i; ctx.scrollTo(i);
      shown[i].setAttribute("tabindex", "0"); shown[i].focus();
    }
    spacer.addEventListener("click", function (e) {
      var r = e.target.closest(".wf-row"); if (!r) return;
      var i = Number(r.getAttribute("data-row"));
      moveTo(i); showSpan(ctx, i);
    });
    scroller.addEventListener("keydown", function (e) {
      var r = e.target.closest(".wf-row"); if (!r) return;
      var i = Number(r.getAttribute("data-row")), page = Math.max(1, Math.floor(scroller.clientHeight / ROW) - 1);
      var handled = true;
      if (e.key === "ArrowDown") moveTo(i + 1);
      else if (e.key === "ArrowUp") moveTo(i - 1);
      else if (e.key === "PageDown") moveTo(Math.min(n - 1, i + page));
      else if (e.key === "PageUp") moveTo(Math.max(0, i - page));
      else if (e.key === "Home") moveTo(0);
      else if (e.key === "End") moveTo(n - 1);
      else if (e.key === "Enter" || e.key === " ") showSpan(ctx, i);
      else handled = false;
      if (handled) e.preventDefault();
    });
    requestAnimationFrame(draw);
    draw();
    return box;
  }

  function start() {
    (DATA.sections.find(function (s) { return s.view; }) || { view: { fields: [] } }).view.fields.forEach(function (f, i) { F[f] = i; });
    summary();
    sections();
    document.body.setAttribute("data-ready", "true");
  }
  start();
})();

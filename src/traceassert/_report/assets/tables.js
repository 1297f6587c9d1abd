/* Tables: sortable by a click on a column's header, each in a box of its own that scrolls sideways
   on a narrow screen (the page itself never does). */

// columns: [{ label, value(row) -> what sorts, text(row) -> a string or an element, num: right-aligned }]
function sortableTable(cls, caption, columns, rows) {
  var table = el("table", { cls: "sortable " + cls });
  if (caption) table.appendChild(el("caption", { text: caption }));
  var head = el("tr"), body = el("tbody"), order = rows.slice(), sortedBy = -1, descending = false;
  columns.forEach(function (c, i) {
    var th = el("th", { scope: "col", cls: c.num ? "num" : null, "aria-sort": "none" });
    th.appendChild(button(c.label, { cls: "sort", title: "sort by " + c.label }, function () { sortBy(i); }));
    head.appendChild(th);
  });
  table.appendChild(el("thead", null, [head]));
  table.appendChild(body);
  function fill() {
    body.textContent = "";
    order.forEach(function (r) {
      body.appendChild(el("tr", { cls: r._bad ? "bad" : null }, columns.map(function (c) {
        var shown = c.text(r);
        return el("td", { cls: c.num ? "num" : null }, [typeof shown === "string" ? shown : shown]);
      })));
    });
  }
  function sortBy(i) {
    descending = sortedBy === i ? !descending : !!columns[i].desc;
    sortedBy = i;
    var value = columns[i].value;
    order = rows.map(function (r, at) { return [value(r), at, r]; });
    order.sort(function (a, b) {
      var x = a[0], y = b[0], missing = (x === null || x === undefined) - (y === null || y === undefined);
      if (missing) return missing;  // no value last, whichever the direction
      var c = x < y ? -1 : x > y ? 1 : 0;
      return (descending ? -c : c) || a[1] - b[1];
    });
    order = order.map(function (p) { return p[2]; });
    Array.prototype.forEach.call(head.children, function (th, k) {
      th.setAttribute("aria-sort", k === i ? (descending ? "descending" : "ascending") : "none");
    });
    fill();
  }
  fill();
  return el("div", { cls: "table-box" }, [table]);
}

var OUTCOME_RANK = { failed: 0, error: 0, tool_failed: 1, xpassed: 2, passed: 3, xfailed: 4, skipped: 5 };

// every test (or trace) of the page: outcome, duration, tokens, failures; failed first
function overviewTable(go) {
  var rows = DATA.sections.map(function (sec, i) {
    var v = sec.view;
    return { i: i, sec: sec, _bad: !!BAD[sec.outcome], tokens: sec.tokens ? sec.tokens.total : v ? v.counts.tokens : null,
      spans: v ? v.counts.spans : null, failures: sec._failures ? sec._failures.length : 0 };
  });
  var what = DATA.kind === "tests" ? "test" : "trace";
  return sortableTable("overview", null, [
    { label: "outcome", value: function (r) { var k = OUTCOME_RANK[r.sec.outcome]; return k === undefined ? 6 : k; },
      text: function (r) { return el("span", { cls: "outcome " + (r.sec.outcome || ""), text: MARK[r.sec.outcome] || r.sec.outcome || "\u2013" }); } },
    { label: what, value: function (r) { return String(r.sec.title); },
      text: function (r) {
        var a = el("a", { href: "#sec-" + r.i, cls: "sec-link", text: r.sec.title });
        a.addEventListener("click", function (e) { e.preventDefault(); go(r.i); });
        return a;
      } },
    { label: "duration", num: true, desc: true, value: function (r) { return r.sec.duration_s; },
      text: function (r) { return r.sec.duration_s === null || r.sec.duration_s === undefined ? "n/a" : dur(r.sec.duration_s * 1000); } },
    { label: "tokens", num: true, desc: true, value: function (r) { return r.tokens; },
      text: function (r) { return r.tokens === null || r.tokens === undefined ? "not recorded" : num(r.tokens); } },
    { label: "spans", num: true, desc: true, value: function (r) { return r.spans; }, text: function (r) { return r.spans === null ? "none" : num(r.spans); } },
    { label: "failures in the run", num: true, desc: true, value: function (r) { return r.failures; },
      text: function (r) { return r.failures ? "\u2717 " + num(r.failures) : "0"; } }
  ], rows);
}

function agentsTable(rows) {
  rows.forEach(function (a) { a._bad = a.failed > 0 || a.failed_tools > 0; });
  var tokens = function (v) { return v === null || v === undefined ? "not recorded" : num(v); };
  return sortableTable("agents", "Tokens, own calls: the agent's own model calls. Tokens, with nested: each run as the tree " +
    "shows it (tokens=), the agents it ran included; the difference is what its nested agents used. Time: in its runs, " +
    "nested agents included.", [
    { label: "agent", value: function (a) { return a.agent; }, text: function (a) { return a.agent; } },
    { label: "runs", num: true, desc: true, value: function (a) { return a.runs; }, text: function (a) { return num(a.runs); } },
    { label: "failed runs", num: true, desc: true, value: function (a) { return a.failed; },
      text: function (a) { return a.failed ? "\u2717 " + num(a.failed) : "0"; } },
    { label: "failed tools", num: true, desc: true, value: function (a) { return a.failed_tools; },
      text: function (a) { return a.failed_tools ? "\u2717 " + num(a.failed_tools) : "0"; } },
    { label: "model calls", num: true, desc: true, value: function (a) { return a.model_calls; }, text: function (a) { return num(a.model_calls); } },
    { label: "tokens, own calls", num: true, desc: true, value: function (a) { return a.tokens; }, text: function (a) { return tokens(a.tokens); } },
    { label: "tokens, with nested", num: true, desc: true, value: function (a) { return a.tokens_nested; },
      text: function (a) { return tokens(a.tokens_nested); } },
    { label: "time", num: true, desc: true, value: function (a) { return a.seconds; }, text: function (a) { return dur(a.seconds * 1000); } }
  ], rows);
}

function toolsTable(rows) {
  rows.forEach(function (t) { t._bad = t.failed > 0; });
  return sortableTable("tools", null, [
    { label: "tool", value: function (t) { return t.tool; }, text: function (t) { return t.tool; } },
    { label: "calls", num: true, desc: true, value: function (t) { return t.calls; }, text: function (t) { return num(t.calls); } },
    { label: "failed", num: true, desc: true, value: function (t) { return t.failed; },
      text: function (t) { return (t.failed ? "\u2717 " + num(t.failed) : "0") + (t.unknown ? " (" + num(t.unknown) + " unknown)" : ""); } },
    { label: "p50", num: true, desc: true, value: function (t) { return t.p50_ms; }, text: function (t) { return t.p50_ms === null ? "n/a" : dur(t.p50_ms); } },
    { label: "max", num: true, desc: true, value: function (t) { return t.max_ms; }, text: function (t) { return t.max_ms === null ? "n/a" : dur(t.max_ms); } }
  ], rows);
}

function scoresTable(scores) {
  var t = el("table", { cls: "scores" }, [el("tr", null, ["score", "value", "passed", "run"].map(function (h) { return el("th", { text: h }); }))]);
  scores.forEach(function (s) {
    t.appendChild(el("tr", null, [el("td", { text: s.name }), el("td", { text: JSON.stringify(s.value) }),
      el("td", { text: s.passed === null || s.passed === undefined ? "" : s.passed ? "\u2713 yes" : "\u2717 no" }),
      el("td", { text: s.run === undefined ? "" : String(s.run) })]));
  });
  return el("div", { cls: "table-box" }, [t]);
}

/* what no check examined, and the checks that passed vacuously (Coverage.to_dict) */
function coverageBlock(c) {
  var seen = 0, total = 0;
  Object.keys(c.totals || {}).forEach(function (k) { seen += c.totals[k][0]; total += c.totals[k][1]; });
  var box = el("div", { cls: "coverage" }, [el("p", { text: "coverage: " + num(seen) + " of " + num(total) +
    " records examined by " + num(c.checks) + " check(s)" })]);
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

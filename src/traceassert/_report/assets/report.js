/* traceassert HTML report: vanilla script, no framework, no network. Sections are built when first
   opened; a tree node's children when first expanded; the waterfall keeps only the rows in view in the
   page (so 10k spans open quickly). One selection is shared by the tree, the waterfall and the details
   panel, and written into the address (#sec-N/span/ID) so that a link points at it. */
var DATA = JSON.parse(document.getElementById("traceassert-data").textContent);
var SECTIONS = [];  // per section: { open(), ctx (once built) }

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

/* -- summary bar and session overview ------------------------------------------------------------ */
function summary() {
  var s = DATA.summary, box = document.getElementById("summary"), items = [];
  function stat(label, value, bad) {
    items.push(el("span", { cls: "stat" + (bad ? " bad" : "") }, [label + " ", el("b", { text: String(value) })]));
  }
  if (DATA.kind === "tests") {
    stat("passed", num(s.passed));
    stat(s.failed ? "\u2717 failed" : "failed", num(s.failed), s.failed > 0);
    stat("repeated", num(s.repeated));
    stat("pass rate", pct(s.pass_rate));
    stat("tokens", s.tokens ? num(s.tokens.total) : "not recorded");
    stat("slowest", s.slowest ? s.slowest.nodeid + " (" + dur(s.slowest.seconds * 1000) + ")" : "n/a");
  } else {
    stat("traces", num(s.traces)); stat("spans", num(s.spans)); stat("tokens", num(s.tokens));
    stat(s.failed_tools ? "\u2717 failed tool executions" : "failed tool executions", num(s.failed_tools), s.failed_tools > 0);
  }
  items.forEach(function (i) { box.appendChild(i); });
}

function overview(main) {
  if (DATA.sections.length < 2) return;
  var what = DATA.kind === "tests" ? "tests" : "traces";
  var bad = DATA.sections.filter(function (s) { return BAD[s.outcome]; }).length;
  main.appendChild(el("section", { id: "overview", cls: "overview", "aria-label": "overview" }, [
    el("h2", { text: "Overview: " + num(DATA.sections.length) + " " + what + (bad ? ", \u2717 " + num(bad) + " failed" : "") }),
    overviewTable(function (i) { goTo(i, null); })]));
}

/* -- sections ------------------------------------------------------------------------------------ */
function sections() {
  var main = document.getElementById("sections");
  main.textContent = "";
  overview(main);
  var anyOpen = false;
  DATA.sections.forEach(function (sec, i) {
    var bad = !!BAD[sec.outcome];
    var node = el("section", { cls: "sec" + (bad ? " failed" : ""), id: "sec-" + i, "data-outcome": sec.outcome || "" });
    var body = el("div", { cls: "sec-body", id: "sec-body-" + i, hidden: "" });
    var meta = [];
    if (sec.duration_s !== null && sec.duration_s !== undefined) meta.push(dur(sec.duration_s * 1000));
    if (sec.view) meta.push(num(sec.view.counts.spans) + " spans");
    if (sec.view && sec.view.counts.tokens !== null) meta.push(num(sec.view.counts.tokens) + " tokens");
    var btn = el("button", { "aria-expanded": "false", "aria-controls": "sec-body-" + i }, [
      sec.outcome ? el("span", { cls: "outcome " + sec.outcome, text: MARK[sec.outcome] || sec.outcome }) : null,
      el("span", { cls: "sec-title", text: sec.title }),
      el("span", { cls: "sec-meta", text: meta.join(" \u00b7 ") })]);
    var entry = { ctx: null, built: false };
    function toggle(open) {
      if (open && !entry.built) { entry.built = true; entry.ctx = buildSection(sec, body, i); }
      btn.setAttribute("aria-expanded", open ? "true" : "false");
      if (open) body.removeAttribute("hidden"); else body.setAttribute("hidden", "");
    }
    entry.open = function () { if (btn.getAttribute("aria-expanded") !== "true") toggle(true); return entry.ctx; };
    SECTIONS.push(entry);
    btn.addEventListener("click", function () { toggle(btn.getAttribute("aria-expanded") !== "true"); });
    node.appendChild(el("h2", null, [btn]));
    if (sec._failures.length) node.appendChild(navigator(sec, i));
    node.appendChild(body);
    main.appendChild(node);
    if (bad || (i === 0 && DATA.sections.length <= 3)) { toggle(true); anyOpen = true; }
  });
  if (!anyOpen && DATA.sections.length) SECTIONS[0].open();
  if (!DATA.sections.length) main.appendChild(el("p", { text: "Nothing to show: no test or trace." }));
}

// "✗ 195 failed: first / prev / next": each failure of the run in tree order, selected in the tree (its
// ancestors opened) and in the waterfall (scrolled to, the window moved onto it)
function navigator(sec, i) {
  var fails = sec._failures, at = -1;
  var where = el("span", { cls: "nav-at", "aria-live": "polite", text: "" });
  function go(k) {
    var ctx = SECTIONS[i].open();
    if (!ctx) return;
    at = (k + fails.length) % fails.length;
    ctx.select(fails[at], -1, "nav");
  }
  sec._showAt = function (k) { at = k; where.textContent = k >= 0 ? num(k + 1) + " of " + num(fails.length) : ""; };
  return el("div", { cls: "sec-nav", role: "group", "aria-label": "failures of this run" }, [
    el("span", { cls: "nav-count", text: "\u2717 " + num(fails.length) + " failed: " }),
    button("first", { cls: "nav-first", "aria-label": "first failure" }, function () { go(0); }),
    button("prev", { cls: "nav-prev", "aria-label": "previous failure" }, function () { go(at < 0 ? fails.length - 1 : at - 1); }),
    button("next", { cls: "nav-next", "aria-label": "next failure" }, function () { go(at + 1); }),
    where]);
}

// the headline of a failure message: its first line (for a soft() block, the count and the first
// failure's first line, as the terminal's short summary shows it)
function headline(lines) {
  if (/^\d+ checks failed:$/.test(lines[0]) && lines.length > 2 && lines[1].indexOf("--- failure 1") === 0) return lines[0] + " " + lines[2];
  return lines[0];
}

function buildSection(sec, body, i) {
  var v = sec.view;
  var ctx = { v: v, sec: sec, i: i, node: null, row: -1, meta: v ? sec._meta : null };
  if (sec.message) {
    var lines = sec.message.split("\n"), cut = lines.indexOf("invocation tree:");
    var head = (cut < 0 ? lines : lines.slice(0, cut)).slice(1).filter(function (l) { return l.trim(); });
    body.appendChild(el("p", { cls: "headline", role: "heading", "aria-level": "3", text: headline(lines) }));
    if (head.length) body.appendChild(el("pre", { cls: "message-head", text: head.slice(0, 8).join("\n") + (head.length > 8 ? "\n\u2026" : "") }));
    body.appendChild(el("details", { cls: "message-text" }, [el("summary", { text: "show text (" + num(lines.length) + " lines)" }),
      el("pre", { cls: "message", text: sec.message })]));
  }
  if (sec.repeat) {
    var r = sec.repeat;
    body.appendChild(el("p", { cls: "repeat", text: "repeated: " + (r.text || r.passed + " of " + r.counted + " run(s) passed (pass rate " +
      pct(r.pass_rate) + ", min_pass_rate " + pct(r.min_pass_rate) + ")") + "; runs: " + r.outcomes.join(", ") }));
  }
  if (sec.history && sec.history.length) body.appendChild(trend(sec.history));
  (sec.gates || []).forEach(function (g) { body.appendChild(el("p", { cls: "gate " + g.verdict.replace(" ", "-"), text: "gate: " + g.text })); });
  if (sec.scores && sec.scores.length) body.appendChild(scoresTable(sec.scores));
  if (sec.coverage) body.appendChild(coverageBlock(sec.coverage));
  if (sec.tokens) body.appendChild(el("p", { text: "tokens: " + num(sec.tokens.total) + " (input " + num(sec.tokens.input) +
    ", output " + num(sec.tokens.output) + ") in " + num(sec.tokens.model_calls) + " model call(s)" }));
  if (!v) { body.appendChild(el("p", { cls: "muted", text: "No spans captured for this test." })); return null; }
  var c = v.counts;
  body.appendChild(el("p", { cls: "muted counts", text: num(c.spans) + " spans, " + num(c.agent_invocations) + " agent invocation(s), " +
    num(c.tool_executions) + " tool execution(s) (" + num(c.failed_tool_executions) + " failed), " + num(c.model_calls) +
    " model call(s)" + (c.tokens !== null ? ", " + num(c.tokens) + " tokens" : "") }));

  var cause = el("div", { cls: "cause" });
  body.appendChild(cause);
  var filters = filterBar(ctx);
  body.appendChild(filters);
  ctx.details = el("div", { cls: "details", role: "region", "aria-label": "details", "aria-live": "polite" });
  var treePane = el("div", { cls: "pane tree-pane" });
  ctx.tree = buildTree(ctx);
  treePane.appendChild(ctx.tree.elem);
  ctx.wf = buildWaterfall(ctx);
  var tables = el("div", { cls: "sec-tables" });
  if (v.agents.length) { tables.appendChild(el("h3", { text: "Per agent" })); tables.appendChild(agentsTable(v.agents)); }
  if (v.tools && v.tools.length) { tables.appendChild(el("h3", { text: "Per tool" })); tables.appendChild(toolsTable(v.tools)); }
  body.appendChild(el("div", { cls: "sec-grid" }, [
    el("div", { cls: "g-tree" }, [el("h3", { text: "Invocation tree" }), ctx.tree.note, treePane]),
    el("aside", { cls: "g-details pane", "aria-label": "selection" }, [ctx.details]),
    el("div", { cls: "g-wf" }, [el("h3", { text: "Span waterfall" }), ctx.wf.elem]),
    tables]));
  tables.classList.add("g-tables");

  ctx.select = function (node, row, how) { select(ctx, node, row, how); };
  // the records the failed check is about, selected; else the first failure of a failed run
  var about = (sec.focus || []).filter(function (row) { return row >= 0 && row < v.spans.length; });
  if (about.length) {
    cause.appendChild(causeLine(ctx, about));
    var first = sec._meta.rowNode[about[0]];
    ctx.select(first || null, about[0], "load");
  } else if (BAD[sec.outcome] && sec._failures.length) {
    ctx.select(sec._failures[0], -1, "first");  // shown in the whole run, not zoomed into
  } else {
    showDetails(ctx, null, -1);
  }
  return ctx;
}

// "about: agent orchestrator" and, for an agent, the tools it called as chips
function causeLine(ctx, rows) {
  var box = el("div", null, [el("span", { cls: "chips-title", text: "the check is about: " })]), agents = [];
  rows.slice(0, 5).forEach(function (row) {
    var node = ctx.meta.rowNode[row], s = ctx.v.spans[row];
    var text = node ? node.k + " " + nodeName(node) + (node.s === "failed" ? " \u2717 failed" : "") : s[F.kind] + " span " + s[F.name];
    box.appendChild(button(text, { cls: "link about" }, function () { ctx.select(node || null, row, "about"); }));
    if (node && node.k === "agent" && agents.indexOf(node) < 0) agents.push(node);
  });
  if (rows.length > 5) box.appendChild(el("span", { cls: "muted", text: " and " + num(rows.length - 5) + " more" }));
  agents.slice(0, 3).forEach(function (node) { box.appendChild(toolChips(ctx, node, "tools " + nodeName(node) + " called")); });
  return box;
}

function filterBar(ctx) {
  var text = el("input", { type: "search", cls: "filter-text", placeholder: "filter: a tool, agent, model or span name",
    "aria-label": "filter the tree and the waterfall by name" });
  var failed = el("input", { type: "checkbox", cls: "filter-failed" });
  var semantic = el("input", { type: "checkbox", cls: "filter-semantic" });
  var timer = null;
  function apply() {
    var q = text.value.trim().toLowerCase(), onlyFailed = failed.checked;
    ctx.tree.setFilter(q || onlyFailed ? function (node) {
      return (!onlyFailed || node.s === "failed") && (!q || node.t.toLowerCase().indexOf(q) >= 0);
    } : null);
    ctx.wf.setOptions({ text: q, failed: onlyFailed, semantic: semantic.checked });
  }
  text.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(apply, 150); });
  text.addEventListener("change", function () { clearTimeout(timer); apply(); });
  failed.addEventListener("change", apply);
  semantic.addEventListener("change", apply);
  return el("div", { cls: "filters", role: "group", "aria-label": "filters" }, [text,
    el("label", null, [failed, " failed only"]),
    el("label", { title: "hide the spans of no agent, tool, model call, handoff or retrieval (framework plumbing)" }, [semantic, " semantic spans only"])]);
}

/* -- one selection ------------------------------------------------------------------------------- */
function select(ctx, node, row, how) {
  var v = ctx.v;
  if (node && row < 0) row = node.sp.length ? node.sp[0] : -1;
  if (!node && row >= 0) node = ctx.meta.rowNode[row] || null;
  ctx.node = node; ctx.row = row;
  ctx.tree.select(node, how === "tree-key");
  ctx.wf.select(row, how !== "bar" && how !== "bar-key");
  // selecting an agent zooms the waterfall to its time range; going to a failure (or to what a check is
  // about) zooms to the agent run around it when its bar would be a sliver on the axis shown
  if (node && node.k === "agent" && node.sp.length) ctx.wf.zoomTo(node.sp);
  else if (row >= 0 && (how === "nav" || how === "load" || how === "about" || how === "address" || how === "chip")) {
    for (var p = node ? node._p : null; p; p = p._p) if (p.k === "agent" && p.sp.length) { ctx.wf.zoomIfSliver(row, p.sp); break; }
  }
  showDetails(ctx, node, row);
  if (ctx.sec._showAt) ctx.sec._showAt(node && node._fi !== undefined ? node._fi : -1);
  if (how === "load" || how === "first") return;
  setAddress(ctx.i, row >= 0 ? v.spans[row][F.id] : null);
  // the details in view: a sticky panel beside the tree on a wide screen, below the tree on a narrow one
  var box = ctx.details.parentElement.getBoundingClientRect(), head = headHeight();
  if (box.top > window.innerHeight - 80 || box.bottom < head + 40) ctx.details.parentElement.scrollIntoView({ block: "nearest" });
}

/* -- addresses: #sec-N opens a section, #sec-N/span/ID selects a span in it ------------------------ */
function setAddress(i, spanId) {
  var hash = "#sec-" + i + (spanId ? "/span/" + encodeURIComponent(spanId) : "");
  try { history.replaceState(null, "", hash); } catch (e) { /* a page that cannot keep its address */ }
}
function goTo(i, spanId) {
  var entry = SECTIONS[i];
  if (!entry) return;
  var ctx = entry.open(), target = document.getElementById("sec-" + i);
  if (ctx && spanId) {
    var at = -1;
    for (var r = 0; r < ctx.v.spans.length && at < 0; r++) if (String(ctx.v.spans[r][F.id]) === spanId) at = r;
    if (at >= 0) ctx.select(null, at, "address");
  }
  if (!spanId) setAddress(i, null);
  target.scrollIntoView({ block: "start" });
}
function route() {
  var m = /^#sec-(\d+)(?:\/span\/(.+))?$/.exec(location.hash), id = null;
  if (!m) return;
  try { id = m[2] ? decodeURIComponent(m[2]) : null; } catch (e) { id = null; }  // a mangled link opens the section
  goTo(Number(m[1]), id);
}

function headHeight() {
  var h = document.querySelector("body > header");
  return h && getComputedStyle(h).position === "sticky" ? h.offsetHeight : 0;
}
function layout() { document.documentElement.style.setProperty("--head", headHeight() + "px"); }

function start() {
  (DATA.sections.find(function (s) { return s.view; }) || { view: { fields: [] } }).view.fields.forEach(function (f, i) { F[f] = i; });
  DATA.sections.forEach(function (sec) {
    sec._meta = sec.view ? prepareTree(sec.view) : { failures: [], rowNode: [], nodes: [] };
    sec._failures = sec._meta.failures;
  });
  summary();
  layout();  // the summary bar's height, under which sections and the details panel stop
  sections();
  window.addEventListener("resize", layout);
  window.addEventListener("hashchange", route);
  route();
  document.body.setAttribute("data-ready", "true");
}
start();

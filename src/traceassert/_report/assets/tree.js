/* The invocation tree: an ARIA tree whose children are built when first opened; a collapsed node
   that holds failures says so; a filter keeps the nodes that match and the way to them. */

// every node's parent (_p), depth (_d) and count of failed nodes below it (_f); the failed nodes in
// tree order (each with its place, _fi); the deepest node of each waterfall row
function prepareTree(view) {
  var failures = [], rowNode = new Array(view.spans.length), order = [];
  var stack = [];
  for (var r = view.tree.length - 1; r >= 0; r--) stack.push([view.tree[r], null, 0]);
  while (stack.length) {  // iterative: trees may nest deeper than the call stack
    var top = stack.pop(), node = top[0];
    node._p = top[1]; node._d = top[2]; node._f = 0;
    order.push(node);
    if (node.s === "failed") { node._fi = failures.length; failures.push(node); }
    node.sp.forEach(function (row) { var had = rowNode[row]; if (!had || had._d <= node._d) rowNode[row] = node; });
    for (var c = node.c.length - 1; c >= 0; c--) stack.push([node.c[c], node, top[2] + 1]);
  }
  for (var i = order.length - 1; i >= 0; i--) {
    var n = order[i];
    if (n._p) n._p._f += n._f + (n.s === "failed" ? 1 : 0);
  }
  return { failures: failures, rowNode: rowNode, nodes: order };
}

function buildTree(ctx) {
  var tree = el("ul", { role: "tree", "aria-label": "invocation tree" });
  var current = null, filter = null, built = [], note = el("p", { cls: "tree-note muted", hidden: "" });
  var tops = [], shownTops = 0, more = null;  // the top-level nodes, drawn TREE_PAGE at a time
  function item(node, level) {
    var kids = children(node).length > 0;
    var li = el("li", { role: "treeitem", tabindex: "-1", "aria-level": String(level), "aria-selected": "false",
      "data-kind": node.k, "data-state": node.s || "" });
    if (kids) li.setAttribute("aria-expanded", "false");
    if (filter && !filter.match(node)) li.className = "context";
    li._node = node; li._level = level; node._li = li; built.push(node);
    li.appendChild(el("div", { cls: "node" }, [el("span", { cls: "twisty", "aria-hidden": "true", text: kids ? "\u25b8" : "" }),
      el("span", { cls: "kind " + node.k, text: node.k }), el("span", { cls: "label", text: node.t }),
      node.s && node.k !== "agent" || node.s === "failed" ? el("span", { cls: "state " + node.s, text: MARK[node.s] }) : null,
      node._f && kids ? el("span", { cls: "inside", text: "\u2717 " + num(node._f) + " failed inside" }) : null]));
    return li;
  }
  function children(node) { return filter ? node.c.filter(function (c) { return c._keep; }) : node.c; }
  function expand(li, open) {
    if (!li.hasAttribute("aria-expanded")) return;
    var group = li.querySelector(":scope > ul");
    if (open && !group) {
      group = el("ul", { role: "group" });
      children(li._node).forEach(function (n) { group.appendChild(item(n, li._level + 1)); });
      li.appendChild(group);
    }
    if (group) group.hidden = !open;
    li.setAttribute("aria-expanded", open ? "true" : "false");
    li.querySelector(":scope > .node > .twisty").textContent = open ? "\u25be" : "\u25b8";
  }
  // the top-level nodes drawn up to `upto` (exclusive), and a button for the rest
  function drawTops(upto) {
    if (more) { more.remove(); more = null; }
    for (; shownTops < Math.min(upto, tops.length); shownTops++) tree.appendChild(item(tops[shownTops], 1));
    var left = tops.length - shownTops;
    if (left > 0) {
      var label = left > TREE_PAGE ? "show the next " + num(TREE_PAGE) + " (" + num(left) + " not shown)" : "show the last " + num(left);
      more = el("li", { role: "none", cls: "tree-more" }, [button(label, { cls: "link more" },
        function () { drawTops(shownTops + TREE_PAGE); })]);
      tree.appendChild(more);
    }
  }
  // the item of `node`, its ancestors opened (and built) on the way; null when the filter hides it
  function reveal(node) {
    var path = [];
    for (var p = node; p; p = p._p) path.unshift(p);
    if (!path[0]._li && (!filter || path[0]._keep)) { var at = tops.indexOf(path[0]); if (at >= 0) drawTops(at + 1); }
    for (var i = 0; i < path.length; i++) {
      if (filter && !path[i]._keep) return null;
      if (!path[i]._li) return null;
      if (i < path.length - 1) expand(path[i]._li, true);
    }
    return node._li;
  }
  function mark(li, focus) {
    if (current) { current.setAttribute("tabindex", "-1"); current.setAttribute("aria-selected", "false"); }
    current = li;
    if (!li) return;
    li.setAttribute("tabindex", "0"); li.setAttribute("aria-selected", "true");
    if (focus) li.focus({ preventScroll: true });
    // in view inside the tree's own box, without scrolling the page
    var box = tree.parentElement, row = li.querySelector(":scope > .node");
    if (box && row) {
      var top = row.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
      if (top < box.scrollTop || top + row.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTop = Math.max(0, top - box.clientHeight / 3);
    }
  }
  function visible() {
    return Array.prototype.filter.call(tree.querySelectorAll("li[role=treeitem]"), function (li) { return li.offsetParent !== null; });
  }
  function render() {
    built.forEach(function (n) { n._li = null; });
    built = []; current = null; tree.textContent = ""; more = null; shownTops = 0;
    var top = tops = filter ? ctx.v.tree.filter(function (n) { return n._keep; }) : ctx.v.tree;
    drawTops(TREE_PAGE);
    if (filter) {
      // open the way to every match, breadth first, up to a bound (a filter matching 6,000 nodes
      // opens the first of them; the rest open on a click)
      var queue = Array.prototype.filter.call(tree.children, function (li) { return li._node; }), opened = 0;
      while (queue.length && built.length < TREE_FILTER_CAP) {
        var li = queue.shift();
        if (!li.hasAttribute("aria-expanded")) continue;
        expand(li, true); opened++;
        queue.push.apply(queue, li.querySelector(":scope > ul").children);
      }
      note.hidden = !queue.length;
      note.textContent = queue.length ? "Showing the first " + num(built.length) + " matching nodes and the way to them; open a node for more." : "";
      if (!top.length) tree.appendChild(el("li", { cls: "empty", role: "none", text: "No node matches the filter." }));
    } else {
      note.hidden = true;
      // a small tree opens whole; in a big one the first ten agents open, the rest is built when opened
      var count = 0, stack = ctx.v.tree.slice();
      while (stack.length && count <= SMALL_TREE) { var n = stack.pop(); count++; stack.push.apply(stack, n.c); }
      if (count <= SMALL_TREE) {
        var open = Array.prototype.filter.call(tree.children, function (li) { return li._node; });
        while (open.length) {
          var o = open.shift();
          expand(o, true);
          var group = o.querySelector(":scope > ul");
          if (group) open.push.apply(open, group.children);
        }
      } else {
        Array.prototype.filter.call(tree.children, function (li) { return li._node && li._node.k === "agent"; })
          .slice(0, 10).forEach(function (li) { expand(li, true); });
      }
    }
    var first = tree.querySelector("li[role=treeitem]");
    if (first) first.setAttribute("tabindex", "0");
  }
  tree.addEventListener("click", function (e) {
    var li = e.target.closest("li[role=treeitem]");
    if (!li) return;
    if (e.target.closest(".twisty") || li === current) expand(li, li.getAttribute("aria-expanded") !== "true");
    if (!e.target.closest(".twisty")) ctx.select(li._node, -1, "tree");
  });
  tree.addEventListener("keydown", function (e) {
    var li = e.target.closest("li[role=treeitem]"); if (!li) return;
    var items = visible(), at = items.indexOf(li), open = li.getAttribute("aria-expanded");
    var go = function (to) { if (to) ctx.select(to._node, -1, "tree-key"); };
    var handled = true;
    if (e.key === "ArrowDown") go(items[at + 1]);
    else if (e.key === "ArrowUp") go(items[at - 1]);
    else if (e.key === "Home") go(items[0]);
    else if (e.key === "End") go(items[items.length - 1]);
    else if (e.key === "ArrowRight") { if (open === "false") expand(li, true); else if (open === "true") go(visible()[at + 1]); }
    else if (e.key === "ArrowLeft") { if (open === "true") expand(li, false); else go(li.parentElement.closest("li[role=treeitem]")); }
    else if (e.key === "Enter" || e.key === " ") { if (open !== null) expand(li, open !== "true"); go(li); }
    else handled = false;
    if (handled) e.preventDefault();
  });
  render();
  return {
    elem: tree,
    note: note,
    // select `node` (its ancestors opened); false when the filter hides it
    select: function (node, focus) { var li = node ? reveal(node) : null; mark(li, focus); return !!li; },
    // match(node) -> true when the node itself matches, or null for no filter
    setFilter: function (match) {
      filter = match ? { match: match } : null;
      if (filter) {
        for (var i = ctx.meta.nodes.length - 1; i >= 0; i--) {  // children before their parents
          var n = ctx.meta.nodes[i];
          n._keep = match(n) || n.c.some(function (c) { return c._keep; });
        }
      }
      render();
      if (ctx.node) mark(reveal(ctx.node), false);
    }
  };
}

"""The stylesheet and the script of the page :func:`treelearn.export.export_html` writes.

Both are inlined in the page (no network). The script reads the tree from the
``<script type="application/json" id="treelearn-data">`` block and builds the
page with the DOM: every label goes in as ``textContent`` (never as HTML), so
no label can add markup or run code. The page's Content-Security-Policy lets
only these two blocks (by their SHA-256 hash) style and run.

Elements (for tests and custom styling)
    ``li.tl-item[data-node]`` per node, with ``div.tl-edge`` (the label of the
    edge above it), ``div.tl-node[data-node]`` (the box; click: details) and,
    for an internal node, ``button.tl-toggle`` (collapse or expand its
    subtree) and ``ul.tl-children``. A collapsed item has the class
    ``tl-collapsed``; the selected box ``tl-selected``. The details panel is
    ``aside#tl-details``; its explain table is ``table.tl-explain``.
"""

__all__ = ["SCRIPT", "STYLE"]

STYLE = """
:root { --line: #8a8a8a; --gap: 16px; --ink: #1f2328; --muted: #59636e; --panel: 380px; }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; }
body { font: 13px/1.35 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans",
       "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif; color: var(--ink); }
#tl-app { display: flex; flex-direction: column; height: 100%; }
#tl-header { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px;
             padding: 8px 14px; border-bottom: 1px solid #d0d7de; background: #f6f8fa; }
#tl-header h1 { font-size: 16px; margin: 0; }
#tl-header button { font: inherit; padding: 2px 10px; border: 1px solid #afb8c1;
                    border-radius: 5px; background: #fff; cursor: pointer; }
.tl-legend { display: flex; flex-wrap: wrap; gap: 4px 12px; color: var(--muted); }
.tl-chip { display: inline-block; width: 11px; height: 11px; margin-right: 4px;
           border: 1px solid #555; vertical-align: -1px; }
#tl-main { display: flex; flex: 1; min-height: 0; }
#tl-tree { flex: 1; overflow: auto; padding: 18px 12px 40px; }
#tl-details { width: var(--panel); flex: none; overflow: auto; padding: 12px 14px;
              border-left: 1px solid #d0d7de; background: #fbfbfc; }
@media (max-width: 800px) {
  #tl-main { flex-direction: column; }
  #tl-details { width: auto; border-left: 0; border-top: 1px solid #d0d7de; }
}
.tl-tree ul { display: flex; justify-content: center; position: relative; margin: 0;
              padding: var(--gap) 0 0; list-style: none; }
#tl-tree > ul { width: max-content; min-width: 100%; padding-top: 0; }
.tl-tree li { position: relative; display: flex; flex-direction: column; align-items: center;
              padding: var(--gap) 5px 0; }
#tl-tree > ul > li { padding-top: 0; }
.tl-tree li::before, .tl-tree li::after { content: ""; position: absolute; top: 0; width: 50%;
              height: var(--gap); border-top: 1px solid var(--line); }
.tl-tree li::before { right: 50%; }
.tl-tree li::after { left: 50%; border-left: 1px solid var(--line); }
.tl-tree li:first-child::before { border-top: 0; }
.tl-tree li:last-child::after { border-top: 0; }
.tl-tree li:only-child::before { display: none; }
#tl-tree > ul > li::before, #tl-tree > ul > li::after { display: none; }
.tl-tree ul ul::before { content: ""; position: absolute; top: 0; left: 50%;
                         height: var(--gap); border-left: 1px solid var(--line); }
.tl-collapsed > ul { display: none; }
.tl-edge { position: relative; padding: 0 0 5px; text-align: center; }
.tl-edge::before { content: ""; position: absolute; left: 50%; top: 0; bottom: 0;
                   border-left: 1px solid var(--line); }
.tl-edge-text { position: relative; display: inline-block; padding: 1px 5px; background: #fff;
                border: 1px solid #d0d7de; border-radius: 9px; font-size: 11px;
                color: #333; white-space: nowrap; }
.tl-node { position: relative; min-width: 64px; padding: 4px 9px 9px; text-align: center;
           border: 1px solid #555; border-radius: 7px; cursor: pointer; white-space: nowrap;
           font-size: 12px; }
.tl-node:hover { box-shadow: 0 0 0 2px #afb8c1; }
.tl-node:focus-visible { outline: 2px solid #0969da; outline-offset: 1px; }
.tl-node.tl-selected { box-shadow: 0 0 0 3px #0969da; }
.tl-head { font-weight: 600; }
.tl-line { color: #24292f; }
.tl-bar { display: flex; height: 6px; margin-top: 3px; background: #fff; border-radius: 2px;
          border: 1px solid rgba(255, 255, 255, 0.9); overflow: hidden; }
.tl-seg { display: block; height: 100%; }
.tl-toggle { position: absolute; left: 50%; bottom: -9px; transform: translateX(-50%);
             min-width: 18px; height: 17px; padding: 0 4px; font: 11px/15px monospace;
             border: 1px solid #555; border-radius: 9px; background: #fff; cursor: pointer;
             z-index: 1; }
.tl-collapsed > .tl-node { border-style: dashed; }
.tl-item.tl-collapsed > .tl-node { margin-bottom: 10px; }
#tl-details h2 { font-size: 15px; margin: 0 0 2px; }
#tl-details h3 { font-size: 13px; margin: 14px 0 4px; }
#tl-details .tl-kind, .tl-empty { color: var(--muted); margin: 0; }
#tl-details table { border-collapse: collapse; width: 100%; margin: 2px 0; }
#tl-details th, #tl-details td { text-align: left; padding: 2px 6px 2px 0;
                                 border-bottom: 1px solid #eaeef2; vertical-align: top; }
#tl-details th { font-weight: 600; color: var(--muted); }
#tl-details td.tl-num { text-align: right; font-variant-numeric: tabular-nums; }
#tl-details ol { margin: 0; padding-left: 20px; }
.tl-dist { display: flex; height: 14px; border: 1px solid #aaa; border-radius: 3px;
           overflow: hidden; background: #fff; }
.tl-explain-wrap { overflow-x: auto; }
table.tl-explain td, table.tl-explain th { white-space: nowrap; }
.tl-link { font: inherit; padding: 0 4px; border: 1px solid #afb8c1; border-radius: 4px;
           background: #fff; cursor: pointer; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("treelearn-data").textContent);
  var nodes = data.nodes;
  var items = [];
  var selected = null;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function lines(parent, texts) {
    texts.forEach(function (text, i) {
      if (i) { parent.appendChild(document.createElement("br")); }
      parent.appendChild(document.createTextNode(text));
    });
    return parent;
  }

  function bar(node, cls) {
    var b = el("div", cls);
    var total = node.value.reduce(function (a, v) { return a + v; }, 0);
    node.value.forEach(function (v, k) {
      if (!(total > 0) || !(v > 0)) { return; }
      var s = el("span", "tl-seg");
      s.style.width = (100 * v / total) + "%";
      s.style.background = data.colours[k];
      s.title = data.classes[k] + ": " + node.counts[k];
      b.appendChild(s);
    });
    return b;
  }

  function setCollapsed(id, collapsed) {
    var node = nodes[id];
    if (node.leaf) { return; }
    var li = items[id];
    li.classList.toggle("tl-collapsed", collapsed);
    var button = li.querySelector(":scope > .tl-node > .tl-toggle");
    button.textContent = collapsed ? "+" + (node.size - 1) : "\u2212";
    button.setAttribute("aria-expanded", collapsed ? "false" : "true");
    button.title = collapsed
      ? "Show the " + (node.size - 1) + " nodes below"
      : "Hide the nodes below";
  }

  function boxOf(id) { return items[id].querySelector(":scope > .tl-node"); }

  function reveal(id) {
    for (var p = nodes[id].parent; p >= 0; p = nodes[p].parent) { setCollapsed(p, false); }
  }

  function makeItem(node) {
    var li = el("li", "tl-item");
    li.dataset.node = node.id;
    if (node.edge.length) {
      var edge = el("div", "tl-edge");
      edge.appendChild(lines(el("span", "tl-edge-text"), node.edge));
      li.appendChild(edge);
    }
    var box = el("div", "tl-node");
    box.dataset.node = node.id;
    box.tabIndex = 0;
    box.setAttribute("role", "button");
    box.style.background = node.fill;
    box.appendChild(el("div", "tl-head", node.head));
    node.lines.forEach(function (text) { box.appendChild(el("div", "tl-line", text)); });
    if (data.classes) { box.appendChild(bar(node, "tl-bar")); }
    box.addEventListener("click", function () { select(node.id); });
    box.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); select(node.id); }
    });
    if (!node.leaf) {
      var toggle = el("button", "tl-toggle");
      toggle.type = "button";
      toggle.addEventListener("click", function (event) {
        event.stopPropagation();
        setCollapsed(node.id, !li.classList.contains("tl-collapsed"));
      });
      box.appendChild(toggle);
    }
    li.appendChild(box);
    return li;
  }

  function table(head, rows, cls) {
    var t = el("table", cls);
    if (head) {
      var tr = el("tr");
      head.forEach(function (h) { tr.appendChild(el("th", null, h)); });
      t.appendChild(el("thead")).appendChild(tr);
    }
    var body = t.appendChild(el("tbody"));
    rows.forEach(function (row) {
      var tr = body.appendChild(el("tr"));
      row.forEach(function (cell, j) {
        if (cell instanceof Node) { tr.appendChild(el("td")).appendChild(cell); }
        else { tr.appendChild(el(j === 0 && !head ? "th" : "td", null, cell)); }
      });
    });
    return t;
  }

  function section(panel, title) { panel.appendChild(el("h3", null, title)); }

  function details(node) {
    var panel = document.getElementById("tl-details");
    panel.replaceChildren();
    panel.appendChild(el("h2", null, "Node #" + node.id));
    var kind = node.leaf ? "leaf" : node.kind + " split on " + node.feature;
    panel.appendChild(el("p", "tl-kind", kind));
    section(panel, "Path");
    if (node.path.length) {
      var ol = panel.appendChild(el("ol", "tl-path"));
      node.path.forEach(function (text) { ol.appendChild(el("li", null, text)); });
    } else {
      panel.appendChild(el("p", "tl-empty", "the root: every row"));
    }
    section(panel, "Node");
    panel.appendChild(table(null, node.stats, "tl-stats"));
    if (data.classes) {
      section(panel, "Class distribution");
      panel.appendChild(bar(node, "tl-dist"));
      var rows = data.classes.map(function (label, k) {
        var chip = el("span", "tl-chip");
        chip.style.background = data.colours[k];
        var name = el("span");
        name.appendChild(chip);
        name.appendChild(document.createTextNode(label));
        return [name, node.counts[k], node.shares[k]];
      });
      panel.appendChild(table(["class", "count", "share"], rows, "tl-classes"));
    }
    if (node.split) {
      section(panel, "Split");
      panel.appendChild(table(null, node.split.stats, "tl-split"));
      var branches = node.split.branches.map(function (b) {
        var go = el("button", "tl-link", "#" + b.child);
        go.type = "button";
        go.addEventListener("click", function () { reveal(b.child); select(b.child); });
        return [b.condition, b.missing, b.samples, go];
      });
      var head = ["branch", "missing values", "samples", "node"];
      panel.appendChild(table(head, branches, "tl-branches"));
      if (node.split.surrogates.length) {
        section(panel, "Surrogate splits");
        var su = panel.appendChild(el("ol"));
        node.split.surrogates.forEach(function (text) { su.appendChild(el("li", null, text)); });
      }
    }
    if (node.explain) {
      section(panel, "Explain");
      var wrap = panel.appendChild(el("div", "tl-explain-wrap"));
      var columns = node.explain.index ? [""].concat(node.explain.columns) : node.explain.columns;
      var cells = node.explain.rows.map(function (row, i) {
        return node.explain.index ? [node.explain.index[i]].concat(row) : row;
      });
      wrap.appendChild(table(columns, cells, "tl-explain"));
    }
  }

  function select(id) {
    if (selected !== null) { boxOf(selected).classList.remove("tl-selected"); }
    selected = id;
    boxOf(id).classList.add("tl-selected");
    details(nodes[id]);
  }

  function header() {
    document.getElementById("tl-title").textContent = data.title;
    document.getElementById("tl-summary").textContent = data.summary;
    var legend = document.getElementById("tl-legend");
    (data.classes || []).forEach(function (label, k) {
      var item = el("span");
      var chip = el("span", "tl-chip");
      chip.style.background = data.colours[k];
      item.appendChild(chip);
      item.appendChild(document.createTextNode(label));
      legend.appendChild(item);
    });
    document.getElementById("tl-expand").addEventListener("click", function () {
      nodes.forEach(function (node) { setCollapsed(node.id, false); });
    });
    document.getElementById("tl-collapse").addEventListener("click", function () {
      nodes.forEach(function (node) { setCollapsed(node.id, node.id !== 0); });
    });
  }

  nodes.forEach(function (node) { items[node.id] = makeItem(node); });
  nodes.forEach(function (node) {
    if (node.leaf) { return; }
    var ul = el("ul", "tl-children");
    node.children.forEach(function (child) { ul.appendChild(items[child]); });
    items[node.id].appendChild(ul);
  });
  var root = el("ul");
  root.appendChild(items[0]);
  document.getElementById("tl-tree").appendChild(root);
  nodes.forEach(function (node) {
    setCollapsed(node.id, data.collapse_depth !== null && node.depth >= data.collapse_depth);
  });
  header();
  var tree = document.getElementById("tl-tree");
  var zoom = 1;
  function setZoom(factor) {
    zoom = Math.min(2, Math.max(0.3, Math.round(zoom * factor * 100) / 100));
    root.style.zoom = String(zoom);
  }
  document.getElementById("tl-zoom-in").addEventListener("click", function () { setZoom(1.25); });
  document.getElementById("tl-zoom-out").addEventListener("click", function () { setZoom(0.8); });
  var rootBox = boxOf(0).getBoundingClientRect();
  var view = tree.getBoundingClientRect();
  tree.scrollLeft = Math.max(0, rootBox.left + rootBox.width / 2 - view.left - view.width / 2);
  document.body.dataset.ready = "true";
})();
"""

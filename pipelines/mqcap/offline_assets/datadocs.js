/* mqcap: what GX Data Docs ask of jQuery, Bootstrap and bootstrap-table, done offline.
   The pages load those libraries from CDNs; mqcap removes the remote tags and loads this
   instead, so tables, tabs and row links work from file:// with no network. Only the calls
   GX's templates make are provided (see pipelines/mqcap/offline.py). */
(function () {
  "use strict";
  function all(sel) {
    if (sel === document || sel === window) return [sel];
    if (sel && sel.nodeType) return [sel];
    if (Array.isArray(sel)) return sel;
    if (typeof sel !== "string") return [];
    try { return Array.prototype.slice.call(document.querySelectorAll(sel)); }
    catch (e) { return []; }
  }
  function Wrap(nodes) { this.nodes = nodes; this.length = nodes.length; }
  var W = Wrap.prototype;
  W.each = function (fn) { this.nodes.forEach(function (n, i) { fn.call(n, i, n); }); return this; };
  W.ready = function (fn) {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", fn);
    else fn();
    return this;
  };
  W.parent = function () { return new Wrap(this.nodes.map(function (n) { return n.parentNode; }).filter(Boolean)); };
  W.fadeIn = W.show = function () { return this.each(function () { this.style.display = ""; }); };
  W.fadeOut = W.hide = function () { return this.each(function () { this.style.display = "none"; }); };
  W.addClass = function (c) { return this.each(function () { this.classList.add(c); }); };
  W.removeClass = function (c) { return this.each(function () { this.classList.remove(c); }); };
  W.data = function (key) { var n = this.nodes[0]; return n ? n.getAttribute("data-" + key) : undefined; };
  W.modal = function () { return this; };
  W.on = function (event, fn) {
    var name = String(event).split(".")[0];
    return this.each(function () {
      var node = this;
      if (name === "click-row") {
        node.addEventListener("click", function (e) {
          var tr = e.target.closest("tbody tr");
          if (tr && node.contains(tr)) fn(e, tr.__row || {}, new Wrap([tr]));
        });
      } else {
        node.addEventListener(name, function (e) { fn.call(node, e); });
      }
    });
  };
  function cell(value) { return value === undefined || value === null ? "" : String(value); }
  function render(table, opts) {
    var cols = opts.columns || [], rows = (opts.data || []).slice();
    var sortName = opts.sortName, sortOrder = opts.sortOrder === "desc" ? -1 : 1;
    if (sortName) {
      var col = cols.filter(function (c) { return c.field === sortName; })[0];
      var key = (col && col.sortName) || sortName;
      rows.sort(function (a, b) { return a[key] < b[key] ? -sortOrder : a[key] > b[key] ? sortOrder : 0; });
    }
    var head = "<thead><tr>" + cols.map(function (c) { return "<th>" + cell(c.title) + "</th>"; }).join("") + "</tr></thead>";
    table.innerHTML = head + "<tbody></tbody>";
    var body = table.tBodies[0];
    rows.forEach(function (row, i) {
      var tr = document.createElement("tr");
      tr.__row = row;
      if (typeof window[opts.rowAttributes] === "function") {
        var attrs = window[opts.rowAttributes](row, i);
        Object.keys(attrs).forEach(function (k) { if (attrs[k] !== undefined) tr.setAttribute(k, attrs[k]); });
      }
      if (row._table_row_link_path) tr.style.cursor = "pointer";
      tr.innerHTML = cols.map(function (c) { return "<td>" + cell(row[c.field]) + "</td>"; }).join("");
      body.appendChild(tr);
    });
    table.classList.add("table", "mqcap-table");
  }
  W.bootstrapTable = function (a, b) {
    var opts = typeof a === "object" ? Object.assign({}, a, b || {}) : null;
    if (opts) this.each(function () { render(this, opts); });
    return this;
  };
  function $(sel) {
    if (typeof sel === "function") return new Wrap([document]).ready(sel);
    return new Wrap(all(sel));
  }
  window.$ = window.jQuery = $;
  // Bootstrap's data-toggle behaviours used by the pages: tabs and collapsible sections.
  document.addEventListener("click", function (e) {
    var link = e.target.closest("[data-toggle]");
    if (!link) return;
    var kind = link.getAttribute("data-toggle");
    var target = link.getAttribute("data-target") || link.getAttribute("href");
    if (kind === "tab" && target && target.charAt(0) === "#") {
      e.preventDefault();
      var pane = document.querySelector(target);
      if (!pane) return;
      Array.prototype.forEach.call(pane.parentNode.children, function (p) { p.classList.remove("active", "show"); });
      pane.classList.add("active", "show");
      var nav = link.closest(".nav");
      if (nav) Array.prototype.forEach.call(nav.querySelectorAll("[data-toggle=tab]"), function (l) { l.classList.remove("active"); });
      link.classList.add("active");
    } else if (kind === "collapse" && target) {
      e.preventDefault();
      all(target).forEach(function (n) { n.classList.toggle("show"); });
    }
  });
})();

// Accessibility the components do not give by themselves, in the page's language (window.pageMessage).
// Every figure gets a text alternative for screen readers: a one-line reading and, for each heatmap
// (and each plane of the cube), its numbers as a table. Both are rebuilt from what Plotly drew
// (gd._fullData, decoded) after every draw, so they always match the picture. The drawing itself
// is hidden from screen readers, and the toolbar's buttons are taken out of the Tab order (a mouse
// still reaches them): seven stops per figure were between a keyboard user and the next control.
(function () {
  // a line break a message holds (<br>) reads as a space: no separator is written here (its language's would differ)
  const plain = (html) => String(html || "").replace(/<br>/g, " ").replace(/<[^>]+>/g, "");
  const escape = (s) => String(s).replace(/[&<>"']/g, (c) => "&#" + c.charCodeAt(0) + ";");
  const fmt = (v) => (Math.abs(v) >= 0.005 || v === 0 ? v.toFixed(2) : v.toExponential(1));
  const axisOf = (layout, ref) => layout[ref.replace(/^x/, "xaxis").replace(/^y/, "yaxis")] || {};
  // a panel's axis, else the first panel's (a grid titles only its first column's and last row's), else `fallback`
  const axisTitle = (layout, ref, fallback) => plain(axisOf(layout, ref).title?.text) ||
    plain(axisOf(layout, ref[0]).title?.text) || fallback;

  function labels(layout, ref, count) {
    const axis = axisOf(layout, ref);
    const text = Array.isArray(axis.ticktext) && axis.ticktext.length === count && axis.tickvals.every((v, k) => v === k);
    return Array.from({ length: count }, (_, k) => (text ? plain(axis.ticktext[k]) : String(k)));
  }

  function table(caption, rows, cols, z, rowName, colName) {
    const t = document.createElement("table");
    const head = "<tr><th scope='col'>" + escape(rowName + " \\ " + colName) + "</th>" +
      cols.map((c) => "<th scope='col'>" + escape(c) + "</th>").join("") + "</tr>";
    const body = z.map((row, r) => "<tr><th scope='row'>" + escape(rows[r]) + "</th>" +
      Array.from(row, (v) => "<td>" + fmt(v) + "</td>").join("") + "</tr>").join("");
    t.innerHTML = "<caption></caption><thead>" + head + "</thead><tbody>" + body + "</tbody>";
    t.caption.textContent = caption;
    return t;
  }
  const cellRows = (values, n) => Array.from({ length: n }, (_, r) => values.slice(r * n, (r + 1) * n));

  function describe(gd) {
    const layout = gd._fullLayout;
    const titles = (layout.annotations || []).map((a) => plain(a.text)).filter((t) => t);
    const plane = (t) => t.type === "mesh3d";  // a cube plane (dashboard/figures/example.py)
    const grids = gd._fullData.filter((t) => (t.type === "heatmap" && t.z) || (plane(t) && t.intensity));
    const box = document.createElement("div");
    const parts = [];
    grids.forEach((t, k) => {
      // a cube plane has each cell's weight at its square's 4 corners, cell by cell, row by row (t.meta.cells a side)
      const z = plane(t) ? cellRows(Array.from(t.intensity).filter((_, c) => c % 4 === 0), t.meta.cells)
        : Array.from(t.z, (row) => Array.from(row));
      const name = (plane(t) ? t.name : titles[k]) || window.pageMessage("panel", { k: k + 1 });
      const flat = z.flat(), max = Math.max(...flat), at = flat.indexOf(max), n = z[0].length;
      const rowName = t.type === "heatmap" ? axisTitle(layout, t.yaxis, window.pageMessage("row")) : window.pageMessage("queryR");
      const colName = t.type === "heatmap" ? axisTitle(layout, t.xaxis, window.pageMessage("column")) : window.pageMessage("keyJ");
      const rows = t.type === "heatmap" ? labels(layout, t.yaxis, z.length) : z.map((_, r) => String(r));
      const cols = t.type === "heatmap" ? labels(layout, t.xaxis, n) : z[0].map((_, c) => String(c));
      parts.push(window.pageMessage("figureReading", { name, rows: z.length, cols: n, min: fmt(Math.min(...flat)),
        max: fmt(max), rowName, row: rows[Math.floor(at / n)], colName, col: cols[at % n] }));
      box.appendChild(table(name, rows, cols, z, rowName, colName));
    });
    const clause = (first, second) => (first ? window.pageMessage("clauses", { first, second }) : second);
    const readings = (parts.length ? parts : titles).reduce(clause, "");
    box.prepend(Object.assign(document.createElement("p"), { textContent: window.pageMessage("figureEnd", { readings }) }));
    return box;
  }

  function update(gd) {
    if (!gd._fullData) return;
    gd.querySelectorAll(".main-svg, .gl-container, canvas").forEach((el) => el.setAttribute("aria-hidden", "true"));
    gd.querySelectorAll(".modebar-btn").forEach((el) => el.setAttribute("tabindex", "-1"));
    const text = gd.querySelector(":scope > .figure-text")
      || gd.appendChild(Object.assign(document.createElement("div"), { className: "figure-text visually-hidden" }));
    text.replaceChildren(describe(gd));
  }

  // dcc.Slider's thumb (role=slider) takes no label of its own: name it by the <label for> of its slider.
  function nameSliders() {
    document.querySelectorAll(".dash-slider-thumb:not([aria-labelledby])").forEach((thumb) => {
      const owner = thumb.closest("[id]");
      const label = owner && document.querySelector(`label[for="${owner.id}"][id]`);
      if (label) thumb.setAttribute("aria-labelledby", label.id);
    });
  }

  // A display formula wider than its column scrolls sideways: the keyboard must reach it too.
  function scrollableFormulas() {
    document.querySelectorAll(".math-display").forEach((box) => (box.scrollWidth > box.clientWidth
      ? box.setAttribute("tabindex", "0") : box.removeAttribute("tabindex")));
  }

  function wire() {
    nameSliders();
    scrollableFormulas();
    document.querySelectorAll(".js-plotly-plot").forEach((gd) => {
      if (gd.dataset.figureText || typeof gd.on !== "function") return;
      gd.dataset.figureText = "1";
      // once the figure has been painted, one figure per task: its first paint never waits for the text. Not in
      // idle time: on a busy machine that came only at the 2 s timeout, and a screen reader waited that long.
      const later = () => requestAnimationFrame(() => setTimeout(() => update(gd)));
      gd.on("plotly_afterplot", later);
      later();
    });
  }

  let queued = false;  // one wiring per frame, however many changes
  const soon = () => queued || (queued = requestAnimationFrame(() => { queued = false; wire(); }));
  new MutationObserver(soon).observe(document.documentElement, { childList: true, subtree: true });
  window.addEventListener("resize", soon);
})();

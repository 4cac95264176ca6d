"use strict";
// The page of `anatid view` (inlined into viewer.html by viewer.py's render()): no library, no
// network. The data is every version of every node and edge with its transaction interval; the
// slider picks an instant, and the page draws what the store knew then.
(function () {
  const SVG = "http://www.w3.org/2000/svg";

  // What the page draws at once (issue 36: 5,000 nodes drawn whole are a hairball with no way in).
  // A larger graph opens on an overview of its best-connected nodes; a search, a neighbourhood or
  // a filter then chooses what to draw, and "draw all" is one click away.
  const LIMITS = {
    drawAll: 400,     // a graph of up to this many nodes is drawn whole
    overview: 100,    // past that, the best-connected this many until the reader chooses others
    focus: 300,       // a neighbourhood is cut at this many nodes, nearest and best-connected first
    nodeLabels: 120,  // every drawn node is named up to this many; past it, the best-connected
    overviewLabels: 40,  // in the overview, only the best-connected this many (hover names any)
    edgeLabels: 120,  // every drawn edge shows its relation up to this many; past it, the focus's
    hitLines: 4000,   // a wider invisible line under each edge for the pointer, up to this many
    results: 12,      // search results listed
  };

  const $ = function (id) { return document.getElementById(id); };
  const data = JSON.parse($("anatid-data").textContent);
  const status = $("status"), slider = $("slider"), when = $("when");

  // ---------------------------------------------------------------- versions by id, instants
  function byId(versions) {
    const map = new Map();
    for (const v of versions) {
      if (!map.has(v.id)) map.set(v.id, []);
      map.get(v.id).push(v);
    }
    return map;
  }
  const nodeVersions = byId(data.nodes);
  const edgeVersions = byId(data.edges);
  const instantSet = new Set();
  for (const v of data.nodes.concat(data.edges)) {
    instantSet.add(v.tf);
    if (v.tt !== null) instantSet.add(v.tt);
  }
  const instants = Array.from(instantSet).sort(function (a, b) { return a - b; });

  // A version is what the store knew at t when tx_from <= t < tx_to.
  function visibleAt(versions, t) {
    for (const v of versions) {
      if (v.tf <= t && (v.tt === null || t < v.tt)) return v;
    }
    return null;
  }
  function last(versions) { return versions[versions.length - 1]; }

  function iso(us) {
    if (us === null || us === undefined) return "";
    const ms = Math.floor(us / 1000);
    const micro = String(((us % 1000000) + 1000000) % 1000000).padStart(6, "0");
    return new Date(ms).toISOString().slice(0, 19) + "." + micro + "Z";
  }
  function short(text, n) { return text.length > n ? text.slice(0, Math.max(n - 1, 1)) + "\u2026" : text; }
  function num(n) { return n.toLocaleString("en"); }
  function groupOf(v) { return v.group === null || v.group === undefined ? "" : String(v.group); }
  // What an edge is called on the drawing: its name when it has one, else its relation. A host
  // that files every fact under one relation and names each (Graphiti: RELATES_TO, named
  // WORKS_AT) is read by its names; the filters on the right stay by relation (issue 44).
  function edgeLabel(v) { return v.name ? String(v.name) : v.rel; }

  // ---------------------------------------------------------------- the graph over all time
  // Who touches whom through any edge version, so a neighbourhood stays put while the slider moves.
  const nodeIds = Array.from(nodeVersions.keys());
  const neighbours = new Map(nodeIds.map(function (id) { return [id, new Set()]; }));
  const edgeEnds = new Map();
  for (const [id, versions] of edgeVersions) {
    edgeEnds.set(id, [last(versions).src, last(versions).dst]);
    for (const v of versions) {
      const a = neighbours.get(v.src), b = neighbours.get(v.dst);
      if (a && b && v.src !== v.dst) { a.add(v.dst); b.add(v.src); }
    }
  }
  const byDegree = nodeIds.slice().sort(function (a, b) {
    return neighbours.get(b).size - neighbours.get(a).size || (a < b ? -1 : a > b ? 1 : 0);
  });
  const rank = new Map(byDegree.map(function (id, i) { return [id, i]; }));
  function byRank(a, b) { return rank.get(a) - rank.get(b); }

  // ---------------------------------------------------------------- colours by label
  // A node is coloured by its rarest label: a label every node carries (Graphiti's "Entity")
  // tells nothing, the rarer one ("Person", "Company") does.
  const labelCount = new Map();
  for (const versions of nodeVersions.values()) {
    for (const l of last(versions).labels) labelCount.set(l, (labelCount.get(l) || 0) + 1);
  }
  function keyLabel(v) {
    let best = null;
    for (const l of v.labels) {
      const c = labelCount.get(l) || 0, cb = best === null ? 0 : labelCount.get(best) || 0;
      if (best === null || c < cb || (c === cb && l < best)) best = l;
    }
    return best === null ? "" : best;
  }
  function hue(text) {
    let h = 0;
    for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) % 360;
    return h;
  }
  function colourOf(label) { return label ? "hsl(" + hue(label) + ", 55%, 50%)" : "#6b7785"; }

  // ---------------------------------------------------------------- filters
  // Unticked values of the three lists on the right; a node passes on its label and group, an
  // edge on its relation and group (and is drawn when both its ends are).
  const hidden = { label: new Set(), group: new Set(), rel: new Set() };
  const facetValues = { label: new Set(), group: new Set(), rel: new Set() };
  for (const v of data.nodes) { facetValues.label.add(keyLabel(v)); facetValues.group.add(groupOf(v)); }
  for (const v of data.edges) { facetValues.rel.add(v.rel); facetValues.group.add(groupOf(v)); }
  function filtering() { return hidden.label.size + hidden.group.size + hidden.rel.size > 0; }
  function nodePasses(v) { return !hidden.label.has(keyLabel(v)) && !hidden.group.has(groupOf(v)); }
  function edgePasses(v) { return !hidden.rel.has(v.rel) && !hidden.group.has(groupOf(v)); }

  // ---------------------------------------------------------------- layout (Fruchterman-Reingold)
  // Repulsion acts only within a cut-off radius, found through a grid of cells, which keeps each
  // step near-linear; a weak pull to the centre keeps separate components on screen. The ids come
  // in order of importance (a focus first), and the spiral they start on puts the first in the middle.
  function layout(ids) {
    const n = ids.length;
    const index = new Map(ids.map(function (id, i) { return [id, i]; }));
    const x = new Float64Array(n), y = new Float64Array(n);
    const L = n <= LIMITS.drawAll ? 80 : 50;  // room for names where there are few enough to show
    for (let i = 0; i < n; i++) {  // a sunflower spiral: deterministic and evenly spread
      const r = L * 0.6 * Math.sqrt(i + 0.5), a = i * 2.399963229728653;
      x[i] = r * Math.cos(a); y[i] = r * Math.sin(a);
    }
    const links = [];
    for (const ends of edgeEnds.values()) {
      const a = index.get(ends[0]), b = index.get(ends[1]);
      if (a !== undefined && b !== undefined && a !== b) links.push([a, b]);
    }
    const iterations = n > 4000 ? 40 : n > 1000 ? 120 : 300;
    const cell = 3 * L;
    const dx = new Float64Array(n), dy = new Float64Array(n);
    for (let it = 0; it < iterations; it++) {
      const temp = L * (1 - it / iterations) + 1;
      dx.fill(0); dy.fill(0);
      const grid = new Map();
      for (let i = 0; i < n; i++) {
        const key = Math.floor(x[i] / cell) + ":" + Math.floor(y[i] / cell);
        if (!grid.has(key)) grid.set(key, []);
        grid.get(key).push(i);
      }
      for (let i = 0; i < n; i++) {
        const cx = Math.floor(x[i] / cell), cy = Math.floor(y[i] / cell);
        for (let gx = cx - 1; gx <= cx + 1; gx++) {
          for (let gy = cy - 1; gy <= cy + 1; gy++) {
            const members = grid.get(gx + ":" + gy);
            if (!members) continue;
            for (const j of members) {
              if (j === i) continue;
              let ddx = x[i] - x[j], ddy = y[i] - y[j];
              let d2 = ddx * ddx + ddy * ddy;
              // A cut-off radius, not the cell walls: otherwise a node near a wall sees more
              // neighbours on one side and the layout piles nodes up along the grid lines.
              if (d2 > cell * cell) continue;
              if (d2 < 0.01) { ddx = ((i * 7 + j) % 5) - 2 + 0.1; ddy = ((i + j * 3) % 5) - 2 + 0.1;
                               d2 = ddx * ddx + ddy * ddy; }
              const f = (L * L) / d2;
              dx[i] += ddx * f; dy[i] += ddy * f;
            }
          }
        }
      }
      for (const [a, b] of links) {
        const ddx = x[a] - x[b], ddy = y[a] - y[b];
        const d = Math.sqrt(ddx * ddx + ddy * ddy) || 0.01;
        const f = d / L;
        dx[a] -= ddx * f; dy[a] -= ddy * f;
        dx[b] += ddx * f; dy[b] += ddy * f;
      }
      for (let i = 0; i < n; i++) {
        dx[i] -= x[i] * 0.02; dy[i] -= y[i] * 0.02;
        const d = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]);
        if (d > 0) { const s = Math.min(d, temp) / d; x[i] += dx[i] * s; y[i] += dy[i] * s; }
      }
    }
    const pos = new Map();
    ids.forEach(function (id, i) { pos.set(id, [x[i], y[i]]); });
    return pos;
  }
  const layouts = new Map();  // the ids laid out, joined -> positions: going back is instant
  function layoutOf(ids) {
    const key = ids.join("\n");
    if (!layouts.has(key)) layouts.set(key, layout(ids));
    return layouts.get(key);
  }

  // ---------------------------------------------------------------- the scene: which ids to draw
  let focus = null;           // {id, depth}: draw a node's neighbourhood
  let drawEverything = false; // the reader asked to draw a large graph whole

  // The ids within `depth` steps of `start` through nodes that pass the filters, ring by ring,
  // the best-connected first within a ring (so a cut keeps the nearest, busiest neighbours).
  function neighbourhood(start, depth, ok) {
    const seen = new Set([start]), order = [start];
    let ring = [start];
    for (let d = 0; d < depth; d++) {
      const next = [];
      for (const id of ring) {
        for (const n of neighbours.get(id)) if (!seen.has(n) && ok.has(n)) { seen.add(n); next.push(n); }
      }
      next.sort(byRank);
      for (const id of next) order.push(id);
      ring = next;
    }
    return order;
  }

  function chooseScene() {
    const ok = new Set(nodeIds.filter(function (id) { return nodeVersions.get(id).some(nodePasses); }));
    if (focus) {
      const found = neighbourhood(focus.id, focus.depth, ok);
      const ids = found.slice(0, LIMITS.focus);
      return { mode: "focus", ids: ids, layoutIds: ids, notDrawn: found.length - ids.length, ok: ok };
    }
    if (drawEverything || ok.size <= LIMITS.drawAll) {
      const ids = nodeIds.filter(function (id) { return ok.has(id); });
      // A graph small enough to draw whole keeps its one layout under any filter: nothing jumps.
      const whole = drawEverything || nodeIds.length <= LIMITS.drawAll;
      return { mode: "all", ids: ids, layoutIds: whole ? byDegree : ids, notDrawn: 0, ok: ok };
    }
    const ids = byDegree.filter(function (id) { return ok.has(id); }).slice(0, LIMITS.overview);
    return { mode: "overview", ids: ids, layoutIds: ids, notDrawn: ok.size - ids.length, ok: ok };
  }

  // ---------------------------------------------------------------- SVG elements of the scene
  const svg = $("graph");
  const viewport = $("viewport");
  const labelLayer = $("labels"), edgeLayer = $("edges"), nodeLayer = $("nodes");
  let scene = null, pos = new Map();
  let nodeEls = new Map(), edgeEls = new Map(), nodeLabelEls = new Map(), edgeLabelEls = new Map();

  function el(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  // A node's name goes on the side (right, below, left, above) farthest from its drawn edges.
  // [angle, anchor, x, y, dx, dy]: x and y clear the circle, dx and dy (in em) the text's own size.
  const SIDES = [
    [0, "start", 9, 0, "0.15em", "0.35em"], [Math.PI / 2, "middle", 0, 9, "0", "1em"],
    [Math.PI, "end", -9, 0, "-0.15em", "0.35em"], [-Math.PI / 2, "middle", 0, -9, "0", "-0.3em"],
  ];
  function labelSide(id, inScene) {
    const p = pos.get(id), angles = [];
    for (const n of neighbours.get(id)) {
      if (inScene.has(n)) { const q = pos.get(n); angles.push(Math.atan2(q[1] - p[1], q[0] - p[0])); }
    }
    let best = SIDES[0], bestGap = -1;
    for (const side of SIDES) {
      let gap = Math.PI;
      for (const a of angles) {
        const d = Math.abs(a - side[0]) % (2 * Math.PI);
        gap = Math.min(gap, d > Math.PI ? 2 * Math.PI - d : d);
      }
      if (gap > bestGap + 1e-9) { best = side; bestGap = gap; }
    }
    return best;
  }

  // Labels are sized in screen pixels at the fitted zoom: --k is the user units of one pixel
  // (at least 1, so a small graph keeps the sizes it always had).
  function textScale() { return Number(svg.style.getPropertyValue("--k")) || 1; }

  function build() {
    scene = chooseScene();
    pos = layoutOf(scene.layoutIds);
    fit();
    const inScene = new Set(scene.ids);
    labelLayer.textContent = ""; edgeLayer.textContent = ""; nodeLayer.textContent = "";
    nodeEls = new Map(); edgeEls = new Map(); nodeLabelEls = new Map(); edgeLabelEls = new Map();

    const sceneEdges = [];
    for (const [id, ends] of edgeEnds) if (inScene.has(ends[0]) && inScene.has(ends[1])) sceneEdges.push(id);
    scene.edges = sceneEdges.length;

    const cap = scene.mode === "overview" ? LIMITS.overviewLabels : LIMITS.nodeLabels;
    const named = scene.ids.length <= cap ? inScene : new Set(scene.ids.slice().sort(byRank).slice(0, cap));
    if (focus) named.add(focus.id);
    for (const id of scene.ids) {
      const p = pos.get(id), at = "translate(" + p[0].toFixed(1) + "," + p[1].toFixed(1) + ")";
      const g = el("g", { class: "node", transform: at });
      g.dataset.id = id;
      g.appendChild(el("circle", { r: "7" }));
      nodeLayer.appendChild(g);
      nodeEls.set(id, g);
      if (named.has(id)) {
        const side = labelSide(id, inScene);
        const t = el("text", { class: "nlabel", transform: at, x: side[2], y: side[3], dx: side[4], dy: side[5],
                               "text-anchor": side[1] });
        t.dataset.id = id;
        labelLayer.appendChild(t);
        nodeLabelEls.set(id, t);
      }
    }

    // An edge's relation sits beside its line, along it and upright, never on it; a second edge
    // between the same two nodes puts its label a line further out. Labels are drawn under the
    // edges and nodes, so no label hides an edge, however short.
    const pairSeen = new Map();
    const hitLines = sceneEdges.length <= LIMITS.hitLines;
    for (const id of sceneEdges) {
      const ends = edgeEnds.get(id), a = pos.get(ends[0]), b = pos.get(ends[1]);
      const xy = { x1: a[0].toFixed(1), y1: a[1].toFixed(1), x2: b[0].toFixed(1), y2: b[1].toFixed(1) };
      const g = el("g", { class: "edge" });
      g.dataset.id = id;
      if (hitLines) g.appendChild(el("line", Object.assign({ class: "hit" }, xy)));
      g.appendChild(el("line", Object.assign({ class: "vis", "marker-end": "url(#arrow)" }, xy)));
      edgeLayer.appendChild(g);
      edgeEls.set(id, g);
      const labelled = sceneEdges.length <= LIMITS.edgeLabels ||
        (focus !== null && (ends[0] === focus.id || ends[1] === focus.id) && edgeLabelEls.size < LIMITS.edgeLabels);
      if (!labelled || ends[0] === ends[1]) continue;
      const pair = ends[0] < ends[1] ? ends[0] + "\n" + ends[1] : ends[1] + "\n" + ends[0];
      const k = pairSeen.get(pair) || 0;
      pairSeen.set(pair, k + 1);
      const ddx = b[0] - a[0], ddy = b[1] - a[1], length = Math.sqrt(ddx * ddx + ddy * ddy);
      let angle = Math.atan2(ddy, ddx) * 180 / Math.PI;
      if (angle > 90) angle -= 180; else if (angle < -90) angle += 180;
      const t = el("text", {
        class: "elabel", y: "-2", dy: (-0.3 - 1.2 * k).toFixed(1) + "em", "text-anchor": "middle",
        transform: "translate(" + ((a[0] + b[0]) / 2).toFixed(1) + "," + ((a[1] + b[1]) / 2).toFixed(1) +
          ") rotate(" + angle.toFixed(1) + ")",
      });
      t.dataset.id = id;
      // Characters that fit between the two circles (capitals are ~2/3 em wide); at least a few.
      t.dataset.fit = String(Math.max(6, Math.floor((length - 18) / (6 * textScale()))));
      labelLayer.appendChild(t);
      edgeLabelEls.set(id, t);
    }
  }

  // Fit the drawing into the view box, and undo any pan and zoom.
  function fit() {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const id of scene.ids) {
      const p = pos.get(id);
      x0 = Math.min(x0, p[0]); y0 = Math.min(y0, p[1]);
      x1 = Math.max(x1, p[0]); y1 = Math.max(y1, p[1]);
    }
    if (!isFinite(x0)) { x0 = -100; y0 = -100; x1 = 100; y1 = 100; }
    // A margin for labels, and a least extent so that a tiny graph is not blown up.
    const m = 60, cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    const w = Math.max(x1 - x0 + 2 * m + 80, 420), h = Math.max(y1 - y0 + 2 * m, 280);
    svg.setAttribute("viewBox", [cx - w / 2 + 40, cy - h / 2, w, h].join(" "));
    const box = svg.getBoundingClientRect();
    const k = box.width > 0 && box.height > 0 ? Math.max(w / box.width, h / box.height) : 1;
    svg.style.setProperty("--k", Math.max(1, k).toFixed(3));
    view.scale = 1; view.x = 0; view.y = 0;
    applyView();
  }

  // ---------------------------------------------------------------- drawing one instant
  let currentT = instants.length ? instants[instants.length - 1] : 0;
  let picked = null;          // ["node" | "edge", id]
  let matches = new Set();    // ids the search found, ringed in the drawing

  function bump(map, key) { map.set(key, (map.get(key) || 0) + 1); }

  function draw() {
    const t = currentT;
    const known = { label: new Map(), group: new Map(), rel: new Map() };
    const drawn = { label: new Map(), group: new Map(), rel: new Map() };
    let knownNodes = 0, knownEdges = 0, drawnEdges = 0;
    const shown = new Set();
    for (const [id, versions] of nodeVersions) {
      const v = visibleAt(versions, t);
      if (v) { knownNodes++; bump(known.label, keyLabel(v)); bump(known.group, groupOf(v)); }
      const g = nodeEls.get(id);
      if (!g) continue;
      const on = v !== null && nodePasses(v);
      g.toggleAttribute("hidden", !on);
      const name = nodeLabelEls.get(id);
      if (name) name.toggleAttribute("hidden", !on);
      if (!on) continue;
      shown.add(id);
      bump(drawn.label, keyLabel(v)); bump(drawn.group, groupOf(v));
      g.setAttribute("class", "node" + (v.tf === t ? " fresh" : "") + (matches.has(id) ? " match" : "") +
                     (focus && focus.id === id ? " focus" : "") +
                     (picked && picked[0] === "node" && picked[1] === id ? " picked" : ""));
      g.firstChild.setAttribute("fill", colourOf(keyLabel(v)));
      if (name) name.textContent = short(v.name || v.id, 28);
    }
    for (const [id, versions] of edgeVersions) {
      const v = visibleAt(versions, t);
      if (v) { knownEdges++; bump(known.rel, v.rel); }
      const g = edgeEls.get(id);
      if (!g) continue;
      const on = v !== null && edgePasses(v) && shown.has(v.src) && shown.has(v.dst);
      g.toggleAttribute("hidden", !on);
      const label = edgeLabelEls.get(id);
      if (label) label.toggleAttribute("hidden", !on);
      if (!on) continue;
      drawnEdges++;
      bump(drawn.rel, v.rel);
      g.setAttribute("class", "edge" + (v.vt ? " ended" : "") + (v.tf === t ? " fresh" : "") +
                     (picked && picked[0] === "edge" && picked[1] === id ? " picked" : ""));
      if (label) label.textContent = short(edgeLabel(v), Number(label.dataset.fit));
    }

    const step = Number(slider.value);
    when.textContent = instants.length ? iso(t) + "  (" + (step + 1) + "/" + instants.length + ")" : "empty store";
    let line = knownNodes + " nodes, " + knownEdges + " edges as known at " + (instants.length ? iso(t) : "-");
    if (shown.size !== knownNodes || drawnEdges !== knownEdges) {
      line += " \u00b7 drawn: " + shown.size + " nodes, " + drawnEdges + " edges";
    }
    status.textContent = line + " \u00b7 " + nodeVersions.size + " node ids, " + edgeVersions.size +
      " edge ids, " + instants.length + " instants";
    const d = status.dataset;
    d.step = String(step);
    d.steps = String(instants.length);
    d.t = instants.length ? iso(t) : "";
    d.nodes = String(knownNodes);
    d.edges = String(knownEdges);
    d.drawnNodes = String(shown.size);
    d.drawnEdges = String(drawnEdges);
    d.visibleIds = Array.from(shown).sort().join(" ");
    d.mode = scene.mode;
    d.focus = focus ? focus.id : "";
    d.depth = focus ? String(focus.depth) : "";
    d.notDrawn = String(scene.notDrawn);
    d.errors = String(window.anatidErrors.length);
    showFacets(known, drawn);
    showNote();
    if (picked) showDetails(picked[0], picked[1]);
  }

  // ---------------------------------------------------------------- the note on what is drawn
  const note = $("note");
  function noteButton(text, action, disabled) {
    const b = document.createElement("button");
    b.type = "button"; b.textContent = text; b.disabled = !!disabled;
    b.addEventListener("click", action);
    return b;
  }
  function showNote() {
    note.textContent = "";
    const total = nodeIds.length, says = [], buttons = [];
    if (scene.mode === "overview") {
      says.push("A large graph (" + num(scene.ok.size) + " nodes over its history" +
        (filtering() ? " that pass the filters" : "") + "): drawing the " + num(scene.ids.length) +
        " best-connected and the " + num(scene.edges) + " edges among them; " + num(scene.notDrawn) +
        " are not drawn. Search for a name, double-click a node for its neighbourhood, or untick " +
        "labels, groups and relations on the right.");
      buttons.push(noteButton("draw all " + num(scene.ok.size) + " (slow)", function () { drawEverything = true; rebuild(); }));
    } else if (scene.mode === "focus") {
      const vs = nodeVersions.get(focus.id), v = visibleAt(vs, currentT) || last(vs);
      says.push("The neighbourhood of \u201c" + (v.name || v.id) + "\u201d, " + focus.depth +
        (focus.depth === 1 ? " step" : " steps") + " out: " + num(scene.ids.length) + " nodes" +
        (scene.notDrawn ? "; " + num(scene.notDrawn) + " more beyond the nearest " + LIMITS.focus + " are not drawn" : "") + ".");
      for (const depth of [1, 2]) {
        buttons.push(noteButton("depth " + depth, function () { focusOn(focus.id, depth); }, depth === focus.depth));
      }
      buttons.push(noteButton(total > LIMITS.drawAll && !drawEverything ? "back to the overview" : "back to the whole graph",
        function () { focus = null; rebuild(); }));
    } else if (total > LIMITS.drawAll) {
      says.push("Drawing all " + num(scene.ids.length) + " nodes: slow to pan and zoom.");
      buttons.push(noteButton("back to the overview", function () { drawEverything = false; rebuild(); }));
    }
    if (filtering()) {
      says.push("Filters hide " + num(total - scene.ok.size) + " of " + num(total) + " nodes" +
        (hidden.rel.size ? " and the edges of " + hidden.rel.size + (hidden.rel.size === 1 ? " relation" : " relations") : "") + ".");
      buttons.push(noteButton("clear the filters", function () {
        hidden.label.clear(); hidden.group.clear(); hidden.rel.clear(); rebuild();
      }));
    }
    note.hidden = says.length === 0;
    if (note.hidden) return;
    const p = document.createElement("span");
    p.textContent = says.join(" ");
    note.appendChild(p);
    for (const b of buttons) note.appendChild(b);
  }

  // ---------------------------------------------------------------- legend and filters
  // Counts are of what the store knew at the selected instant; "drawn" says how many of them the
  // drawing shows when that is fewer. Unticking a value hides it.
  const facets = $("facets");
  const FACET_TITLES = { label: "labels (node colours)", group: "groups", rel: "relations" };
  function showFacets(known, drawn) {
    facets.textContent = "";
    for (const kind of ["label", "group", "rel"]) {
      const values = Array.from(facetValues[kind]);
      if (kind !== "label" && values.length < 2 && !hidden[kind].size) continue;
      values.sort(function (a, b) { return (known[kind].get(b) || 0) - (known[kind].get(a) || 0) || (a < b ? -1 : 1); });
      const box = document.createElement("section");
      box.className = "facet";
      box.dataset.kind = kind;
      const h = document.createElement("h3");
      h.textContent = FACET_TITLES[kind];
      box.appendChild(h);
      const list = document.createElement("ul");
      for (const value of values) {
        const count = known[kind].get(value) || 0, seen = drawn[kind].get(value) || 0;
        const li = document.createElement("li");
        li.dataset.value = value;
        li.dataset.count = String(count);
        if (!count) li.className = "none";
        const label = document.createElement("label");
        const box2 = document.createElement("input");
        box2.type = "checkbox";
        box2.checked = !hidden[kind].has(value);
        box2.addEventListener("change", function () {
          if (box2.checked) hidden[kind].delete(value); else hidden[kind].add(value);
          rebuild();
        });
        label.appendChild(box2);
        if (kind === "label") {
          const dot = document.createElement("span");
          dot.className = "swatch";
          dot.style.background = colourOf(value);
          label.appendChild(dot);
        }
        label.appendChild(document.createTextNode(value || "(none)"));
        const c = document.createElement("span");
        c.className = "count";
        c.textContent = num(count) + (seen !== count && count ? " \u00b7 " + num(seen) + " drawn" : "");
        label.appendChild(c);
        li.appendChild(label);
        list.appendChild(li);
      }
      box.appendChild(list);
      facets.appendChild(box);
    }
  }

  // ---------------------------------------------------------------- search
  const search = $("search"), results = $("results");
  const searchable = nodeIds.map(function (id) {
    const names = new Set([id.toLowerCase()]);
    let text = "";
    for (const v of nodeVersions.get(id)) { if (v.name) names.add(v.name.toLowerCase()); text = v.text || text; }
    return [id, Array.from(names), text.toLowerCase()];
  });
  // A name or id that is the query first, then those that start with it, then a word of a name,
  // then anywhere in a name or id, then the text; the best-connected first within each.
  function find(query) {
    const q = query.trim().toLowerCase();
    if (!q) return [];
    const found = [];
    for (const [id, names, text] of searchable) {
      let score = 4;
      for (const n of names) {
        const at = n.indexOf(q);
        if (n === q) score = -1;
        else if (at === 0) score = Math.min(score, 0);
        else if (at > 0) score = Math.min(score, /[^a-z0-9]/.test(n[at - 1]) ? 1 : 2);
      }
      if (score === 4 && text.indexOf(q) >= 0) score = 3;
      if (score < 4) found.push([score, id]);
    }
    found.sort(function (a, b) { return a[0] - b[0] || byRank(a[1], b[1]); });
    return found.map(function (f) { return f[1]; });
  }
  function showResults() {
    const ids = find(search.value);
    matches = new Set(ids);
    results.textContent = "";
    results.dataset.count = String(ids.length);
    if (search.value.trim()) {
      const head = document.createElement("li");
      head.className = "hint";
      head.textContent = ids.length ? (ids.length > LIMITS.results ? num(ids.length) + " found; the first " + LIMITS.results + ":" :
        ids.length + " found; pick one for its neighbourhood:") : "no node matches";
      results.appendChild(head);
    }
    for (const id of ids.slice(0, LIMITS.results)) {
      const vs = nodeVersions.get(id), v = visibleAt(vs, currentT) || last(vs);
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button"; b.dataset.id = id;
      const dot = document.createElement("span");
      dot.className = "swatch"; dot.style.background = colourOf(keyLabel(v));
      b.appendChild(dot);
      b.appendChild(document.createTextNode(short(v.name || v.id, 40)));
      const small = document.createElement("small");
      small.textContent = " " + (keyLabel(v) || "") + " \u00b7 " + neighbours.get(id).size + " neighbours";
      b.appendChild(small);
      b.addEventListener("click", function () { focusOn(id); });
      li.appendChild(b);
      results.appendChild(li);
    }
    draw();
  }
  search.addEventListener("input", showResults);
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { const first = find(search.value)[0]; if (first !== undefined) focusOn(first); }
    if (ev.key === "Escape") { search.value = ""; showResults(); }
  });

  // ---------------------------------------------------------------- focus, pick
  function rebuild() { build(); draw(); }
  function focusOn(id, depth) {
    if (!nodeVersions.has(id)) return;
    focus = { id: id, depth: depth || (focus ? focus.depth : 1) };
    picked = ["node", id];
    rebuild();
  }
  function pick(kind, id) { picked = [kind, id]; draw(); }

  // ---------------------------------------------------------------- details of one id
  const details = $("details");
  function cell(text) { const td = document.createElement("td"); td.textContent = text; return td; }
  function nameOf(id) {
    const vs = nodeVersions.get(id);
    if (!vs) return id;
    const v = visibleAt(vs, currentT) || last(vs);
    return v.name || v.id;
  }
  function link(text, action) {
    const a = document.createElement("button");
    a.type = "button"; a.className = "link"; a.textContent = text;
    a.addEventListener("click", action);
    return a;
  }
  function showDetails(kind, id) {
    const versions = (kind === "node" ? nodeVersions : edgeVersions).get(id) || [];
    const v = visibleAt(versions, currentT);
    details.textContent = "";
    details.hidden = false;
    details.dataset.kind = kind;
    details.dataset.id = id;
    const h = document.createElement("h2");
    h.textContent = kind === "node" ? nameOf(id) : edgeLabel(v || last(versions));
    details.appendChild(h);
    const dl = document.createElement("dl");
    function row(k, val) {
      if (val === undefined || val === null || val === "") return;
      const dt = document.createElement("dt"); dt.textContent = k;
      const dd = document.createElement("dd");
      if (typeof val === "string") dd.textContent = val; else dd.appendChild(val);
      dd.dataset.row = k;
      dl.appendChild(dt); dl.appendChild(dd);
    }
    if (v && kind === "edge") {
      row("fact", v.text);
      const ends = document.createElement("span");
      ends.appendChild(link(nameOf(v.src), function () { pick("node", v.src); }));
      ends.appendChild(document.createTextNode(" \u2013" + v.rel + "\u2192 "));
      ends.appendChild(link(nameOf(v.dst), function () { pick("node", v.dst); }));
      row("edge", ends);
      row("name", v.name);
    } else if (v) {
      row("labels", v.labels.join(", "));
      row("text", v.text);
    } else {
      row("state", "not known at this instant");
    }
    row("id", id);
    if (v) {
      row("group", v.group);
      row("valid", (v.vf || "\u2026") + " \u2013 " + (v.vt || "\u2026"));
    }
    details.appendChild(dl);
    if (kind === "node") {
      const p = document.createElement("p");
      p.className = "actions";
      p.appendChild(document.createTextNode("neighbourhood: "));
      for (const depth of [1, 2]) {
        const b = link("depth " + depth, function () { focusOn(id, depth); });
        b.dataset.depth = String(depth);
        p.appendChild(b);
      }
      details.appendChild(p);
    }
    const table = document.createElement("table");
    const head = document.createElement("tr");
    for (const t of ["ver", "known from", "until", kind === "node" ? "name" : "fact"]) {
      const th = document.createElement("th"); th.textContent = t; head.appendChild(th);
    }
    table.appendChild(head);
    for (const x of versions) {
      const tr = document.createElement("tr");
      if (x === v) tr.className = "now";
      tr.appendChild(cell(String(x.v)));
      tr.appendChild(cell(iso(x.tf)));
      tr.appendChild(cell(x.tt === null ? "current" : iso(x.tt)));
      tr.appendChild(cell(short((kind === "node" ? x.name : x.text || x.name) || "", 60)));
      table.appendChild(tr);
    }
    details.appendChild(table);
  }

  // ---------------------------------------------------------------- pointer: hover, click, pan, zoom
  const tip = $("tip");
  function target(ev) {
    const e = ev.target instanceof Element ? ev.target.closest(".node, .edge") : null;
    return e ? [e.classList.contains("node") ? "node" : "edge", e.dataset.id] : null;
  }
  svg.addEventListener("mouseover", function (ev) {
    const hit = target(ev);
    if (!hit) { tip.hidden = true; return; }
    const versions = (hit[0] === "node" ? nodeVersions : edgeVersions).get(hit[1]);
    const v = visibleAt(versions, currentT) || last(versions);
    tip.textContent = "";
    const b = document.createElement("b");
    const more = document.createElement("div");
    if (hit[0] === "edge") {
      b.textContent = edgeLabel(v);
      more.textContent = v.text || v.name || "";
      const ends = document.createElement("small");
      ends.textContent = nameOf(v.src) + " \u2192 " + nameOf(v.dst);
      tip.appendChild(b); tip.appendChild(more); tip.appendChild(ends);
    } else {
      b.textContent = v.name || v.id;
      more.textContent = v.labels.join(", ") + (v.text ? ": " + short(v.text, 160) : "");
      tip.appendChild(b); tip.appendChild(more);
    }
    tip.dataset.kind = hit[0];
    tip.dataset.id = hit[1];
    tip.hidden = false;
    placeTip(ev);
  });
  function placeTip(ev) {
    tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8) + "px";
    tip.style.top = Math.min(ev.clientY + 14, window.innerHeight - tip.offsetHeight - 8) + "px";
  }
  svg.addEventListener("mousemove", function (ev) { if (!tip.hidden) placeTip(ev); });
  svg.addEventListener("mouseleave", function () { tip.hidden = true; });

  let moved = false;
  svg.addEventListener("click", function (ev) {
    if (moved) return;  // the end of a pan, not a click
    const hit = target(ev);
    if (hit) { pick(hit[0], hit[1]); return; }
    picked = null;
    details.hidden = true;
    draw();
  });
  svg.addEventListener("dblclick", function (ev) {
    const hit = target(ev);
    if (hit && hit[0] === "node") focusOn(hit[1]);
  });

  const view = { scale: 1, x: 0, y: 0 };
  let drag = null;
  function applyView() {
    viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.scale + ")");
  }
  function svgPoint(ev) {
    const m = svg.getScreenCTM();
    if (!m) return [ev.clientX, ev.clientY];
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    return [p.x, p.y];
  }
  svg.addEventListener("wheel", function (ev) {  // zoom about the pointer
    ev.preventDefault();
    const p = svgPoint(ev);
    const next = Math.min(40, Math.max(0.05, view.scale * (ev.deltaY < 0 ? 1.15 : 1 / 1.15)));
    view.x = p[0] - (p[0] - view.x) * next / view.scale;
    view.y = p[1] - (p[1] - view.y) * next / view.scale;
    view.scale = next;
    applyView();
  }, { passive: false });
  svg.addEventListener("mousedown", function (ev) {
    const p = svgPoint(ev);
    drag = [p[0] - view.x, p[1] - view.y, ev.clientX, ev.clientY];
    moved = false;
  });
  window.addEventListener("mouseup", function () { drag = null; });
  window.addEventListener("mousemove", function (ev) {
    if (!drag) return;
    if (Math.abs(ev.clientX - drag[2]) + Math.abs(ev.clientY - drag[3]) > 3) moved = true;
    if (!moved) return;
    const p = svgPoint(ev);
    view.x = p[0] - drag[0]; view.y = p[1] - drag[1];
    applyView();
  });

  // ---------------------------------------------------------------- slider, play, URL
  slider.max = String(Math.max(instants.length - 1, 0));
  slider.disabled = instants.length === 0;
  slider.addEventListener("input", function () {
    currentT = instants[Number(slider.value)];
    draw();
  });
  let timer = null;
  $("play").addEventListener("click", function () {
    if (timer) { clearInterval(timer); timer = null; return; }
    if (Number(slider.value) >= instants.length - 1) slider.value = "0";
    timer = setInterval(function () {
      const next = Number(slider.value) + 1;
      if (next >= instants.length) { clearInterval(timer); timer = null; return; }
      slider.value = String(next);
      currentT = instants[next];
      draw();
    }, 700);
  });

  // ?step=N (negative counts from the end) or ?t=<ISO time or microseconds>: open at that
  // instant, so a link (or a test) can show the graph as it was. ?focus=<node id>&depth=2 opens
  // on a neighbourhood, ?q=<text> with a search, ?all=1 draws a large graph whole.
  const params = new URLSearchParams(window.location.search);
  drawEverything = params.get("all") === "1";
  if (params.has("focus") && nodeVersions.has(params.get("focus"))) {
    focus = { id: params.get("focus"), depth: params.get("depth") === "2" ? 2 : 1 };
    picked = ["node", focus.id];
  }
  build();
  (function fromUrl() {
    let step = instants.length - 1;
    if (params.has("step")) {
      const s = parseInt(params.get("step"), 10);
      if (!isNaN(s)) step = s < 0 ? instants.length + s : s;
    } else if (params.has("t")) {
      const raw = params.get("t");
      const us = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw) * 1000;
      if (!isNaN(us)) {
        step = 0;
        for (let i = 0; i < instants.length; i++) if (instants[i] <= us) step = i;
      }
    }
    step = Math.min(Math.max(step, 0), Math.max(instants.length - 1, 0));
    // Through the slider's own input handler, exactly as if a person had dragged it there.
    slider.value = String(step);
    if (instants.length) slider.dispatchEvent(new Event("input"));
  })();
  if (params.has("q")) { search.value = params.get("q"); showResults(); }

  if (!instants.length) draw();
  status.dataset.ready = "1";
})();

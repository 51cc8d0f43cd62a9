// wtc ui: the live page of a run. Polls /api/changes?since=VERSION every second and redraws only
// what changed (rows by task, sections whole). No framework, no build step, no network but its own
// origin (the server's Content-Security-Policy says so too). Read-only: it sends nothing but GETs.
(function () {
  "use strict";
  var COLOURS = {
    started: "#6b7280", finished: "#2563eb", merged: "#16a34a", conflict: "#dc2626", rejected: "#ea580c",
    updated: "#7c3aed", abandoned: "#374151", empty: "#9ca3af", failed: "#b91c1c", failed_verification: "#b91c1c",
    agent: "#0891b2", repair: "#d97706"
  };
  var STATES = ["started", "finished", "merged", "conflict", "rejected", "abandoned", "empty", "failed"];
  var POLL_MS = 1000;
  var LABEL = 190;

  var model = { version: 0, tasks: new Map(), sections: {}, run: null };
  var view = { search: "", hidden: new Set(), groupBy: "auto", zoom: 1, selected: null, rows: new Map() };

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    return node;
  }
  function short(sha) { return sha ? String(sha).slice(0, 12) : ""; }
  function clock(at) { return at ? new Date(at * 1000).toLocaleTimeString() : ""; }
  function colour(state) { return COLOURS[state] || "#6b7280"; }

  // ---- polling -------------------------------------------------------------------------------
  var failures = 0;
  function poll() {
    fetch("/api/changes?since=" + model.version, { cache: "no-store", credentials: "same-origin" })
      .then(function (answer) {
        if (!answer.ok) { throw new Error("HTTP " + answer.status); }
        return answer.json();
      })
      .then(function (changes) {
        failures = 0;
        apply(changes);
        $("live-status").className = "status";
        $("live-status").textContent = "live · version " + model.version + " · " + new Date().toLocaleTimeString();
      })
      .catch(function (error) {
        failures += 1;
        $("live-status").className = "status stale";
        $("live-status").textContent = "not updating (" + error.message + "), retrying";
      })
      .then(function () { setTimeout(poll, failures ? Math.min(10000, POLL_MS * (failures + 1)) : POLL_MS); });
  }

  function apply(changes) {
    if (changes.full) { model.tasks.clear(); }
    changes.tasks.forEach(function (row) { model.tasks.set(row.task, row); });
    changes.removed.forEach(function (name) { model.tasks.delete(name); });
    var sections = changes.sections || {};
    Object.keys(sections).forEach(function (name) { model.sections[name] = sections[name]; });
    var tasksMoved = changes.full || changes.tasks.length > 0 || changes.removed.length > 0;
    model.version = changes.version;
    model.now = changes.now;
    model.polls = (model.polls || 0) + 1;
    // Live tasks' bars grow with the clock: redraw now and then even when nothing changed.
    var anyLive = (counts().started || 0) + (counts().conflict || 0) + (counts().rejected || 0) > 0;
    if (!tasksMoved && anyLive && model.polls % 5 === 0) { drawTimeline(); }
    if (sections.run) { drawRun(sections.run); }
    if (tasksMoved) { drawCounts(); drawStateFilter(); }
    if (tasksMoved || sections.run) { drawTimeline(); }
    if (sections.merges || sections.run) { drawThroughput(); }
    if (sections.conflicts) { drawConflicts(); }
    if (sections.intents) { drawIntents(); }
    if (sections.forecast || sections.forecast_state || sections.forecast_error) { drawForecast(); }
    if (sections.report || sections.report_error) { drawReport(); }
    document.body.setAttribute("data-version", String(model.version));
    if (!document.body.hasAttribute("data-ready")) {
      // From navigation start to the first whole drawing: the load time scripts/ui_screenshots.py reports.
      document.body.setAttribute("data-ready-ms", String(Math.round(performance.now())));
      document.body.setAttribute("data-ready", "1");
    }
  }

  // ---- header ----------------------------------------------------------------------------------
  function drawRun(run) {
    model.run = run;
    $("run-id").textContent = run.run;
    document.title = "wtc run " + run.run;
    $("run-meta").textContent = "integration " + run.integration + ", pinned at " + short(run.base) +
      " · " + run.state + " · started " + clock(run.created_at);
  }

  function counts() {
    var out = {};
    model.tasks.forEach(function (row) { out[row.state] = (out[row.state] || 0) + 1; });
    return out;
  }

  function drawCounts() {
    var box = $("counts");
    var have = counts();
    box.textContent = "";
    box.appendChild(el("span", null, model.tasks.size + " tasks: "));
    STATES.forEach(function (state) {
      if (!have[state]) { return; }
      var button = el("button", view.hidden.has(state) ? "off" : "", state + " " + have[state]);
      button.style.background = colour(state);
      button.setAttribute("data-state", state);
      button.setAttribute("data-count", String(have[state]));
      button.addEventListener("click", function () { toggleState(state); });
      box.appendChild(button);
    });
  }

  function drawStateFilter() {
    var box = $("state-filter");
    if (box.childNodes.length === STATES.length) {
      STATES.forEach(function (state, i) { box.childNodes[i].firstChild.checked = !view.hidden.has(state); });
      return;
    }
    box.textContent = "";
    STATES.forEach(function (state) {
      var label = el("label");
      var check = el("input");
      check.type = "checkbox";
      check.checked = !view.hidden.has(state);
      check.value = state;
      check.addEventListener("change", function () { toggleState(state); });
      label.appendChild(check);
      label.appendChild(document.createTextNode(" " + state));
      box.appendChild(label);
    });
  }

  function toggleState(state) {
    if (view.hidden.has(state)) { view.hidden.delete(state); } else { view.hidden.add(state); }
    drawCounts();
    drawStateFilter();
    drawTimeline();
  }

  // ---- timeline ----------------------------------------------------------------------------------
  // The time axis spans the rows shown (a search or a state filter fits the axis to them), from the
  // first point to now; zoom stretches it and the timeline scrolls.
  function timeRange(onlyShown) {
    var start = Infinity;
    var end = 0;
    var any = false;
    model.tasks.forEach(function (row) {
      if (onlyShown && !visible(row)) { return; }
      any = true;
      row.events.forEach(function (p) { if (p.at < start) { start = p.at; } if (p.at > end) { end = p.at; } });
      if (row.state === "started" || row.state === "conflict" || row.state === "rejected") { end = Math.max(end, model.now || 0); }
    });
    if (!any && model.run) { start = model.run.created_at; end = model.now || start + 1; }
    if (!isFinite(start)) { start = (model.now || 1) - 1; }
    return { start: start, end: Math.max(end, start + 1) };
  }

  function sortedRows() {
    var rows = Array.from(model.tasks.values());
    rows.sort(function (a, b) { return a.created_at - b.created_at || (a.task < b.task ? -1 : 1); });
    return rows;
  }

  function visible(row) {
    return !view.hidden.has(row.state) && (view.search === "" || row.task.toLowerCase().indexOf(view.search) >= 0);
  }

  function drawTimeline() {
    var box = $("timeline");
    var range = timeRange(true);
    var width = Math.max(300, (box.clientWidth || 900) - LABEL - 24) * view.zoom;
    var scale = width / (range.end - range.start);
    var live = { started: true, rejected: true, conflict: true };
    var now = model.now || range.end;
    var fragment = document.createDocumentFragment();
    fragment.appendChild(axis(range, width));
    var groups = new Map();
    var shown = 0;
    var by = view.groupBy;
    if (by === "auto") {
      by = "group";
      model.tasks.forEach(function (row) { if (row.phase) { by = "phase"; } });
    }
    sortedRows().forEach(function (row) {
      if (!visible(row)) { return; }
      shown += 1;
      var key = by === "none" ? "" : (by === "state" ? row.state : (by === "phase" ? row.phase || "not in the plan" : row.group));
      if (!groups.has(key)) { groups.set(key, []); }
      groups.get(key).push(row);
    });
    var keys = Array.from(groups.keys()).sort();
    view.rows = new Map();
    keys.forEach(function (key) {
      if (key !== "") {
        var header = el("div", "group", key + " (" + groups.get(key).length + ")");
        header.setAttribute("data-group", key);
        fragment.appendChild(header);
      }
      groups.get(key).forEach(function (row) {
        var line = el("div", "row" + (view.selected === row.task ? " sel" : ""));
        line.setAttribute("role", "listitem");
        line.setAttribute("data-task", row.task);
        line.setAttribute("data-state", row.state);
        var label = el("div", "label", row.task);
        label.title = row.task + " · " + row.state + " · " + row.files + " file(s)" +
          (row.repairs ? " · " + row.repairs + " repair(s)" : "");
        line.appendChild(label);
        var track = el("div", "track");
        track.style.width = width + "px";
        var first = row.events.length ? row.events[0].at : row.created_at;
        var last = live[row.state] ? now : row.events[row.events.length - 1].at;
        var bar = el("div", "bar");
        bar.style.left = ((first - range.start) * scale) + "px";
        bar.style.width = Math.max(2, (last - first) * scale) + "px";
        bar.style.background = colour(row.state);
        track.appendChild(bar);
        row.events.forEach(function (p) {
          var dot = el("div", "pt");
          dot.style.left = ((p.at - range.start) * scale) + "px";
          dot.style.background = colour(p.kind);
          dot.title = row.task + ": " + p.kind + " at +" + (p.at - range.start).toFixed(1) + " s";
          dot.setAttribute("data-kind", p.kind);
          track.appendChild(dot);
        });
        line.appendChild(track);
        line.addEventListener("click", function () { openDetail(row.task); });
        fragment.appendChild(line);
        view.rows.set(row.task, line);
      });
    });
    var scrollTop = box.scrollTop, scrollLeft = box.scrollLeft;
    box.textContent = "";
    box.appendChild(fragment);
    box.scrollTop = scrollTop;
    box.scrollLeft = scrollLeft;
    $("timeline-shown").textContent = shown + " of " + model.tasks.size + " shown";
  }

  function axis(range, width) {
    var line = el("div", "axis");
    line.appendChild(el("div", "label", "task"));
    var track = el("div", "track");
    track.style.width = width + "px";
    var span = range.end - range.start;
    var steps = Math.max(2, Math.floor(width / 110));
    var minutes = span >= 180;
    for (var i = 0; i <= steps; i += 1) {
      var at = span * i / steps;
      var tick = el("div", "tick", minutes ? (at / 60).toFixed(1) + " min" : at.toFixed(1) + " s");
      tick.style.left = (at / span * width) + "px";
      track.appendChild(tick);
    }
    line.appendChild(track);
    return line;
  }

  function drawLegend() {
    var box = $("legend");
    ["started", "finished", "merged", "conflict", "rejected", "updated", "abandoned", "agent", "repair"].forEach(function (k) {
      var item = el("span");
      var dot = el("i", "dot");
      dot.style.background = colour(k);
      item.appendChild(dot);
      item.appendChild(document.createTextNode(k));
      box.appendChild(item);
    });
  }

  // ---- throughput ----------------------------------------------------------------------------------
  function drawThroughput() {
    var box = $("throughput");
    var merges = model.sections.merges || [];
    var range = timeRange(false);
    var chart = svg("svg", { viewBox: "0 0 600 160", preserveAspectRatio: "none", role: "img",
                             "aria-label": "merges into integration over time" });
    var span = range.end - range.start;
    var buckets = 30;
    var counts = new Array(buckets).fill(0);
    merges.forEach(function (m) {
      var i = Math.min(buckets - 1, Math.max(0, Math.floor((m.at - range.start) / span * buckets)));
      counts[i] += 1;
    });
    var top = Math.max(1, Math.max.apply(null, counts));
    counts.forEach(function (n, i) {
      var h = n / top * 120;
      var rect = svg("rect", { x: 40 + i * 18, y: 130 - h, width: 14, height: h, fill: "#16a34a", opacity: 0.75 });
      var title = svg("title");
      title.textContent = n + " merge(s) in " + (span / buckets).toFixed(1) + " s";
      rect.appendChild(title);
      chart.appendChild(rect);
    });
    // The cumulative line: merged so far.
    var points = ["40,130"];
    merges.forEach(function (m, i) {
      points.push((40 + (m.at - range.start) / span * 540).toFixed(1) + "," + (130 - (i + 1) / Math.max(1, merges.length) * 120).toFixed(1));
    });
    chart.appendChild(svg("polyline", { points: points.join(" "), fill: "none", stroke: "#2563eb", "stroke-width": 1.5 }));
    var label = svg("text", { x: 4, y: 150, "font-size": 11, fill: "#6b7280" });
    label.textContent = merges.length + " merged · busiest " + top + " per " + (span / buckets).toFixed(1) + " s";
    chart.appendChild(label);
    box.textContent = "";
    box.appendChild(chart);
    box.setAttribute("data-merged", String(merges.length));
  }

  // ---- conflicts ----------------------------------------------------------------------------------
  var seenConflicts = new Set();
  function drawConflicts() {
    var rows = model.sections.conflicts || [];
    var body = $("conflicts").tBodies[0];
    body.textContent = "";
    rows.forEach(function (c) {
      var key = c.task + "|" + c.path + "|" + c.declaration + "|" + c.kind;
      var tr = el("tr", seenConflicts.has(key) ? "" : "new");
      seenConflicts.add(key);
      tr.setAttribute("data-task", c.task);
      tr.setAttribute("data-kind", c.kind);
      tr.appendChild(el("td", "mono", c.path + (c.start_line ? ":" + c.start_line : "")));
      tr.appendChild(el("td", "mono", c.declaration));
      var who = el("td");
      who.appendChild(taskLink(c.task));
      tr.appendChild(who);
      var other = el("td");
      var others = c.other.length ? c.other : [c.kind === "boundary" ? "its boundary" : "integration"];
      others.slice(0, 3).forEach(function (name, i) {
        if (i) { other.appendChild(document.createTextNode(", ")); }
        other.appendChild(model.tasks.has(name) ? taskLink(name) : el("span", null, name));
      });
      if (others.length > 3) {
        var more = el("span", null, " and " + (others.length - 3) + " more");
        more.title = others.slice(3).join(", ");
        other.appendChild(more);
      }
      tr.appendChild(other);
      tr.appendChild(el("td", null, c.kind));
      // A long fix (a boundary's restore commands) is cut; the whole text is the cell's tooltip.
      var fix = el("td", "fix", c.fix.length > 160 ? c.fix.slice(0, 157) + "…" : c.fix);
      fix.title = c.fix;
      tr.appendChild(fix);
      body.appendChild(tr);
    });
    $("conflict-count").textContent = String(rows.length);
  }

  function taskLink(name) {
    var link = el("a", null, name);
    link.setAttribute("data-open", name);
    link.addEventListener("click", function (event) { event.preventDefault(); openDetail(name); });
    return link;
  }

  // ---- forecast ----------------------------------------------------------------------------------
  function drawForecast() {
    var box = $("forecast");
    var forecast = model.sections.forecast;
    var state = model.sections.forecast_state || {};
    var error = model.sections.forecast_error;
    var meta = state.computing ? "computing…" : "";
    if (forecast) {
      meta = (meta ? meta + " · " : "") + "as of " + clock(forecast.at) + ", " + forecast.looked_at +
        " task(s) looked at, " + forecast.pairs.filter(function (p) { return p.verdict === "conflict"; }).length +
        " pair(s) predicted to conflict" + (forecast.not_shown ? ", " + forecast.not_shown + " more not drawn" : "");
    }
    if (error) { meta += " · last error: " + error.error; }
    $("forecast-meta").textContent = meta;
    if (!forecast) { return; }
    box.textContent = "";
    if (!forecast.tasks.length) {
      box.appendChild(el("p", null, "no two live tasks change the same file"));
      return;
    }
    var cells = new Map();
    forecast.pairs.forEach(function (p) { cells.set(p.a + "\u0000" + p.b, p); cells.set(p.b + "\u0000" + p.a, p); });
    var table = el("table");
    var head = el("tr");
    head.appendChild(el("th"));
    forecast.tasks.forEach(function (name) { head.appendChild(el("th", "col", name)); });
    table.appendChild(head);
    forecast.tasks.forEach(function (left) {
      var tr = el("tr");
      var th = el("th");
      th.appendChild(left === "integration" ? el("span", null, left) : taskLink(left));
      tr.appendChild(th);
      forecast.tasks.forEach(function (right) {
        var pair = cells.get(left + "\u0000" + right);
        var td = el("td", pair ? (pair.verdict === "conflict" ? "c" : "o") : "");
        if (pair) {
          td.title = left + " × " + right + ": " + (pair.verdict === "conflict"
            ? pair.conflicts.map(function (c) { return c.kind + " in " + c.path + (c.declaration ? " " + c.declaration : ""); }).join("; ")
            : "share " + pair.files.join(", "));
          td.setAttribute("data-pair", left + "|" + right);
        }
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    box.appendChild(table);
  }

  // ---- intents, consolidation, manifest --------------------------------------------------------------
  function drawIntents() {
    var rows = model.sections.intents || [];
    var body = $("intents").tBodies[0];
    body.textContent = "";
    rows.forEach(function (i) {
      var tr = el("tr");
      tr.appendChild(el("td", null, i.state));
      tr.appendChild(el("td", "mono", [i.op, i.name, i.spec].filter(Boolean).join(" ")));
      tr.appendChild(el("td", "mono", i.manifest));
      var who = el("td");
      who.appendChild(taskLink(i.task));
      tr.appendChild(who);
      body.appendChild(tr);
    });
    $("intent-count").textContent = String(rows.length);
  }

  function drawReport() {
    var report = model.sections.report;
    var error = model.sections.report_error;
    if (!report) {
      if (error) { $("manifest-count").textContent = "not computed: " + error.error; }
      return;
    }
    var body = $("consolidation").tBodies[0];
    body.textContent = "";
    (report.consolidation || []).forEach(function (row) {
      var tr = el("tr");
      tr.appendChild(el("td", "mono", row.root || "."));
      tr.appendChild(el("td", null, row.ecosystem || ""));
      tr.appendChild(el("td", null, row.state));
      tr.appendChild(el("td", "mono", short(row.commit)));
      tr.appendChild(el("td", null, Object.keys(row.intents || {}).map(function (k) { return row.intents[k] + " " + k; }).join(", ")));
      body.appendChild(tr);
    });
    var manifest = $("manifest").tBodies[0];
    manifest.textContent = "";
    report.files.forEach(function (f) {
      var tr = el("tr");
      tr.appendChild(el("td", null, f.status));
      tr.appendChild(el("td", "mono", f.from ? f.from + " -> " + f.path : f.path));
      var from = el("td");
      // Every source of the change, as the text report names them (two tasks that merged into one
      // file are two links, each with its diff); a task the page does not know is named in words.
      (f.sources || [{text: f.origin}]).forEach(function (source, i) {
        if (i > 0) { from.appendChild(document.createTextNode(", ")); }
        if (source.task && model.tasks.has(source.task)) {
          from.appendChild(taskLink(source.task));
          var diff = el("a", null, " diff");
          diff.href = "/api/task/" + encodeURIComponent(source.task) + "/diff";
          diff.target = "_blank";
          diff.rel = "noopener";
          from.appendChild(diff);
        } else {
          from.appendChild(document.createTextNode(source.task ? "task " + source.task : source.text));
        }
      });
      tr.appendChild(from);
      manifest.appendChild(tr);
    });
    $("manifest-count").textContent = report.files_total + " path(s) at " + short(report.tip) +
      (report.files_total > report.files.length ? ", first " + report.files.length + " shown" : "");
    filterManifest();
    var warnings = $("warnings");
    warnings.textContent = "";
    (report.warnings || []).forEach(function (w) { warnings.appendChild(el("li", null, w)); });
  }

  function filterManifest() {
    var wanted = $("manifest-filter").value.toLowerCase();
    Array.prototype.forEach.call($("manifest").tBodies[0].rows, function (row) {
      row.hidden = wanted !== "" && row.textContent.toLowerCase().indexOf(wanted) < 0;
    });
  }

  // ---- a task's detail ----------------------------------------------------------------------------
  function openDetail(name) {
    view.selected = name;
    view.rows.forEach(function (line, task) { line.classList.toggle("sel", task === name); });
    fetch("/api/task/" + encodeURIComponent(name), { cache: "no-store", credentials: "same-origin" })
      .then(function (answer) { if (!answer.ok) { throw new Error("HTTP " + answer.status); } return answer.json(); })
      .then(drawDetail)
      .catch(function (error) {
        $("detail-body").textContent = "could not read " + name + ": " + error.message;
        $("detail").hidden = false;
      });
  }

  function section(box, title, items, render) {
    box.appendChild(el("h4", null, title + " (" + items.length + ")"));
    if (!items.length) { return; }
    var list = el("ul");
    items.forEach(function (item) { list.appendChild(render(item)); });
    box.appendChild(list);
  }

  function drawDetail(task) {
    var box = $("detail-body");
    box.textContent = "";
    var title = el("h3", null, task.task + " ");
    var badge = el("span", "badge", task.state);
    badge.style.background = colour(task.state);
    title.appendChild(badge);
    box.appendChild(title);
    box.setAttribute("data-task", task.task);
    var facts = el("div", "mono");
    facts.textContent = "branch " + task.branch + (task.head ? " at " + short(task.head) : "") +
      (task.merge_commit ? " · merged as " + short(task.merge_commit) : "") +
      (task.worktree ? " · worktree " + task.worktree : "");
    box.appendChild(facts);
    var diff = el("a", null, "the task's diff");
    diff.href = "/api/task/" + encodeURIComponent(task.task) + "/diff";
    diff.target = "_blank";
    diff.rel = "noopener";
    diff.setAttribute("data-diff", task.task);
    box.appendChild(diff);
    box.appendChild(el("h4", null, "Boundary"));
    box.appendChild(el("div", "mono", "own " + (task.boundary.own || []).join(" ")));
    if ((task.boundary.read || []).length) { box.appendChild(el("div", "mono", "read " + task.boundary.read.join(" "))); }
    section(box, "Files", task.files, function (f) { return el("li", "mono", f.status + " " + f.path); });
    section(box, "Commits", task.commits, function (c) { return el("li", "mono", short(c.commit) + " " + c.summary); });
    var findings = task.findings;
    section(box, "Violations", findings.violations, function (v) { return el("li", "mono", (v.path || "") + " " + (v.reason || v.rule || "")); });
    section(box, "Conflicts", findings.conflicts, function (c) {
      return el("li", "mono", c.kind + " " + c.path + (c.declaration ? " " + c.declaration : "") +
        (c.last_changed_by && c.last_changed_by.length ? " (with " + c.last_changed_by.join(", ") + ")" : ""));
    });
    section(box, "Semantic findings", findings.semantic, function (s) { return el("li", null, s.message || s.problem); });
    section(box, "Notes", findings.notes, function (n) { return el("li", null, n); });
    section(box, "Intents", task.intents, function (i) { return el("li", "mono", i.state + ": " + [i.op, i.name, i.spec].filter(Boolean).join(" ") + " in " + i.manifest); });
    section(box, "Events", task.events, function (e) { return el("li", "mono", clock(e.at) + " " + e.kind); });
    section(box, "Trace spans", task.spans, function (s) { return el("li", "mono", s.name + " " + ((s.end - s.start) * 1000).toFixed(0) + " ms " + (s.status || "")); });
    $("detail").hidden = false;
  }

  // ---- wiring ----------------------------------------------------------------------------------
  $("search").addEventListener("input", function () { view.search = this.value.toLowerCase(); drawTimeline(); });
  $("group-by").addEventListener("change", function () { view.groupBy = this.value; drawTimeline(); });
  $("zoom").addEventListener("input", function () { view.zoom = Number(this.value); drawTimeline(); });
  $("zoom-fit").addEventListener("click", function () { view.zoom = 1; $("zoom").value = "1"; drawTimeline(); });
  $("manifest-filter").addEventListener("input", filterManifest);
  $("detail-close").addEventListener("click", function () {
    $("detail").hidden = true;
    view.selected = null;
    view.rows.forEach(function (line) { line.classList.remove("sel"); });
  });
  drawLegend();
  poll();
})();

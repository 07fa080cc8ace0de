// The cxc console's page: polls {base}/api at the ticker's pace, renders with textContent only
// (names come from files other processes write), and says when its data is stale.
(function () {
  "use strict";

  var meta = function (name) {
    var element = document.querySelector('meta[name="' + name + '"]');
    return element ? element.getAttribute("content") : "";
  };
  var base = meta("cxc-base");
  var pollMillis = 1000;
  var lastAnswer = 0;
  var lastError = "";
  var previousOps = {};
  var activeTab = "overview";
  var scheduler = "";
  var actions = [];

  function $(id) { return document.getElementById(id); }

  function cell(row, text, className) {
    var td = document.createElement("td");
    td.textContent = text === null || text === undefined ? "–" : String(text);
    if (className) { td.className = className; }
    row.appendChild(td);
    return td;
  }

  function fill(tbody, items, render) {
    var rows = document.createDocumentFragment();
    items.forEach(function (item) {
      var row = document.createElement("tr");
      render(row, item);
      rows.appendChild(row);
    });
    tbody.replaceChildren(rows);
  }

  function time(millis) {
    return millis === null || millis === undefined ? "–" : new Date(millis).toLocaleTimeString();
  }

  function duration(millis) {
    if (millis === null || millis === undefined) { return "–"; }
    if (millis < 1000) { return millis + " ms"; }
    if (millis < 120000) { return (millis / 1000).toFixed(1) + " s"; }
    return Math.round(millis / 60000) + " min";
  }

  function getJson(path) {
    return fetch(base + path, { headers: { Accept: "application/json" }, cache: "no-store" })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) { throw new Error(body.message || response.status); }
          return body;
        });
      });
  }

  function csrfHeaders() {
    var headers = { "X-CXC-Console": "1", "Content-Type": "application/x-www-form-urlencoded" };
    var header = meta("cxc-csrf-header");
    var token = meta("cxc-csrf-token");
    if (header && token) {
      headers[header] = token;
    } else {
      var cookie = document.cookie.split("; ").filter(function (c) { return c.indexOf("XSRF-TOKEN=") === 0; })[0];
      if (cookie) { headers["X-XSRF-TOKEN"] = decodeURIComponent(cookie.substring(11)); }
    }
    return headers;
  }

  function act(name, args) {
    var body = new URLSearchParams(args || {});
    return fetch(base + "/api/actions/" + encodeURIComponent(name), {
      method: "POST", headers: csrfHeaders(), body: body.toString(), credentials: "same-origin"
    }).then(function (response) {
      return response.json().then(function (answer) {
        show(response.ok ? answer.done : "refused: " + answer.message);
      }, function () { show("refused: HTTP " + response.status); });
    }, function (error) { show("failed: " + error.message); }).then(refresh);
  }

  function actionButton(id, label, name, args) {
    var button = document.createElement("button");
    button.type = "button";
    button.id = id;
    button.textContent = label;
    button.addEventListener("click", function () { button.disabled = true; act(name, args); });
    return button;
  }

  function offers(name) { return actions.indexOf(name) >= 0; }

  function show(text) {
    var message = $("message");
    message.textContent = text;
    message.hidden = !text;
  }

  function renderOverview(overview) {
    var cxc = overview.cxc;
    pollMillis = overview.pollIntervalMillis || pollMillis;
    actions = overview.actions || [];
    $("directory").textContent = cxc.directory || "–";
    $("self-pid").textContent = String(cxc.pid);
    var leader = cxc.leader;
    var current = (overview.terms || [])[0];
    if (leader) {
      $("leader-pid").textContent = leader.pid === null ? "none" : leader.pid + (leader.self ? " (this process)" : "");
      $("leader-term").textContent = String(leader.term);
      $("leader-since").textContent = current && current.term === leader.term
        ? (current.seenAtStart ? "at or before " : "") + time(current.sinceMillis) : "–";
      var lag = $("leader-lag");
      lag.textContent = leader.heartbeatLagEpochs + " of " + leader.graceEpochs + " epochs grace";
      lag.className = leader.heartbeatLagEpochs > leader.graceEpochs ? "late" : "";
    } else {
      $("leader-pid").textContent = "this process takes no part in the election";
    }
    var leaderActions = $("actions-leader");
    leaderActions.replaceChildren();
    if (leader && leader.self && offers("step-down")) {
      leaderActions.appendChild(actionButton("step-down", "Step down", "step-down"));
    }
    $("global").hidden = !cxc.global;
    if (cxc.global) {
      fill($("global-rows"), Object.keys(cxc.global), function (row, key) {
        cell(row, key);
        cell(row, JSON.stringify(cxc.global[key]));
      });
    }
    fill($("participants"), cxc.participants, function (row, p) {
      row.dataset.pid = p.pid;
      cell(row, p.slot);
      cell(row, p.pid);
      cell(row, p.lagEpochs);
      cell(row, p.alive ? "alive" : "not alive", p.alive ? "alive" : "dead");
      cell(row, p.leader ? "leader" : "");
    });
    fill($("terms"), overview.terms || [], function (row, t) {
      cell(row, t.term);
      cell(row, t.leaderPid === null ? "none" : t.leaderPid);
      cell(row, (t.seenAtStart ? "at or before " : "") + time(t.sinceMillis));
    });
    renderPrimitives(cxc.primitives, overview.generatedAtMillis);
  }

  function renderPrimitives(primitives, at) {
    var rates = {};
    primitives.forEach(function (p) {
      var before = previousOps[p.name];
      var seconds = before ? (at - before.at) / 1000 : 0;
      rates[p.name] = Object.keys(p.ops).filter(function (op) { return p.ops[op] > 0; }).map(function (op) {
        var rate = before && seconds > 0 ? (p.ops[op] - (before.ops[op] || 0)) / seconds : null;
        return op + " " + (rate === null ? "…" : rate.toFixed(1));
      }).join(", ");
      previousOps[p.name] = { at: at, ops: p.ops };
    });
    fill($("primitives"), primitives, function (row, p) {
      cell(row, p.name);
      cell(row, p.kind);
      cell(row, rates[p.name] || "none");
      var pre = document.createElement("pre");
      pre.textContent = JSON.stringify(p.state);
      cell(row, "").replaceChildren(pre);
    });
  }

  // One titled table per item of a list (lease tables, event logs), or a sentence when there is none.
  function titledTables(container, items, none, title, headers, rowsOf, render) {
    var parts = document.createDocumentFragment();
    if (items.length === 0) {
      var sentence = document.createElement("p");
      sentence.textContent = none;
      parts.appendChild(sentence);
    }
    items.forEach(function (item) {
      var heading = document.createElement("h2");
      heading.textContent = title(item);
      var grid = document.createElement("table");
      var head = document.createElement("tr");
      headers.forEach(function (h) {
        var th = document.createElement("th"); th.textContent = h; head.appendChild(th);
      });
      var thead = document.createElement("thead"); thead.appendChild(head);
      var tbody = document.createElement("tbody");
      fill(tbody, rowsOf(item), render);
      grid.appendChild(thead); grid.appendChild(tbody);
      parts.appendChild(heading); parts.appendChild(grid);
    });
    container.replaceChildren(parts);
  }

  function renderLeases(tables) {
    titledTables($("leases"), tables, "The application has opened no lease table.",
      function (table) { return table.name + " (" + table.held.length + " of " + table.capacity + " held)"; },
      ["Name", "Holder PID", "Token", "Acquired", "Expires"],
      function (table) { return table.held; },
      function (row, lease) {
        cell(row, lease.name);
        cell(row, lease.pid);
        cell(row, lease.token);
        cell(row, time(lease.acquiredAtMillis));
        cell(row, lease.expiresAtMillis === null ? "not yet published" : time(lease.expiresAtMillis) + (lease.lingering ? " (lingering)" : ""));
      });
  }

  function renderQueues(queues) {
    fill($("schedulers"), queues.schedulers, function (row, s) {
      [s.name, s.capacity, s.queued, s.running, s.done, s.failed, s.scheduled].forEach(function (v) { cell(row, v); });
      var paused = s.pausedSinceMillis !== null;
      cell(row, paused ? "paused since " + time(s.pausedSinceMillis) : "dispatching", paused ? "late" : "");
      var buttons = cell(row, "");
      buttons.replaceChildren();
      var verb = paused ? "resume" : "pause";
      if (offers(verb + "-scheduler")) {
        buttons.appendChild(actionButton(verb + "-" + s.name, paused ? "Resume" : "Pause", verb + "-scheduler", { scheduler: s.name }));
      }
    });
    var select = $("job-scheduler");
    var names = queues.schedulers.map(function (s) { return s.name; });
    var listed = Array.prototype.map.call(select.options, function (o) { return o.value; });
    if (listed.join("\n") !== names.join("\n")) {
      select.replaceChildren();
      names.forEach(function (name) {
        var option = document.createElement("option"); option.value = name; option.textContent = name; select.appendChild(option);
      });
      if (names.indexOf(scheduler) >= 0) { select.value = scheduler; }
    }
    if (names.indexOf(scheduler) < 0) { scheduler = names.length ? names[0] : ""; }
    fill($("fanouts"), queues.fanouts, function (row, f) {
      cell(row, f.name);
      cell(row, f.capacityPerPriority);
      cell(row, f.depthByPriority.join(" · "));
    });
  }

  // A table the server pages and filters: {prefix}-rows, -prev, -next, -position and -filter.
  function Pager(prefix, path, filterName, what, rowsOf, render) {
    var pager = { page: 0, pages: 1, filter: "" };
    pager.load = function () {
      if (!scheduler) { $(prefix + "-rows").replaceChildren(); $(prefix + "-position").textContent = "no scheduler"; return Promise.resolve(); }
      var query = "?scheduler=" + encodeURIComponent(scheduler) + "&page=" + pager.page + "&size=20" +
        (pager.filter ? "&" + filterName + "=" + encodeURIComponent(pager.filter) : "");
      return getJson(path + query).then(function (answer) {
        pager.pages = answer.pages;
        $(prefix + "-position").textContent = "page " + (answer.page + 1) + " of " + answer.pages + " (" + answer.total + " " + what + ")";
        fill($(prefix + "-rows"), rowsOf(answer), render);
        return answer;
      }, function (error) {
        // The list may have shrunk under us: go back to the first page.
        if (pager.page > 0) { pager.page = 0; return pager.load(); }
        throw error;
      });
    };
    var filter = $(prefix + "-filter");
    if (filter) { filter.addEventListener("change", function () { pager.filter = filter.value; pager.page = 0; refresh(); }); }
    $(prefix + "-prev").addEventListener("click", function () { if (pager.page > 0) { pager.page--; refresh(); } });
    $(prefix + "-next").addEventListener("click", function () { if (pager.page + 1 < pager.pages) { pager.page++; refresh(); } });
    return pager;
  }

  var failedPager = Pager("failed", "/api/jobs", "state", "failed jobs", function (p) { return p.jobs; }, function (row, job) {
    row.dataset.job = job.id;
    cell(row, job.id);
    cell(row, job.attempt);
    cell(row, job.exceptionClass);
    cell(row, job.message);
    var buttons = cell(row, "");
    buttons.replaceChildren();
    if (offers("rerun-job")) { buttons.appendChild(actionButton("rerun-" + job.id, "Re-run", "rerun-job", { scheduler: scheduler, job: job.id })); }
    if (offers("delete-job")) { buttons.appendChild(actionButton("delete-" + job.id, "Delete", "delete-job", { scheduler: scheduler, job: job.id })); }
  });
  failedPager.filter = "failed";

  var jobsPager = Pager("jobs", "/api/jobs", "state", "jobs", function (p) { return p.jobs; }, function (row, job) {
    cell(row, job.id);
    cell(row, job.state);
    cell(row, job.pid);
    cell(row, job.attempt);
    cell(row, job.runningForMillis === null ? "–" : "at least " + duration(job.runningForMillis));
  });

  var timetablePager = Pager("timetable", "/api/timetable", "kind", "entries", function (p) { return p.entries; }, function (row, e) {
    cell(row, e.name);
    cell(row, e.kind);
    cell(row, e.recurrence);
    cell(row, e.firing ? "firing now" : time(e.nextDueMillis));
    cell(row, e.fires);
  });

  var historyPager = Pager("history", "/api/history", "outcome", "runs", function (p) {
    $("history-totals").textContent = p.totals
      ? "(last " + p.kept + " kept; folded into the totals so far: " + p.totals.succeeded + " succeeded, " + p.totals.retried + " retried, " + p.totals.failed + " failed)"
      : "(this scheduler keeps no history)";
    return p.runs;
  }, function (row, run) {
    cell(row, run.jobId);
    cell(row, run.type);
    cell(row, run.attempt);
    cell(row, time(run.startedMillis));
    cell(row, duration(run.tookMillis));
    cell(row, run.outcome, run.outcome === "failed" ? "dead" : "");
    cell(row, run.pid);
  });

  function loadJobs() {
    return Promise.all([failedPager.load(), jobsPager.load(), timetablePager.load(), historyPager.load()]);
  }

  function renderEvents(logs) {
    titledTables($("events"), logs, "The application declares no event log.",
      function (log) { return log.name + " (" + log.published + " published, holds " + log.capacity + ")"; },
      ["Reader", "PID", "Position", "Pending"],
      function (log) { return log.readers; },
      function (row, reader) {
        cell(row, reader.name);
        cell(row, reader.pid === null ? "nobody reads" : reader.pid);
        cell(row, reader.position);
        cell(row, reader.pending + (reader.overwritten ? " (some overwritten before read)" : ""), reader.overwritten ? "late" : "");
      });
  }

  function refresh() {
    var work = [getJson("/api/overview").then(renderOverview)];
    if (activeTab === "leases") { work.push(getJson("/api/leases").then(renderLeases)); }
    if (activeTab === "jobs") { work.push(getJson("/api/queues").then(renderQueues).then(loadJobs)); }
    if (activeTab === "events") { work.push(getJson("/api/events").then(renderEvents)); }
    return Promise.all(work).then(function () {
      lastAnswer = Date.now();
      lastError = "";
    }, function (error) {
      lastError = error.message || String(error);
    });
  }

  function loop() {
    refresh().then(function () { setTimeout(loop, pollMillis); });
  }

  function freshness() {
    var badge = $("freshness");
    var age = Date.now() - lastAnswer;
    if (!lastAnswer) {
      badge.dataset.state = "waiting";
      badge.textContent = lastError ? "no answer: " + lastError : "waiting for the first answer";
    } else if (age > 3 * pollMillis + 1000) {
      badge.dataset.state = "stale";
      badge.textContent = "stale: no answer for " + duration(age) + (lastError ? " (" + lastError + ")" : "");
    } else {
      badge.dataset.state = "fresh";
      badge.textContent = "live, every " + duration(pollMillis);
    }
  }

  document.querySelectorAll("nav button").forEach(function (button) {
    button.addEventListener("click", function () {
      activeTab = button.dataset.tab;
      document.querySelectorAll("nav button").forEach(function (b) { b.classList.toggle("active", b === button); });
      document.querySelectorAll(".tab").forEach(function (t) { t.classList.toggle("active", t.id === "tab-" + activeTab); });
      refresh();
    });
  });
  $("job-scheduler").addEventListener("change", function (e) {
    scheduler = e.target.value;
    [failedPager, jobsPager, timetablePager, historyPager].forEach(function (p) { p.page = 0; });
    refresh();
  });

  setInterval(freshness, 250);
  loop();
})();

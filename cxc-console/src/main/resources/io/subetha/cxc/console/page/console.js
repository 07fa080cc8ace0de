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
  var jobQuery = { scheduler: "", state: "", page: 0, size: 50, pages: 1 };
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
    }, function (error) { show("failed: " + error.message); });
  }

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
    if (leader && leader.self && actions.indexOf("step-down") >= 0) {
      var button = document.createElement("button");
      button.type = "button";
      button.id = "step-down";
      button.textContent = "Step down";
      button.addEventListener("click", function () { act("step-down"); });
      leaderActions.appendChild(button);
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

  function renderLeases(tables) {
    var container = document.createDocumentFragment();
    if (tables.length === 0) {
      var none = document.createElement("p");
      none.textContent = "The application has opened no lease table.";
      container.appendChild(none);
    }
    tables.forEach(function (table) {
      var title = document.createElement("h2");
      title.textContent = table.name + " (" + table.held.length + " of " + table.capacity + " held)";
      var grid = document.createElement("table");
      var head = document.createElement("tr");
      ["Name", "Holder PID", "Token", "Acquired", "Expires"].forEach(function (h) {
        var th = document.createElement("th"); th.textContent = h; head.appendChild(th);
      });
      var thead = document.createElement("thead"); thead.appendChild(head);
      var tbody = document.createElement("tbody");
      fill(tbody, table.held, function (row, lease) {
        cell(row, lease.name);
        cell(row, lease.pid);
        cell(row, lease.token);
        cell(row, time(lease.acquiredAtMillis));
        cell(row, lease.expiresAtMillis === null ? "not yet published" : time(lease.expiresAtMillis) + (lease.lingering ? " (lingering)" : ""));
      });
      grid.appendChild(thead); grid.appendChild(tbody);
      container.appendChild(title); container.appendChild(grid);
    });
    $("leases").replaceChildren(container);
  }

  function renderQueues(queues) {
    fill($("schedulers"), queues.schedulers, function (row, s) {
      [s.name, s.capacity, s.queued, s.running, s.done, s.reclaimed, s.collected].forEach(function (v) { cell(row, v); });
    });
    var select = $("job-scheduler");
    var names = queues.schedulers.map(function (s) { return s.name; });
    if (select.options.length !== names.length) {
      select.replaceChildren();
      names.forEach(function (name) {
        var option = document.createElement("option"); option.value = name; option.textContent = name; select.appendChild(option);
      });
    }
    if (!jobQuery.scheduler && names.length) { jobQuery.scheduler = names[0]; }
    fill($("fanouts"), queues.fanouts, function (row, f) {
      cell(row, f.name);
      cell(row, f.capacityPerPriority);
      cell(row, f.depthByPriority.join(" · "));
    });
  }

  function loadJobs() {
    if (!jobQuery.scheduler) { $("jobs").replaceChildren(); $("job-position").textContent = "no scheduler"; return Promise.resolve(); }
    var query = "?scheduler=" + encodeURIComponent(jobQuery.scheduler) + "&page=" + jobQuery.page +
      "&size=" + jobQuery.size + (jobQuery.state ? "&state=" + encodeURIComponent(jobQuery.state) : "");
    return getJson("/api/jobs" + query).then(function (page) {
      jobQuery.pages = page.pages;
      $("job-position").textContent = "page " + (page.page + 1) + " of " + page.pages + " (" + page.total + " jobs)";
      fill($("jobs"), page.jobs, function (row, job) {
        cell(row, job.id);
        cell(row, job.state);
        cell(row, job.pid);
        cell(row, job.attempt);
        cell(row, job.runningForMillis === null ? "–" : "at least " + duration(job.runningForMillis));
      });
    }, function (error) {
      // The page may have shrunk under us: go back to the first.
      if (jobQuery.page > 0) { jobQuery.page = 0; return loadJobs(); }
      throw error;
    });
  }

  function refresh() {
    var work = [getJson("/api/overview").then(renderOverview)];
    if (activeTab === "leases") { work.push(getJson("/api/leases").then(renderLeases)); }
    if (activeTab === "jobs") { work.push(getJson("/api/queues").then(renderQueues).then(loadJobs)); }
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
  $("job-scheduler").addEventListener("change", function (e) { jobQuery.scheduler = e.target.value; jobQuery.page = 0; refresh(); });
  $("job-state").addEventListener("change", function (e) { jobQuery.state = e.target.value; jobQuery.page = 0; refresh(); });
  $("job-prev").addEventListener("click", function () { if (jobQuery.page > 0) { jobQuery.page--; refresh(); } });
  $("job-next").addEventListener("click", function () { if (jobQuery.page + 1 < jobQuery.pages) { jobQuery.page++; refresh(); } });

  setInterval(freshness, 250);
  loop();
})();

/* The score sheet that survives venue Wi-Fi (issue 16): taps update the page in place and wait
   in an outbox on the phone until the server has acknowledged them.

   - A tap becomes an outbox item {key, token, version}: a fresh one-time key (scoring/once.py
     answers a repeated key with the first result, never a second event) and the table version
     it was tapped on. The outbox lives in localStorage, so it survives a reload or closing the
     browser.
   - The page shows the server's sheet plus the waiting taps, computed by the same rules
     (static/js/sheet-rules.js over the table the server generates from its own rules).
   - The items are sent one at a time, in order; each answer (JSON, the new sheet) acknowledges
     its key. No network: the item stays and is sent again later with the same key. A refusal —
     somebody else changed the table (409), or the server refuses the tap — stops the sync and
     shows both versions; only the referee's choice (send mine after theirs, or discard mine)
     moves on. Nothing is dropped silently.
   - Without this script (or without fetch/localStorage) the tap grid is the plain form it was.
   The page's furniture (undo, submit) comes from the server: when the sheet's shape changes
   the page's own block is fetched and swapped in, not reloaded. */
(function () {
  "use strict";
  if (!window.fetch || !window.localStorage || !window.JSON || !window.SheetRules) {
    return;
  }
  var TIMEOUT_MS = 10000;
  var RETRY_MS = 4000;
  var DOUBLE_TAP_MS = 600;

  var cfg = null; // the #live-sheet element's data
  var page = null; // the sheet the page was rendered with
  var box = null; // {base, pending, stop}
  var rules = null; // {rules, words} once loaded
  var sending = false;
  var reachable = true;
  var lastTap = { token: "", at: 0 };
  var timer = null;

  function $(selector, root) {
    return (root || document).querySelector(selector);
  }

  function format(template, params) {
    return template.replace(/%\((\w+)\)s/g, function (_, name) {
      return String(params[name]);
    });
  }

  function newKey() {
    var bytes = new Uint8Array(16);
    if (window.crypto && window.crypto.getRandomValues) {
      window.crypto.getRandomValues(bytes);
    } else {
      for (var i = 0; i < bytes.length; i++) {
        bytes[i] = Math.floor(Math.random() * 256);
      }
    }
    var text = "";
    for (var j = 0; j < bytes.length; j++) {
      text += String.fromCharCode(bytes[j]);
    }
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }

  // ------------------------------------------------------------------ the outbox (localStorage)

  function storeKey() {
    // The table and, on a referee's page, the user (static/js/logout.js removes a user's
    // outboxes); never the page's address, which for the table-side link is its secret.
    return "gt-outbox:" + cfg.store;
  }

  function adoptLegacy() {
    // Before issue 29 the outbox was kept under the page's path: move it to its new name.
    try {
      var legacy = "gt-outbox:" + window.location.pathname;
      var kept = window.localStorage.getItem(legacy);
      if (kept !== null && legacy !== storeKey()) {
        if (window.localStorage.getItem(storeKey()) === null) {
          window.localStorage.setItem(storeKey(), kept);
        }
        window.localStorage.removeItem(legacy);
      }
    } catch (e) {
      /* storage blocked: nothing kept there either */
    }
  }

  function load() {
    adoptLegacy();
    try {
      var stored = JSON.parse(window.localStorage.getItem(storeKey()) || "null");
      if (stored && stored.base && Array.isArray(stored.pending)) {
        return stored;
      }
    } catch (e) {
      /* a damaged entry is replaced below */
    }
    return null;
  }

  function loggingOut() {
    // The user is logging out: their outbox and kept pages are being removed
    // (static/js/logout.js), so nothing is kept or fetched again from here on.
    return document.documentElement.hasAttribute("data-logging-out");
  }

  function save() {
    if (loggingOut()) {
      return;
    }
    try {
      window.localStorage.setItem(storeKey(), JSON.stringify(box));
    } catch (e) {
      /* storage full or blocked: the taps stay in memory while the page is open */
    }
  }

  // ------------------------------------------------------------------ what the page shows

  function pendingTokens() {
    return box.pending.map(function (item) { return item.token; });
  }

  function local() {
    if (!box.pending.length) {
      return box.base;
    }
    if (rules && cfg.replay && !box.base.ended) {
      try {
        var sheet = window.SheetRules.compute(rules.rules, rules.words, box.base.start,
          box.base.tokens.concat(pendingTokens()), box.base.time_deals);
        if (sheet) {
          return sheet;
        }
      } catch (e) {
        /* refused locally: shown below as the server's sheet and the waiting taps */
      }
    }
    // Outside the rules table (a referee's level award): the waiting taps without levels.
    var shown = JSON.parse(JSON.stringify(box.base));
    box.pending.forEach(function (item, index) {
      shown.rows.push({
        number: box.base.rows.length + index + 1, deal_number: null, kind: "deal",
        token: item.token, description: describe(item.token), level_played: "",
        on_stage: "", ns_level: "", ew_level: "", note: ""
      });
    });
    shown.deals += box.pending.length;
    shown.deals_label = String(shown.deals);
    return shown;
  }

  function describe(token) {
    return rules && rules.words.describe[token] ? rules.words.describe[token] : token;
  }

  function setText(selector, text) {
    var node = $(selector);
    if (node) {
      node.textContent = text;
    }
  }

  function number(value) {
    // Django's floatformat:"-2": whole numbers without decimals, else two.
    return Math.round(value) === value ? String(value) : value.toFixed(2);
  }

  function renderScoreboard(sheet) {
    setText("[data-testid=ns-level]", sheet.ns_level);
    setText("[data-testid=ew-level]", sheet.ew_level);
    setText("[data-testid=next-level]", sheet.next_level);
    setText("[data-testid=deals]", sheet.deals_label);
    setText("[data-testid=jc]", sheet.jc);
    var leader = $("[data-live=leader]");
    if (leader) {
      leader.textContent = sheet.jc ? "(" + sheet.leader_label + ")" : "";
    }
    ["ns", "ew"].forEach(function (side) {
      var box_ = $(".scoreboard .side." + side);
      if (!box_) {
        return;
      }
      var on = sheet.on_stage === side.toUpperCase() && !sheet.finished;
      box_.classList.toggle("on-stage", on);
      var badge = $(".stage", box_);
      if (on && !badge) {
        badge = document.createElement("span");
        badge.className = "stage";
        var inner = document.createElement("span");
        inner.textContent = cfg.onStage;
        badge.appendChild(inner);
        box_.appendChild(badge);
      } else if (!on && badge) {
        badge.parentNode.removeChild(badge);
      }
    });
    var line = $("[data-testid=status-line]");
    if (line) {
      var text = sheet.status_line;
      if (text && sheet.finished && rules) {
        var w = rules.words;
        text += " · " + w.sides.NS + " " + sheet.recorded_ns_level + " : " +
          sheet.recorded_ew_level + " " + w.sides.EW + " · " + cfg.jcf + " " +
          number(sheet.ns_jcf) + " : " + number(sheet.ew_jcf) + " · " + cfg.cf + " " +
          number(sheet.ns_cf) + " : " + number(sheet.ew_cf);
      }
      line.textContent = text;
      line.hidden = !text;
    }
  }

  function cell(tr, text, className) {
    var td = document.createElement("td");
    if (className) {
      td.className = className;
    }
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }

  function small(td, text) {
    if (!text) {
      return;
    }
    td.appendChild(document.createElement("br"));
    var span = document.createElement("span");
    span.className = "small muted";
    span.textContent = text;
    td.appendChild(span);
  }

  function renderRows(sheet) {
    var body = $("[data-testid=sheet] tbody");
    if (!body) {
      return;
    }
    var firstPending = box.base.rows.length;
    while (body.firstChild) {
      body.removeChild(body.firstChild);
    }
    if (!sheet.rows.length) {
      var tr0 = document.createElement("tr");
      var td0 = cell(tr0, cfg.empty, "muted");
      td0.colSpan = 5;
      body.appendChild(tr0);
      return;
    }
    sheet.rows.forEach(function (row, index) {
      var tr = document.createElement("tr");
      tr.className = row.kind + (index >= firstPending ? " pending" : "");
      if (index >= firstPending) {
        tr.setAttribute("data-testid", "pending-row");
      }
      cell(tr, row.deal_number === null ? "—" : String(row.deal_number));
      small(cell(tr, row.level_played || "—"), row.on_stage);
      var what = cell(tr, row.description, "what");
      small(what, index >= firstPending ? cfg.rowPending + (row.note ? " · " + row.note : "")
        : row.note);
      cell(tr, row.ns_level, "ns");
      cell(tr, row.ew_level, "ew");
      body.appendChild(tr);
    });
  }

  function renderStatus() {
    var node = $("[data-testid=sync-status]");
    if (!node) {
      return;
    }
    var n = box.pending.length;
    var state;
    var text;
    if (box.stop) {
      state = "stopped";
      text = cfg.stopped + (n ? " · " + cfg.pending.replace("{n}", String(n)) : "");
    } else if (!reachable || !navigator.onLine) {
      state = "offline";
      text = cfg.offline + (n ? " · " + cfg.pending.replace("{n}", String(n)) : "");
    } else if (n) {
      state = "pending";
      text = cfg.pending.replace("{n}", String(n));
    } else {
      state = "synced";
      text = cfg.synced;
    }
    node.hidden = false;
    node.setAttribute("data-state", state);
    node.textContent = text;
  }

  function renderConflict() {
    var panel = $("[data-testid=conflict]");
    if (!panel) {
      return;
    }
    panel.hidden = !box.stop;
    if (!box.stop) {
      return;
    }
    var message = $("[data-conflict=message]");
    if (message) {
      // A version conflict is this view's whole point: say it plainly; other refusals in the
      // server's words.
      message.textContent = box.stop.code === "conflict"
        ? message.getAttribute("data-changed") : box.stop.message || "";
    }
    var server = box.stop.server || box.base;
    setText("[data-conflict=server-version]", String(server.version));
    fill($("[data-conflict=server]"), server.rows.map(function (row) {
      return row.description + " → " + row.ns_level + " : " + row.ew_level;
    }));
    fill($("[data-conflict=local]"), box.pending.map(function (item) {
      return describe(item.token);
    }));
  }

  function fill(list, lines) {
    if (!list) {
      return;
    }
    while (list.firstChild) {
      list.removeChild(list.firstChild);
    }
    lines.forEach(function (line) {
      var li = document.createElement("li");
      li.textContent = line;
      list.appendChild(li);
    });
  }

  function render() {
    var sheet = local();
    renderScoreboard(sheet);
    renderRows(sheet);
    renderStatus();
    renderConflict();
    var grid = $("[data-entry-form] fieldset");
    if (grid) {
      var closed = Boolean(sheet.finished || box.base.ended || box.stop);
      grid.disabled = closed;
      grid.classList.toggle("disabled", closed);
    }
    // Every other form of the page (undo, submit …) carries the version it may change.
    document.querySelectorAll(".entry form input[name=version]").forEach(function (input) {
      input.value = String(box.base.version);
    });
  }

  // ------------------------------------------------------------------ taps and the sync

  function tap(token) {
    var now = Date.now();
    if (token === lastTap.token && now - lastTap.at < DOUBLE_TAP_MS) {
      return; // one finger, two taps: one deal
    }
    lastTap = { token: token, at: now };
    if (box.stop) {
      return;
    }
    if (rules && cfg.replay && !box.base.ended) {
      try {
        window.SheetRules.compute(rules.rules, rules.words, box.base.start,
          box.base.tokens.concat(pendingTokens(), [token]), box.base.time_deals);
      } catch (e) {
        return; // the rules refuse it (the match is over): the grid is closed anyway
      }
    }
    if (navigator.vibrate) {
      navigator.vibrate(15);
    }
    box.pending.push({
      key: newKey(), token: token, version: box.base.version + box.pending.length,
      at: new Date().toISOString()
    });
    save();
    render();
    flush();
  }

  function post(item) {
    var body = new URLSearchParams();
    body.set("csrfmiddlewaretoken", cfg.csrf);
    body.set("version", String(item.version));
    body.set("token", item.token);
    body.set("once", item.key);
    var controller = window.AbortController ? new AbortController() : null;
    var timeout = window.setTimeout(function () {
      if (controller) {
        controller.abort();
      }
    }, TIMEOUT_MS);
    return fetch(cfg.eventUrl, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { Accept: "application/json" },
      signal: controller ? controller.signal : undefined
    }).then(function (response) {
      window.clearTimeout(timeout);
      return response.json().then(function (json) {
        return { status: response.status, json: json };
      }, function () {
        return { status: response.status, json: null };
      });
    }, function (error) {
      window.clearTimeout(timeout);
      throw error;
    });
  }

  function flush() {
    if (sending || box.stop || !box.pending.length) {
      return;
    }
    sending = true;
    var item = box.pending[0];
    post(item).then(function (answer) {
      sending = false;
      reachable = true;
      var json = answer.json;
      if (answer.status === 200 && json && json.ok && json.key === item.key) {
        box.pending.shift(); // acknowledged by its key
        box.base = json.state;
        box.entryStatus = json.entry_status;
        save();
        render();
        if (box.pending.length) {
          flush();
        } else if (!releaseHeld()) {
          refreshIfShapeChanged();
        }
        return;
      }
      if (answer.status >= 500 || (!json && answer.status !== 403 && answer.status !== 404 &&
          answer.status !== 410)) {
        reachable = false; // the server is struggling: keep the item, try again later
        render();
        return;
      }
      box.stop = {
        code: json ? json.code : String(answer.status),
        message: json && json.message ? json.message : cfg.refused,
        server: json && json.state ? json.state : null,
        key: item.key
      };
      save();
      render();
    }, function () {
      sending = false;
      reachable = false; // no network (or the answer timed out): same item, same key, later
      render();
    });
  }

  // Another form of the sheet (undo, submit …) posted while taps wait would carry a version
  // the waiting taps are about to change: it is held until the outbox is empty, then sent.
  var held = null;

  function releaseHeld() {
    if (!held || box.pending.length) {
      return false;
    }
    var form = held.form;
    var submitter = held.submitter;
    held = null;
    render(); // the version inputs now carry the server's version
    if (form.requestSubmit) {
      form.requestSubmit(submitter && submitter.form === form ? submitter : undefined);
    } else {
      form.submit();
    }
    return true;
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!box || !(form instanceof HTMLFormElement) || form.hasAttribute("data-entry-form") ||
        form.hasAttribute("data-logout") || !form.closest(".entry") ||
        (!box.pending.length && !sending)) {
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    held = { form: form, submitter: event.submitter || null };
    flush();
  }, true);

  function shape(sheet, status) {
    return [sheet.rows.length > 0, sheet.finished, sheet.closable, sheet.extra_deal_next,
      Boolean(sheet.may_call_time), JSON.stringify(sheet.match || null), status].join("|");
  }

  // A block swapped in while a finger is on a button would take the button from under it: the
  // tap would be lost. The swap waits until the finger is lifted and its click is handled.
  var pressed = false;
  var afterRelease = null;

  function whenReleased(swap) {
    if (pressed) {
      afterRelease = swap;
    } else {
      swap();
    }
  }

  document.addEventListener("pointerdown", function () {
    pressed = true;
  }, true);
  ["pointerup", "pointercancel"].forEach(function (type) {
    document.addEventListener(type, function () {
      pressed = false;
      var swap = afterRelease;
      afterRelease = null;
      if (swap) {
        window.setTimeout(swap, 0); // after the click that this release makes
      }
    }, true);
  });

  function refreshIfShapeChanged() {
    if (loggingOut()) {
      return;
    }
    if (shape(box.base, box.entryStatus || cfg.entryStatus) === shape(page, cfg.entryStatus)) {
      return;
    }
    fetch(window.location.href, { credentials: "same-origin", headers: { Accept: "text/html" } })
      .then(function (response) {
        return response.ok && !response.redirected ? response.text() : null;
      })
      .then(function (html) {
        if (!html) {
          return;
        }
        var doc = new DOMParser().parseFromString(html, "text/html");
        // The block, not the <body class="entry"> around it: the rest of the page stays.
        var fresh = $("div.entry", doc);
        var current = $("div.entry");
        if (fresh && current) {
          whenReleased(function () {
            current.parentNode.replaceChild(document.importNode(fresh, true), current);
            start(false);
          });
        }
      })
      .catch(function () { /* the page stays as it is; the next tap tries again */ });
  }

  function resolve(action) {
    if (!box.stop) {
      return;
    }
    var server = box.stop.server || box.base;
    if (action === "discard") {
      var question = $("[data-conflict-action=discard]").getAttribute("data-question");
      if (!window.confirm(question)) {
        return;
      }
      box.pending = [];
    } else {
      // Send mine after theirs: the same taps (same keys) on the server's current version.
      box.pending.forEach(function (item, index) {
        item.version = server.version + index;
      });
    }
    box.base = server;
    box.stop = null;
    save();
    render();
    if (box.pending.length) {
      flush();
    } else {
      refreshIfShapeChanged();
    }
  }

  // ------------------------------------------------------------------ start

  function loadRules() {
    // Kept in localStorage as well as by the worker: a phone without a worker (plain http, an
    // old browser) still computes its waiting taps after a reload.
    var key = "gt-rules:" + cfg.rulesUrl;
    if (rules && rules.url === cfg.rulesUrl) {
      return;
    }
    try {
      var kept = JSON.parse(window.localStorage.getItem(key) || "null");
      if (kept && kept.rules && kept.words) {
        rules = kept;
        rules.url = cfg.rulesUrl;
        render();
        return;
      }
    } catch (e) {
      /* fetched below */
    }
    fetch(cfg.rulesUrl, { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (json) {
        if (!json) {
          return;
        }
        rules = json;
        rules.url = cfg.rulesUrl;
        try {
          for (var i = window.localStorage.length - 1; i >= 0; i--) {
            var name = window.localStorage.key(i);
            if (name && name.indexOf("gt-rules:") === 0 && name !== key) {
              window.localStorage.removeItem(name); // one rule set kept: another URL is stale
            }
          }
          window.localStorage.setItem(key, JSON.stringify(json));
        } catch (e) {
          /* storage full: the worker's copy still serves */
        }
        render();
      })
      .catch(function () { /* offline without the rules kept: taps wait without levels */ });
  }

  function registerWorker() {
    if (!("serviceWorker" in navigator) || !cfg.worker) {
      return;
    }
    navigator.serviceWorker.register(cfg.worker).then(function () {
      if (navigator.serviceWorker.controller) {
        return;
      }
      // The first visit was not yet served by the worker: it keeps this page for offline
      // reloads (as it keeps every page: without the CSRF token and the account's name).
      navigator.serviceWorker.ready.then(function (registration) {
        if (registration.active) {
          registration.active.postMessage({ keep: window.location.href });
        }
      });
    }).catch(function () { /* no worker (plain http, old browser): online use is unchanged */ });
  }

  function fillCsrf() {
    // A page the worker kept has no CSRF token in its forms (templates/scoring/sw.js): the
    // cookie's secret, which Django accepts as the token, goes in when it is opened again.
    var match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (!match) {
      return;
    }
    var inputs = document.querySelectorAll("input[name=csrfmiddlewaretoken]");
    for (var i = 0; i < inputs.length; i++) {
      if (!inputs[i].value) {
        inputs[i].value = decodeURIComponent(match[1]);
      }
    }
  }

  function start(first) {
    var node = document.getElementById("live-sheet");
    var stateNode = document.getElementById("sheet-state");
    if (!node || !stateNode) {
      return;
    }
    fillCsrf();
    var form = $("[data-entry-form]");
    var csrf = form ? $("input[name=csrfmiddlewaretoken]", form) : null;
    cfg = {
      eventUrl: node.getAttribute("data-event-url"),
      rulesUrl: node.getAttribute("data-rules-url"),
      replay: node.getAttribute("data-replay") !== "0", // a knockout match: waiting taps unscored
      store: node.getAttribute("data-store"),
      worker: node.getAttribute("data-worker"),
      entryStatus: node.getAttribute("data-entry-status"),
      csrf: csrf ? csrf.value : node.getAttribute("data-csrf"),
      synced: node.getAttribute("data-synced"),
      pending: node.getAttribute("data-pending"),
      offline: node.getAttribute("data-offline"),
      stopped: node.getAttribute("data-stopped"),
      refused: node.getAttribute("data-refused"),
      rowPending: node.getAttribute("data-row-pending"),
      onStage: node.getAttribute("data-on-stage"),
      empty: node.getAttribute("data-empty"),
      jcf: node.getAttribute("data-jcf"),
      cf: node.getAttribute("data-cf")
    };
    page = JSON.parse(stateNode.textContent);
    var stored = box || load();
    box = stored || { base: page, pending: [], stop: null };
    // The page may be older than what this phone already knows (an offline reload served from
    // the worker's cache): the newer of the two is the base the waiting taps go on.
    if (page.version > box.base.version || (page.version === box.base.version && !stored)) {
      box.base = page;
      box.entryStatus = cfg.entryStatus;
    }
    save();
    render();
    loadRules();
    if (first) {
      registerWorker();
    }
    flush();
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    var button = target ? target.closest("[data-entry-form] button[name=token]") : null;
    if (button && box && cfg) {
      event.preventDefault();
      event.stopPropagation();
      tap(button.value);
      return;
    }
    var action = target ? target.closest("[data-conflict-action]") : null;
    if (action && box) {
      event.preventDefault();
      resolve(action.getAttribute("data-conflict-action"));
    }
  }, true);

  window.addEventListener("online", function () {
    reachable = true;
    if (box) {
      render();
      flush();
    }
  });
  window.addEventListener("offline", function () {
    if (box) {
      render();
    }
  });

  function boot() {
    start(true);
    if (timer === null) {
      timer = window.setInterval(function () {
        if (box && box.pending.length && !box.stop) {
          flush();
        }
      }, RETRY_MS);
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", boot);
  } else {
    boot();
  }
})();

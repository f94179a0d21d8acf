/* The score sheet's service worker (issue 16; served by scoring.views.offline.service_worker
   at /sw.js so that its scope is the whole site).

   - Installs with the sheet's static files (SHELL, their hashed names in production).
   - A table's sheet page (the table-side link, a referee's table) is fetched from the network
     first and kept; without network the last kept copy opens, and its script puts the outbox
     back on it.
   - Static files and the rules as data (/sheet-rules/…?v=hash) come from the cache, refreshed
     in the background.
   - Nothing else is touched: every POST (the taps) goes to the network as before.
   - A kept page is kept without what belongs to the moment and the person (issue 29 D): the
     CSRF token's value (the page's script takes the cookie's when it posts) and the blocks the
     site marks <!--private--> (the account's name and logout form, the messages). Logging out
     deletes the kept pages altogether (static/js/logout.js). */
"use strict";
var SHELL_CACHE = "gt-sheet-shell-{{ version }}";
var PAGES_CACHE = "gt-sheet-pages";
var SHELL = {{ assets|safe }};
var STATIC_PREFIX = "{{ static_prefix|escapejs }}";
var SHEET_PAGES = [/^\/table\/[^/]+\/$/, /^\/t\/[^/]+\/referee\/round\/\d+\/table\/\d+\/$/];

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(SHELL_CACHE)
      .then(function (cache) { return cache.addAll(SHELL); })
      .then(function () { return self.skipWaiting(); })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (keys) {
      return Promise.all(keys.filter(function (key) {
        return key.indexOf("gt-sheet-shell-") === 0 && key !== SHELL_CACHE;
      }).map(function (key) { return caches.delete(key); }));
    }).then(function () { return self.clients.claim(); })
  );
});

function isSheetPage(url) {
  return SHEET_PAGES.some(function (pattern) { return pattern.test(url.pathname); });
}

// The page as kept: no CSRF token's value, no private block.
function sanitise(html) {
  return html
    .replace(/<!--private-->[\s\S]*?<!--\/private-->/g, "")
    .replace(/(name="csrfmiddlewaretoken"\s+value=")[^"]*"/g, '$1"');
}

// Bumped when a user logs out: a page fetched before that is not kept after it.
var generation = 0;

// ``askedIn``: the generation when the page was asked for (a logout since: not kept).
function keepPage(url, response, askedIn) {
  if (!response.ok || response.redirected) {
    return Promise.resolve();
  }
  return response.text().then(function (html) {
    var kept = new Response(sanitise(html), {
      status: response.status,
      headers: { "Content-Type": response.headers.get("Content-Type") || "text/html" }
    });
    return caches.open(PAGES_CACHE).then(function (cache) {
      return askedIn === generation ? cache.put(url, kept) : undefined;
    });
  });
}

self.addEventListener("message", function (event) {
  // Logging out (static/js/logout.js): every kept page goes, and none fetched before is kept.
  if (event.data && event.data.forget) {
    generation += 1;
    var port = event.ports && event.ports[0];
    event.waitUntil(caches.delete(PAGES_CACHE).then(function () {
      if (port) {
        port.postMessage("forgotten");
      }
    }));
    return;
  }
  // The page's script asks for the page it was first loaded with (not yet served by the worker).
  var asked = event.data && typeof event.data.keep === "string" ? event.data.keep : "";
  var url = asked ? new URL(asked, self.location.origin) : null;
  if (url && url.origin === self.location.origin && isSheetPage(url)) {
    var askedIn = generation;
    event.waitUntil(fetch(url.href, { credentials: "same-origin" }).then(function (response) {
      return keepPage(url.href, response, askedIn);
    }).catch(function () {}));
  }
});

function networkFirst(request) {
  var askedIn = generation;
  return fetch(request).then(function (response) {
    keepPage(request.url, response.clone(), askedIn).catch(function () {});
    return response;
  }, function () {
    return caches.open(PAGES_CACHE).then(function (cache) {
      return cache.match(request.url, { ignoreSearch: true });
    }).then(function (kept) { return kept || Response.error(); });
  });
}

function cacheFirst(request) {
  return caches.match(request).then(function (kept) {
    var fresh = fetch(request).then(function (response) {
      if (response.ok) {
        var copy = response.clone();
        var name = request.url.indexOf("/sheet-rules/") >= 0 ? PAGES_CACHE : SHELL_CACHE;
        caches.open(name).then(function (cache) { return cache.put(request, copy); });
      }
      return response;
    });
    if (kept) {
      fresh.catch(function () {});
      return kept;
    }
    return fresh;
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") {
    return;
  }
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    return;
  }
  if (isSheetPage(url)) {
    event.respondWith(networkFirst(request));
  } else if (url.pathname.indexOf(STATIC_PREFIX) === 0 || url.pathname.indexOf("/sheet-rules/") === 0) {
    event.respondWith(cacheFirst(request));
  }
});

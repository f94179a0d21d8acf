/* The score sheet's service worker (issue 16; served by scoring.views.offline.service_worker
   at /sw.js so that its scope is the whole site).

   - Installs with the sheet's static files (SHELL, their hashed names in production).
   - A table's sheet page (the table-side link, a referee's table) is fetched from the network
     first and kept; without network the last kept copy opens, and its script puts the outbox
     back on it.
   - Static files and the rules as data (/sheet-rules/…?v=hash) come from the cache, refreshed
     in the background.
   - Nothing else is touched: every POST (the taps) goes to the network as before. */
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

function networkFirst(request) {
  return fetch(request).then(function (response) {
    if (response.ok && !response.redirected) {
      var copy = response.clone();
      caches.open(PAGES_CACHE).then(function (cache) { return cache.put(request.url, copy); });
    }
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

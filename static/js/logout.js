/* Logging out on a shared phone (issue 29 D): the next person to pick the phone up must not
   find this user's pages or taps on it, online or off.

   On the logout form's submit: this user's outboxes (localStorage "gt-outbox:u<id>:…", the
   taps not yet uploaded — asked first when there are any: logging out discards them) are
   removed, and the service worker's kept sheet pages ("gt-sheet-pages") are deleted before the
   form is sent (the worker is told as well). The worker keeps its pages without the CSRF token and the account's name
   (templates/scoring/sw.js); the table-side outboxes are the table's, not a user's, and stay. */
(function () {
  "use strict";
  var PAGES = "gt-sheet-pages";
  var WAIT_MS = 2000;

  function outboxes(user) {
    var prefix = "gt-outbox:u" + user + ":";
    var found = { keys: [], waiting: 0 };
    try {
      for (var i = 0; i < window.localStorage.length; i++) {
        var name = window.localStorage.key(i);
        if (name && name.indexOf(prefix) === 0) {
          found.keys.push(name);
          var box = JSON.parse(window.localStorage.getItem(name) || "null");
          found.waiting += box && Array.isArray(box.pending) ? box.pending.length : 0;
        }
      }
    } catch (e) {
      /* no storage: nothing kept */
    }
    return found;
  }

  function forgetInWorker() {
    // The worker deletes its kept pages too, and keeps none it was fetching meanwhile (a
    // sheet refreshed just before the tap on 退出 would otherwise be kept again after it).
    return new Promise(function (resolve) {
      var worker = navigator.serviceWorker && navigator.serviceWorker.controller;
      if (!worker || !window.MessageChannel) {
        resolve();
        return;
      }
      var channel = new MessageChannel();
      channel.port1.onmessage = function () { resolve(); };
      worker.postMessage({ forget: true }, [channel.port2]);
    });
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-logout")) {
      return;
    }
    var found = outboxes(form.getAttribute("data-user") || "");
    if (found.waiting) {
      var question = (form.getAttribute("data-unsent") || "").replace("{n}", String(found.waiting));
      if (!window.confirm(question)) {
        event.preventDefault();
        return;
      }
    }
    // The sheet's script keeps no more from here on (static/js/live-sheet.js, ``save``).
    document.documentElement.setAttribute("data-logging-out", "");
    function forget() {
      outboxes(form.getAttribute("data-user") || "").keys.forEach(function (name) {
        try {
          window.localStorage.removeItem(name);
        } catch (e) {
          /* blocked storage: nothing to remove */
        }
      });
    }
    forget();
    if (!window.caches) {
      return;
    }
    event.preventDefault();
    var sent = false;
    function send() {
      if (!sent) {
        sent = true;
        forget(); // anything an answer in flight kept meanwhile
        form.submit();
      }
    }
    Promise.all([forgetInWorker(), window.caches.delete(PAGES)]).then(send, send);
    window.setTimeout(send, WAIT_MS); // never keep the user from logging out
  }, true);
})();

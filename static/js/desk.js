/* The referee desk refreshes itself (issue 15): every data-seconds it asks data-state-url for
   the round's stamp (scoring.dashboard.desk_stamp); when the stamp moved it fetches this same
   URL — so the referee's filter and page are kept — and swaps in the new #desk-live. Forms
   outside #desk-live (the penalty form) keep what is typed; nothing is fetched while the tab
   is hidden. Without script the page is a plain page with a reload button. */
(function () {
  "use strict";
  var live = document.getElementById("desk-live");
  if (!live || !window.fetch) { return; }
  var stateUrl = live.getAttribute("data-state-url");
  var seconds = parseInt(live.getAttribute("data-seconds"), 10) || 15;
  var busy = false;

  function swap(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("desk-live");
    if (!fresh) { return; }
    live.innerHTML = fresh.innerHTML;
    live.setAttribute("data-stamp", fresh.getAttribute("data-stamp"));
    live.setAttribute("data-refreshed", String(Date.now()));
    if (window.guandanClock) {
      live.querySelectorAll("[data-clock]").forEach(window.guandanClock);
    }
  }

  function refresh() {
    if (busy || document.hidden) { return; }
    busy = true;
    var options = {credentials: "same-origin", cache: "no-store"};
    fetch(stateUrl, options)
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (state) {
        if (!state || state.stamp === live.getAttribute("data-stamp")) { return null; }
        return fetch(window.location.href, options)
          .then(function (response) { return response.ok ? response.text() : null; })
          .then(function (html) { if (html) { swap(html); } });
      })
      .catch(function () { /* offline for a moment: try again at the next tick */ })
      .then(function () { busy = false; });
  }

  window.setInterval(refresh, seconds * 1000);
  document.addEventListener("visibilitychange", refresh);
})();

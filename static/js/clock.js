/* The round clock (scoring/clock.py): counts down the time left from the server's figures
   (data-ends-at, data-now: Unix seconds; the difference from this device's clock is kept, so a
   projector with a wrong clock still shows the right time), and says "最后一副" under
   data-last seconds left and "时间到" at the end. Without script the page shows the time left
   when it was served. */
(function () {
  "use strict";
  var LAST_DEAL_SECONDS = 8 * 60;  // scoring.clock.MINUTES_PER_DEAL
  function two(n) { return (n < 10 ? "0" : "") + n; }
  function start(box) {
    var endsAt = parseFloat(box.getAttribute("data-ends-at"));
    if (!endsAt) { return; }
    var offset = parseFloat(box.getAttribute("data-now")) - Date.now() / 1000;
    var left = box.querySelector("[data-clock-left]");
    var warning = box.querySelector("[data-clock-warning]");
    function tick() {
      var seconds = Math.max(0, Math.ceil(endsAt - (Date.now() / 1000 + offset)));
      if (left) { left.textContent = two(Math.floor(seconds / 60)) + ":" + two(seconds % 60); }
      var over = seconds <= 0;
      var last = !over && seconds <= LAST_DEAL_SECONDS;
      box.classList.toggle("over", over);
      box.classList.toggle("last-deal", last);
      if (warning) {
        warning.textContent = over ? box.getAttribute("data-label-over")
          : (last ? box.getAttribute("data-label-last") : "");
      }
    }
    tick();
    var timer = window.setInterval(function () {
      if (!document.contains(box)) { window.clearInterval(timer); return; }  // replaced
      tick();
    }, 1000);
  }
  window.guandanClock = start;
  document.querySelectorAll("[data-clock]").forEach(start);
})();

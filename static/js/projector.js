/* Projector: show as many rows as fit the screen, one screenful every data-seconds, then load
   data-next (the next chunk of rows, or the first chunk again, which also refreshes the data).
   The screenfuls are measured here, in the browser (row heights differ with the screen, the font
   and long names), so every row is shown once a cycle whatever the projector's resolution. */
(function () {
  "use strict";
  var main = document.getElementById("proj");
  if (!main) { return; }
  var seconds = parseInt(main.getAttribute("data-seconds"), 10) || 12;
  var next = main.getAttribute("data-next") || window.location.href;
  var label = document.querySelector(".proj-page-no");
  var table = main.querySelector("table");
  var rows = table ? Array.prototype.slice.call(table.tBodies[0].rows) : [];
  var starts = [0];  // the first row of each screenful
  var index = 0;

  function measure() {
    var k;
    for (k = 0; k < rows.length; k++) { rows[k].hidden = false; }
    starts = [0];
    if (!rows.length) { return; }
    var head = table.tHead ? table.tHead.getBoundingClientRect().height : 0;
    var top = table.getBoundingClientRect().top + window.pageYOffset;
    var room = window.innerHeight - top - head - 4;
    var used = 0;
    for (k = 0; k < rows.length; k++) {
      var height = rows[k].getBoundingClientRect().height;
      if (used > 0 && used + height > room) {
        starts.push(k);
        used = 0;
      }
      used += height;
    }
  }

  function show(i) {
    var from = starts[i];
    var to = i + 1 < starts.length ? starts[i + 1] : rows.length;
    for (var k = 0; k < rows.length; k++) { rows[k].hidden = (k < from || k >= to); }
    main.setAttribute("data-page", String(i + 1));
    main.setAttribute("data-pages", String(starts.length));
    if (label) { label.textContent = starts.length > 1 ? (i + 1) + " / " + starts.length : ""; }
  }

  function layout() {
    var first = rows.length ? starts[Math.min(index, starts.length - 1)] : 0;
    measure();
    index = 0;
    while (index + 1 < starts.length && starts[index + 1] <= first) { index += 1; }
    show(index);
  }

  layout();
  var resizing = null;
  window.addEventListener("resize", function () {
    window.clearTimeout(resizing);
    resizing = window.setTimeout(layout, 200);
  });
  window.setInterval(function () {
    index += 1;
    if (index >= starts.length) { window.location.replace(next); return; }
    show(index);
  }, seconds * 1000);
})();

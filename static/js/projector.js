/* Projector: show one page of rows at a time, advance every data-seconds, then load data-next
   (the next chunk of rows, or the first chunk again, which also refreshes the data). */
(function () {
  "use strict";
  var main = document.getElementById("proj");
  if (!main) { return; }
  var pages = main.querySelectorAll(".proj-page");
  var seconds = parseInt(main.getAttribute("data-seconds"), 10) || 12;
  var next = main.getAttribute("data-next") || window.location.href;
  var label = document.querySelector(".proj-page-no");
  var index = 0;
  function show(i) {
    for (var k = 0; k < pages.length; k++) { pages[k].hidden = (k !== i); }
    if (label && pages.length > 1) { label.textContent = (i + 1) + " / " + pages.length; }
  }
  show(0);
  window.setInterval(function () {
    index += 1;
    if (index >= pages.length) { window.location.replace(next); return; }
    show(index);
  }, seconds * 1000);
})();

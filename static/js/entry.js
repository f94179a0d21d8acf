/* Results entry, a little progressive enhancement over plain POST forms (the pages work
   without it): ask before destructive actions, and stop a double tap from posting twice
   (the server would refuse the second with a version conflict anyway). */
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement) ||
        form.method.toLowerCase() !== "post") {
      return; // another script kept it (a question declined, a form held): not sent
    }
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      event.preventDefault();
      return;
    }
    if (form.dataset.sent === "1") {
      event.preventDefault();
      return;
    }
    form.dataset.sent = "1";
    // Disable after the browser has read the clicked button's name/value.
    window.setTimeout(function () {
      form.querySelectorAll("button").forEach(function (button) {
        button.disabled = true;
      });
      form.classList.add("sending");
    }, 0);
    if (navigator.vibrate && form.hasAttribute("data-entry-form")) {
      navigator.vibrate(15);
    }
  });
  // Back/forward cache: a restored page must be usable again.
  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) {
      return;
    }
    document.querySelectorAll("form[data-sent]").forEach(function (form) {
      delete form.dataset.sent;
      form.classList.remove("sending");
      form.querySelectorAll("button").forEach(function (button) {
        button.disabled = false;
      });
    });
  });
})();

// A form sent back with errors (issue 24): bring its first error into view and put the cursor in the field
// it names, so an error below the fold is never missed. Django marks such fields aria-invalid="true".
(function () {
  "use strict";
  function showFirstError() {
    var field = document.querySelector('main form [aria-invalid="true"]');
    var message = document.querySelector("main form .errorlist");
    var target = field || message;
    if (!target) return;
    var form = target.closest("form");
    var shown = message && form && form.contains(message) ? message : target;
    shown.scrollIntoView({ block: "center" });
    var control = field || (form && form.querySelector("input:not([type=hidden]), select, textarea"));
    if (control) control.focus({ preventScroll: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", showFirstError);
  else showFirstError();
})();

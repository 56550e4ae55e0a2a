// The guidelines overlay on the judging page (templates: judging/_guidelines.html). `g` opens and closes it,
// Esc closes it; while it is open the judging keys do nothing (they would answer a card the assessor cannot
// see), and the arrow and page keys scroll the guidelines. Shown at the start until read: closing it then
// records the reading on the server, so it is not shown at the start again.
// Its keys are caught on window in the capture phase, before judge.js's listener on document sees them.
(function () {
  "use strict";

  var overlay = document.getElementById("guidelines");
  if (!overlay) return;
  var body = document.getElementById("guidelines-body");
  var SCROLL_KEYS = ["ArrowUp", "ArrowDown", "PageUp", "PageDown", "Home", "End", " ", "Tab"];

  function isOpen() { return overlay.classList.contains("open") || window.location.hash === "#guidelines"; }

  function open() {
    overlay.classList.add("open");
    if (body) body.focus({ preventScroll: true });
  }

  function close() {
    overlay.classList.remove("open");
    if (window.location.hash === "#guidelines") {
      history.replaceState(null, "", window.location.pathname + window.location.search);
    }
    if (document.activeElement && overlay.contains(document.activeElement)) document.activeElement.blur();
    if (overlay.getAttribute("data-start") === "true") recordRead();
  }

  // Shown at the start and now closed: the server remembers it. If this fails the guidelines are simply shown
  // at the start once more; nothing else depends on it.
  function recordRead() {
    overlay.setAttribute("data-start", "false");
    var form = document.getElementById("guidelines-read-form");
    var data = form ? new FormData(form) : new FormData();
    fetch(overlay.getAttribute("data-read-url"), {
      method: "POST",
      body: data,
      headers: { "HX-Request": "true" },
      credentials: "same-origin",
    }).catch(function () {});
    if (form) form.hidden = true;
    var title = document.getElementById("guidelines-title");
    if (title) title.textContent = "Guidelines";
  }

  window.addEventListener("keydown", function (evt) {
    if (evt.ctrlKey || evt.metaKey || evt.altKey) return;
    var t = evt.target;
    var typing = t && (t.tagName === "TEXTAREA" || t.tagName === "SELECT" ||
      (t.tagName === "INPUT" && t.type !== "checkbox"));
    var shown = isOpen();
    if (typing && !shown) return;
    var key = evt.key.length === 1 ? evt.key.toLowerCase() : evt.key;
    if (key === "g") {
      if (shown) close(); else open();
    } else if (!shown) {
      return;
    } else if (key === "Escape" || key === "Enter") {
      close();
    } else if (SCROLL_KEYS.indexOf(evt.key) !== -1) {
      evt.stopImmediatePropagation(); // the browser scrolls the guidelines; judge.js does not see the key
      return;
    }
    evt.preventDefault();
    evt.stopImmediatePropagation();
  }, true);

  document.addEventListener("click", function (evt) {
    var t = evt.target;
    if (!t || !t.closest) return;
    if (t.closest("#guidelines-open")) { evt.preventDefault(); if (isOpen()) close(); else open(); }
    else if (t.closest(".guidelines-close") || t.closest("#guidelines-start")) { evt.preventDefault(); close(); }
    else if (t === overlay) close(); // a click on the dimmed page around the box
  });

  if (isOpen()) open();
})();

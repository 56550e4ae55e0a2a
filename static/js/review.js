// The review page's keys (judging/review/): 1/2/3 choose the final label and move to the reason, Enter (in the
// reason) sets it, n or ArrowRight the next pair, p or ArrowLeft the previous one, Escape leaves the reason.
(function () {
  "use strict";
  function follow(id) {
    var link = document.getElementById(id);
    if (!link) return;
    if (window.htmx) window.htmx.trigger(link, "click");
    else window.location.href = link.href;
  }
  // htmx keeps the focus on an input of the same id across a swap: a new pair starts with the keys, not typing.
  document.addEventListener("htmx:afterSettle", function () {
    var active = document.activeElement;
    if (active && active.id === "review-reason") active.blur();
  });
  document.addEventListener("keydown", function (evt) {
    if (evt.ctrlKey || evt.metaKey || evt.altKey) return;
    var target = evt.target;
    var typing = target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text"));
    if (typing) {
      if (evt.key === "Escape") { target.blur(); evt.preventDefault(); }
      return;
    }
    var key = evt.key.length === 1 ? evt.key.toLowerCase() : evt.key;
    if (key === "1" || key === "2" || key === "3") {
      var radio = document.querySelector('#review-form input[data-key="' + key + '"]');
      var reason = document.getElementById("review-reason");
      if (!radio) return;
      evt.preventDefault();
      radio.checked = true;
      if (reason) reason.focus();
    } else if (key === "n" || key === "ArrowRight") {
      evt.preventDefault();
      follow("review-next");
    } else if (key === "p" || key === "ArrowLeft") {
      evt.preventDefault();
      follow("review-previous");
    }
  });
})();

// The review page's keys (judging/review/): 1/2/3 choose the final label and move to the reason, Enter (in the
// reason) sets it, n or ArrowRight the next pair, p or ArrowLeft the previous one, Escape leaves the reason.
(function () {
  "use strict";
  // htmx processes swapped-in links when the swap settles (20 ms later): a key pressed in between would reach a
  // link htmx does not handle yet and be lost, so it waits for the settle.
  var settling = false;
  var pending = null;
  function follow(id) {
    if (settling) { pending = id; return; }
    var link = document.getElementById(id);
    if (!link) return;
    if (window.htmx) window.htmx.trigger(link, "click");
    else window.location.href = link.href;
  }
  // Set on afterSwap, not beforeSwap: a refused request (4xx) is not swapped, and no settle would clear it.
  document.addEventListener("htmx:afterSwap", function () { settling = true; });
  document.addEventListener("htmx:afterSettle", function () {
    settling = false;
    if (pending) { var id = pending; pending = null; follow(id); }
  });
  // htmx keeps the focus on an input of the same id across a swap: a new pair starts with the keys, not typing.
  // On afterSwap, which htmx fires right after it restores the focus: a key pressed before the settle (20 ms
  // later) would otherwise be typed into the new pair's reason instead of moving on.
  document.addEventListener("htmx:afterSwap", function () {
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

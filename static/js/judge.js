// The judging page: keys, active time, and retries. One keystroke = one htmx request that stores the
// judgment and swaps in the next pair card. Submits are idempotent (the card's token), so retrying is safe.
(function () {
  "use strict";

  var IDLE_LIMIT_MS = 60 * 1000; // no input for longer than this is idle, and not counted
  var TICK_MS = 250;
  var RETRY_DELAYS_MS = [500, 1500, 4000];

  var activeMs = 0;
  var lastTick = Date.now();
  var lastInput = Date.now();
  var cardToken = null;
  var busy = false;
  var retries = 0;
  var lastSubmitter = null;
  var lastRequest = null; // "submit" or "back"

  function card() { return document.getElementById("pair-card"); }
  function form() { return document.getElementById("judge-form"); }

  function status(text, kind) {
    var el = document.getElementById("judge-status");
    if (!el) return;
    el.textContent = text || "";
    el.className = "judge-status" + (kind ? " " + kind : "");
    el.hidden = !text;
  }

  // --- active time -------------------------------------------------------------------------------
  function tick() {
    var now = Date.now();
    if (!document.hidden && now - lastInput <= IDLE_LIMIT_MS) {
      activeMs += now - lastTick;
    }
    lastTick = now;
  }
  function input() { tick(); lastInput = Date.now(); }
  ["keydown", "mousemove", "mousedown", "wheel", "scroll", "touchstart"].forEach(function (name) {
    window.addEventListener(name, input, { passive: true, capture: true });
  });
  document.addEventListener("visibilitychange", function () { tick(); if (!document.hidden) lastInput = Date.now(); });
  setInterval(tick, TICK_MS);

  function resetForCard() {
    var c = card();
    var token = c ? c.getAttribute("data-token") : null;
    if (token !== cardToken) {
      cardToken = token;
      tick();
      activeMs = 0;
      retries = 0;
      showCard();
    }
  }

  // A new card starts at its top, with the judged sentence in view inside its answer, and says when it cites
  // the same passage as the previous card (otherwise only the highlighted sentence would seem to move).
  var lastPassage = null;
  function showCard() {
    window.scrollTo(0, 0);
    var answer = document.getElementById("answer-pane");
    var passage = document.getElementById("passage-pane");
    if (passage) {
      passage.scrollTop = 0;
      var id = passage.getAttribute("data-passage");
      var cue = document.getElementById("same-passage");
      if (cue) cue.hidden = !(lastPassage !== null && id === lastPassage);
      lastPassage = id;
    }
    if (answer) {
      var sentence = answer.querySelector(".judged-sentence");
      answer.scrollTop = 0;
      if (sentence && sentence.offsetTop + sentence.offsetHeight > answer.clientHeight) {
        answer.scrollTop = Math.max(0, sentence.offsetTop - answer.clientHeight / 3);
      }
    }
  }

  // --- requests ----------------------------------------------------------------------------------
  document.body.addEventListener("htmx:configRequest", function (evt) {
    if (evt.detail.elt && evt.detail.elt.id === "judge-form") {
      tick();
      evt.detail.parameters.seconds = (activeMs / 1000).toFixed(2);
    }
  });
  // Busy from a request until its new card is settled: htmx wires the new form up only then, and a key
  // pressed earlier would submit the form without htmx.
  var drainScheduled = false;
  function setBusy(value) {
    busy = value;
    document.body.setAttribute("data-judge", value ? "busy" : "ready");
    if (!value && !drainScheduled) {
      drainScheduled = true;
      setTimeout(function () { drainScheduled = false; actOnQueued(); }, 0);
    }
  }
  document.body.addEventListener("htmx:beforeRequest", function (evt) {
    setBusy(true);
    lastRequest = evt.detail.elt && evt.detail.elt.id === "judge-form" ? "submit" : "other";
  });
  document.body.addEventListener("htmx:afterRequest", function (evt) {
    if (evt.detail.successful) {
      if (retries > 0) status("Saved.", "ok");
      else status("");
      retries = 0;
    }
  });
  document.body.addEventListener("htmx:afterSwap", function () { resetForCard(); });
  document.body.addEventListener("htmx:afterSettle", function () { setBusy(false); });
  // A response that is not a pair card (the login page after the session expired) must not replace the card.
  document.body.addEventListener("htmx:beforeSwap", function (evt) {
    var text = evt.detail.serverResponse || "";
    if (evt.detail.shouldSwap && text.indexOf('id="pair-card"') === -1) {
      evt.detail.shouldSwap = false;
      setBusy(false);
      status("Your answer was NOT saved: you seem to be logged out. Reload the page and log in again." + dropQueued(),
        "error");
    }
  });

  function retryOrGiveUp(message) {
    if (lastRequest === "submit" && retries < RETRY_DELAYS_MS.length && form()) {
      var delay = RETRY_DELAYS_MS[retries];
      retries += 1;
      status("Saving failed (" + message + "); retrying (" + retries + "/" + RETRY_DELAYS_MS.length + ")…", "warning");
      // Busy until the retry is answered: a key typed ahead must wait for the card after this one.
      setBusy(true);
      setTimeout(function () { send(lastSubmitter); }, delay);
      return;
    }
    status("Your answer was NOT saved: " + message + ". Check your connection and press the key again; " +
      "nothing you saw as saved is lost." + dropQueued(), "error");
  }
  document.body.addEventListener("htmx:sendError", function () { setBusy(false); retryOrGiveUp("no connection to the server"); });
  document.body.addEventListener("htmx:responseError", function (evt) {
    setBusy(false);
    var xhr = evt.detail.xhr;
    if (xhr.status >= 500 || xhr.status === 0) {
      retryOrGiveUp("server error " + xhr.status);
    } else if (xhr.status === 403 || xhr.status === 401) {
      status("Your answer was NOT saved: you seem to be logged out. Reload the page and log in again." + dropQueued(),
        "error");
    } else {
      status((xhr.responseText || ("error " + xhr.status)).slice(0, 300) + dropQueued(), "error");
    }
  });

  function send(button) {
    var f = form();
    if (!f || !button) return;
    lastSubmitter = button;
    // Busy from this moment, not from htmx's beforeRequest: a key queued behind this one must not reach the
    // same card, whatever the order in which htmx's events arrive.
    setBusy(true);
    // The card may have been swapped in a moment ago: make sure htmx has wired its form, or the click would
    // submit it natively (a full page load that loses the keys typed ahead). A no-op when already wired.
    htmx.process(f);
    // A click (not requestSubmit) so that htmx sends the button's label with the form.
    button.click();
  }

  function choose(key) {
    var f = form();
    if (!f) return false;
    var buttons = f.querySelectorAll("button.choice");
    for (var i = 0; i < buttons.length; i++) {
      var keys = (buttons[i].getAttribute("data-keys") || "").split(" ");
      if (keys.indexOf(key) !== -1) { send(buttons[i]); return true; }
    }
    return false;
  }

  function goBack() {
    var link = document.getElementById("judge-back");
    if (link) { lastRequest = "back"; setBusy(true); htmx.trigger(link, "click"); }
  }

  document.addEventListener("click", function (evt) {
    var t = evt.target;
    var button = t && t.closest ? t.closest("button.choice") : null;
    if (button) lastSubmitter = button;
  }, true);

  // The keys that answer or move; pressed while a request is in flight they wait in `queued`, never dropped.
  var QUEUED_KEYS = ["1", "2", "3", "f", "p", "n", "0", "s", "Enter", "u", "Backspace", "x"];
  var queued = [];

  function act(key) {
    if (key === "1" || key === "2" || key === "3" || key === "f" || key === "p" || key === "n" || key === "0" || key === "s") {
      choose(key);
    } else if (key === "Enter") {
      var pre = form() && form().querySelector("button.choice.preselected");
      var next = document.getElementById("next-assignment");
      if (pre) send(pre);
      else if (next && !form()) window.location.href = next.href;
    } else if (key === "u" || key === "Backspace") {
      goBack();
    } else if (key === "x") {
      // x flags the pair and opens the comment; on a flagged pair (a revisit keeps its flag) it unflags.
      var box = document.getElementById("flag-box");
      var comment = document.getElementById("flag-comment");
      if (box && comment) {
        box.checked = !box.checked;
        if (box.checked) comment.focus();
      }
    }
  }

  function actOnQueued() {
    var waited = queued.length > 1 || busy;
    while (!busy && queued.length) {
      act(queued.shift());
    }
    if (!queued.length && waited && !retries) status("");
  }

  function dropQueued() {
    if (!queued.length) return "";
    var n = queued.length;
    queued = [];
    return " " + n + (n === 1 ? " key" : " keys") + " typed ahead were not applied.";
  }

  document.addEventListener("keydown", function (evt) {
    if (evt.ctrlKey || evt.metaKey || evt.altKey) return;
    var target = evt.target;
    var typing = target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type !== "checkbox"));
    if (typing) {
      if (evt.key === "Escape") { target.blur(); evt.preventDefault(); }
      return;
    }
    var key = evt.key.length === 1 ? evt.key.toLowerCase() : evt.key;
    // g (the guidelines) is static/js/guidelines.js's key: it takes it before this listener sees it.
    if (key === "l") {
      var list = document.getElementById("judged-list");
      if (list && !busy) { window.location.href = list.href; evt.preventDefault(); }
      return;
    }
    if (QUEUED_KEYS.indexOf(key) === -1) return;
    evt.preventDefault();
    // Every key goes through the queue, so a key typed while earlier ones still wait never jumps ahead of them.
    queued.push(key);
    if (busy) status(queued.length + (queued.length === 1 ? " key" : " keys") + " waiting for the next card…", "");
    actOnQueued();
  });

  resetForCard();
  // htmx wires the page up on DOMContentLoaded, before this (deferred, later-registered) handler runs.
  document.addEventListener("DOMContentLoaded", function () { setTimeout(function () { setBusy(false); }, 0); });
  busy = true;
})();

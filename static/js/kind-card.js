// A kind's card by keys (templates/kinds/_card_page.html; docs/kinds.md). The card is
//   <form id="kind-card" hx-post=... hx-target="#kind-card" hx-swap="outerHTML" data-step="1">
// with hidden inputs and <fieldset data-step="N"> steps of buttons: data-key (one or more keys, spaces between),
// data-field and data-value (the hidden input it sets), then data-next="M" (show step M) or data-submit. A key
// clicks the button of the step on screen that carries it (or a [data-key] of the card outside any step, such
// as a "done" card's link); Enter clicks the step's [data-preselected] button (post-edit); Backspace or u goes
// one step back and undoes that step's answer. The submit's response is the next card.
//
// While a submit is in flight, and until htmx has settled the new card (it processes the new form's hx-post
// only then), keys wait in `queued`, in order, and are replayed on the new card: none is lost.
(function () {
  "use strict";

  var QUEUE_MOST = 50;
  var time = window.JudgeTime ? window.JudgeTime() : null;
  var busy = false; // a submit is in flight, or its card not settled yet
  var replayScheduled = false;
  var queued = [];
  var history = []; // this card's answered steps: {step, field, previous value}

  function card() { return document.getElementById("kind-card"); }

  function mark() {
    document.body.setAttribute("data-kind-card", busy || queued.length ? "busy" : "ready");
    document.body.setAttribute("data-queued", String(queued.length));
  }

  function status(text, kind) {
    var el = document.getElementById("kind-status");
    if (!el) return;
    el.textContent = text || "";
    el.className = "judge-status" + (kind ? " " + kind : "");
    el.hidden = !text;
  }

  function stepOn(form) {
    return form.querySelector('fieldset[data-step="' + form.getAttribute("data-step") + '"]');
  }

  function showStep(form, step) {
    form.setAttribute("data-step", String(step));
    form.querySelectorAll("fieldset[data-step]").forEach(function (fs) {
      fs.hidden = fs.getAttribute("data-step") !== String(step);
    });
  }

  function field(form, name) {
    var input = form.querySelector('input[name="' + name + '"]');
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      form.appendChild(input);
    }
    return input;
  }

  // A new card on screen: its first step, its own time, no history.
  function cardShown() {
    var form = card();
    history = [];
    if (time) time.restart();
    if (form && form.querySelector("fieldset[data-step]")) showStep(form, form.getAttribute("data-step") || "1");
  }

  function submit(form) {
    var seconds = form.querySelector('input[name="seconds"]');
    if (seconds && time) seconds.value = time.seconds(parseFloat(seconds.getAttribute("data-max")) || 0);
    busy = true;
    mark();
    status("");
    if (form.requestSubmit) form.requestSubmit();
    else form.submit();
  }

  function choose(button) {
    var form = card();
    if (!form || !form.contains(button) || busy) return;
    var name = button.getAttribute("data-field");
    if (name) {
      var input = field(form, name);
      history.push({ step: form.getAttribute("data-step"), field: name, previous: input.value });
      input.value = button.getAttribute("data-value") || "";
    }
    if (button.hasAttribute("data-submit")) submit(form);
    else if (button.hasAttribute("data-next")) showStep(form, button.getAttribute("data-next"));
  }

  function back() {
    var form = card();
    var last = history.pop();
    if (!form || !last) return;
    if (last.field) field(form, last.field).value = last.previous;
    showStep(form, last.step);
  }

  function hasKey(el, key) {
    return (el.getAttribute("data-key") || "").split(" ").indexOf(key) >= 0;
  }

  // The element a key answers on the card on screen, or null.
  function target(key) {
    var form = card();
    if (!form) return null;
    var step = stepOn(form);
    var pool = step ? Array.prototype.slice.call(step.querySelectorAll("[data-key]")) : [];
    if (key === "Enter" && step) {
      var chosen = step.querySelector("[data-preselected]");
      if (chosen) return chosen;
    }
    form.querySelectorAll("[data-key]").forEach(function (el) { if (!el.closest("fieldset[data-step]")) pool.push(el); });
    for (var i = 0; i < pool.length; i++) if (hasKey(pool[i], key) && !pool[i].disabled) return pool[i];
    return null;
  }

  function act(key) {
    if (key === "Backspace" || key === "u") {
      if (history.length) { back(); return true; }
    }
    var el = target(key);
    if (!el) return false;
    el.click();
    return true;
  }

  function replay() {
    replayScheduled = false;
    busy = false;
    while (queued.length && !busy) act(queued.shift());
    mark();
  }

  function scheduleReplay() {
    // htmx fires afterSettle once per swapped element (the card, and the progress bar swapped out of band):
    // the replay runs once, after all of them.
    if (replayScheduled) return;
    replayScheduled = true;
    setTimeout(function () { cardShown(); replay(); }, 0);
  }

  function failed(evt) {
    var xhr = evt.detail && evt.detail.xhr;
    var text = xhr && xhr.status ? (xhr.responseText || "").replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim() : "";
    var lost = queued.length;
    queued = [];
    busy = false;
    var form = card();
    if (form) { history = []; showStep(form, "1"); }
    status((text ? "Not saved: " + text.slice(0, 300) : "Not saved: the server could not be reached.") +
      " Answer this card again." + (lost ? " (" + lost + " key" + (lost > 1 ? "s" : "") + " pressed meanwhile not used.)" : ""), "error");
    mark();
  }

  document.addEventListener("htmx:afterSwap", function () { busy = true; });
  document.addEventListener("htmx:afterSettle", scheduleReplay);
  document.addEventListener("htmx:responseError", failed);
  document.addEventListener("htmx:sendError", failed);
  document.addEventListener("htmx:afterRequest", function (evt) {
    // A 204 (or any answer htmx does not swap) ends the wait without a settle.
    var xhr = evt.detail && evt.detail.xhr;
    if (evt.detail && evt.detail.successful && xhr && xhr.status === 204) scheduleReplay();
  });

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest && evt.target.closest("#kind-card button[data-field], #kind-card button[data-next], #kind-card button[data-submit]");
    if (!button) return;
    evt.preventDefault();
    choose(button);
  });

  document.addEventListener("keydown", function (evt) {
    if (evt.ctrlKey || evt.metaKey || evt.altKey) return;
    var el = evt.target;
    var typing = el && (el.tagName === "TEXTAREA" || el.tagName === "SELECT" || (el.tagName === "INPUT" && el.type !== "hidden" && el.type !== "checkbox" && el.type !== "radio"));
    if (typing) {
      if (evt.key === "Escape") { el.blur(); evt.preventDefault(); }
      return;
    }
    var key = evt.key.length === 1 ? evt.key.toLowerCase() : evt.key;
    if (key.length !== 1 && key !== "Enter" && key !== "Backspace") return;
    if (busy || queued.length) {
      if (queued.length < QUEUE_MOST) queued.push(key);
      evt.preventDefault();
      mark();
      return;
    }
    if (act(key)) evt.preventDefault();
    mark();
  });

  cardShown();
  mark();
})();

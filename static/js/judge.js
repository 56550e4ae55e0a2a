// The judging page: keys, active time, the card held in advance, and the outbox (docs/judging.md).
//
// A keystroke puts the judgment in the outbox (localStorage: it survives a reload) and shows at once the card
// the server sent in advance (`template.following-card` inside the card on screen). The outbox is sent in
// order, one request at a time, retried with backoff until the server acknowledges each judgment; every
// entry carries its card's submission token, so a retry stores nothing twice. The server stays the authority
// on the queue: its answer to each submit is the next card (and the one after it), and a card shown in
// advance that is no longer the next one (judged in another tab, a changed assignment) is replaced.
(function () {
  "use strict";

  var IDLE_LIMIT_MS = 60 * 1000; // no input for longer than this is idle, and not counted
  var TICK_MS = 250;
  var BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000, 30000];
  var SHOW_UNSAVED_AFTER_MS = 1500; // an entry answered within this is not worth a flicker of "1 unsaved"

  var activeMs = 0;
  var lastTick = Date.now();
  var lastInput = Date.now();
  var cardToken = null;

  var head = document.getElementById("judge-head");
  var pageAssignment = head ? head.getAttribute("data-assignment") : "";
  var pageUrl = head ? head.getAttribute("data-page-url") : "";
  var OUTBOX_PREFIX = "judge-outbox:" + (head ? head.getAttribute("data-user") : "") + ":";

  function card() { return document.getElementById("pair-card"); }
  function form() { return document.getElementById("judge-form"); }
  function tokenOf(el) { return (el && el.getAttribute("data-token")) || ""; }

  function status(text, kind) {
    var el = document.getElementById("judge-status");
    if (!el) return;
    el.textContent = "";
    if (text && typeof text === "object") el.appendChild(text);
    else el.textContent = text || "";
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
    var token = tokenOf(card()) || null;
    if (token !== cardToken) {
      cardToken = token;
      tick();
      activeMs = 0;
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

  // --- cards -------------------------------------------------------------------------------------
  var following = null; // the HTML of the card that comes after the one on screen, when the server sent it
  var waiting = false; // the card on screen is answered; the next one comes with the server's answer
  var loading = false; // a card asked for by `u` is on its way

  // A card as the server rendered it, and the card after it that it holds (or null). Anything else (a login
  // page, Django's error page with DEBUG on) is not a card and is never shown.
  function parseCard(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    var el = t.content.firstElementChild;
    while (el && el.id !== "pair-card") el = el.nextElementSibling;
    if (!el) return null;
    var held = el.querySelector("template.following-card");
    var next = null;
    if (held) { next = held.innerHTML; held.remove(); }
    return { el: el, following: next };
  }

  function install(el) {
    var current = card();
    if (current) current.replaceWith(el);
    resetForCard();
  }

  function takeHeld() {
    var held = card() && card().querySelector("template.following-card");
    if (held) { following = held.innerHTML; held.remove(); }
  }

  // --- the outbox --------------------------------------------------------------------------------
  // One localStorage key per entry (no read-modify-write, so two tabs cannot overwrite each other's entries);
  // keys sort in the order answered. In memory when the browser refuses storage (then a reload loses them).
  var memory = {};
  var store = (function () {
    try {
      var probe = OUTBOX_PREFIX + "probe";
      window.localStorage.setItem(probe, "1");
      window.localStorage.removeItem(probe);
      return window.localStorage;
    } catch (e) { return null; }
  })();
  var seq = 0;

  function outbox() {
    var keys = [];
    if (store) {
      for (var i = 0; i < store.length; i++) {
        var k = store.key(i);
        if (k && k.indexOf(OUTBOX_PREFIX) === 0 && k !== OUTBOX_PREFIX + "probe") keys.push(k);
      }
    } else {
      keys = Object.keys(memory);
    }
    keys.sort();
    var entries = [];
    keys.forEach(function (k) {
      try {
        var entry = JSON.parse(store ? store.getItem(k) : memory[k]);
        if (entry && entry.url && entry.token) { entry.key = k; entries.push(entry); }
      } catch (e) { /* not ours or damaged: leave it */ }
    });
    return entries;
  }
  function outboxAdd(entry) {
    var key = OUTBOX_PREFIX + String(Date.now()).padStart(15, "0") + "-" + String(seq++).padStart(6, "0");
    var text = JSON.stringify(entry);
    if (store) {
      try { store.setItem(key, text); return; } catch (e) { /* full: keep it in memory */ }
    }
    memory[key] = text;
  }
  function outboxRemove(key) {
    if (store) store.removeItem(key);
    delete memory[key];
  }

  function ownEntries() {
    return outbox().filter(function (e) { return e.assignment === pageAssignment; });
  }

  function csrfToken() {
    // The cookie at send time: a login in another tab rotates it, and an entry made before must still go.
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (m) return decodeURIComponent(m[1]);
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  var inflight = false;
  var recovering = false; // the page said that answers wait: it says when they are all stored
  var failures = 0;
  var retryTimer = null;

  function pump() {
    if (inflight || retryTimer) return;
    var entries = outbox();
    if (!entries.length) { showUnsaved(); settle(); return; }
    var entry = entries[0];
    inflight = true;
    settle();
    var body = new URLSearchParams();
    ["pair_id", "token", "label", "seconds", "comment", "not_judged_reason"].forEach(function (name) {
      body.append(name, entry[name] == null ? "" : entry[name]);
    });
    if (entry.flagged) body.append("flagged", "on");
    fetch(entry.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), "HX-Request": "true" },
    }).then(function (response) {
      return response.text().then(function (text) { answered(entry, response, text); });
    }, function () {
      failed("no connection to the server", false);
    });
  }

  function answered(entry, response, text) {
    inflight = false;
    var parsed = response.ok ? parseCard(text) : null;
    if (parsed) {
      outboxRemove(entry.key);
      if ((failures || recovering) && !outbox().length) {
        status("Saved: every answer is stored.", "ok");
        recovering = false;
      }
      failures = 0;
      if (entry.assignment === pageAssignment) reconcile(parsed);
      pump();
    } else if (response.ok || response.status === 401 || response.status === 403) {
      // A login page (the session ended) or a refused CSRF check: kept until the assessor logs in again.
      failed("you seem to be logged out", true);
    } else if (response.status >= 500 || response.status === 408 || response.status === 429) {
      failed("server error " + response.status, false);
    } else {
      // Refused for good (the pair left the assignment, the assignment was removed): never stored, not retried.
      outboxRemove(entry.key);
      var plain = (response.headers.get("Content-Type") || "").indexOf("text/plain") === 0;
      status("One answer was refused by the server and is NOT saved: " +
        (plain ? text.slice(0, 300) : "error " + response.status) +
        ". The pair stays in your queue if it is still yours; tell your organizer if this repeats.", "error");
      failures = 0;
      if (!ownEntries().length) resync();
      pump();
    }
  }

  function failed(reason, loggedOut) {
    inflight = false;
    failures += 1;
    var delay = BACKOFF_MS[Math.min(failures - 1, BACKOFF_MS.length - 1)];
    var n = outbox().length;
    var kept = n + (n === 1 ? " answer is" : " answers are") + " kept in this browser, not yet saved on the server";
    if (loggedOut) {
      var box = document.createElement("span");
      box.appendChild(document.createTextNode("Not saved: " + reason + ". " + kept + ". "));
      var link = document.createElement("a");
      link.href = "/accounts/login/?next=" + encodeURIComponent(pageUrl);
      link.target = "_blank";
      link.textContent = "Log in again in a new tab";
      box.appendChild(link);
      box.appendChild(document.createTextNode("; they are sent as soon as you are back. Keep this tab open."));
      status(box, "error");
    } else {
      status("Not saved yet: " + reason + ". " + kept + "; retrying in " + Math.round(delay / 1000 * 10) / 10 +
        " s (try " + failures + "). You can keep this tab open; nothing is lost. If this lasts, tell your organizer.",
        failures >= 3 ? "error" : "warning");
    }
    showUnsaved();
    settle();
    retryTimer = setTimeout(function () { retryTimer = null; pump(); }, delay);
  }

  // Back online, or back from the tab where the assessor logged in again: try now rather than at the next step.
  function retryNow() {
    if (!retryTimer) return;
    clearTimeout(retryTimer);
    retryTimer = null;
    pump();
  }
  window.addEventListener("online", retryNow);
  window.addEventListener("focus", retryNow);

  // The server's next card after a stored judgment, against what the page shows. `parsed` is the next card of
  // the queue once the acknowledged judgment is stored (and the one after it); the page's own answers still in
  // the outbox come first, so it can only be compared once at most one of them is left.
  function reconcile(parsed) {
    var rest = ownEntries();
    var target = null;
    var targetFollowing = null;
    if (rest.length === 0) {
      target = parsed.el;
      targetFollowing = parsed.following;
    } else if (rest.length === 1 && rest[0].token === tokenOf(parsed.el) && parsed.following) {
      target = parseCard(parsed.following);
      target = target && target.el;
    }
    if (!target) return;
    var current = card();
    if (waiting) {
      waiting = false;
      following = targetFollowing;
      install(target);
      actOnQueued();
      return;
    }
    var kind = current && current.getAttribute("data-kind");
    if (kind === "back" || loading) return; // the assessor chose that card; it is not the queue's
    if (tokenOf(target) === tokenOf(current) && target.getAttribute("data-state") === current.getAttribute("data-state")) {
      if (rest.length === 0) following = targetFollowing;
      // The held card was rendered one answer early: the server's copy brings progress and today's figures.
      var fresh = target.querySelector(".judge-progress");
      var shown = current.querySelector(".judge-progress");
      if (fresh && shown) shown.replaceWith(fresh);
      return;
    }
    following = targetFollowing;
    install(target);
    status("The pair that was on screen had already been judged (in another tab?) or has left your assignment: " +
      "here is your next pair.", "warning");
  }

  function resync() {
    fetch(pageUrl, { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (response) { return response.text().then(function (text) { return response.ok ? parseCard(text) : null; }); })
      .then(function (parsed) { if (parsed && !ownEntries().length) reconcile(parsed); }, function () {});
  }

  function showUnsaved() {
    var el = document.getElementById("unsaved");
    if (!el) return;
    var entries = outbox();
    var old = entries.length && Date.now() - (entries[0].at || 0) > SHOW_UNSAVED_AFTER_MS;
    var show = entries.length && (failures > 0 || old || entries.length > 1);
    el.hidden = !show;
    el.textContent = show ? entries.length + " unsaved" : "";
    el.title = show ? "Answers kept in this browser until the server confirms them" : "";
    document.body.setAttribute("data-unsaved", String(entries.length));
  }
  setInterval(showUnsaved, 500);

  // Ready = nothing waits: every answer acknowledged, no key queued, the card on screen unanswered.
  function settle() {
    var idle = !inflight && !waiting && !loading && !queued.length && !outbox().length;
    document.body.setAttribute("data-judge", idle ? "ready" : "busy");
    document.body.setAttribute("data-unsaved", String(outbox().length));
  }

  window.addEventListener("beforeunload", function (evt) {
    if (outbox().length) {
      evt.preventDefault();
      evt.returnValue = "";
    }
  });

  // --- keys --------------------------------------------------------------------------------------
  function answer(button) {
    var f = form();
    var current = card();
    if (!f || !current) return;
    tick();
    var reason = f.querySelector("[name=not_judged_reason]");
    var box = f.querySelector("[name=flagged]");
    var comment = f.querySelector("[name=comment]");
    outboxAdd({
      url: f.getAttribute("action"),
      assignment: pageAssignment,
      pair_id: f.querySelector("[name=pair_id]").value,
      token: f.querySelector("[name=token]").value,
      label: button.value,
      seconds: (activeMs / 1000).toFixed(2),
      flagged: !!(box && box.checked),
      comment: comment ? comment.value : "",
      not_judged_reason: reason ? reason.value : "",
      at: Date.now(),
    });
    var held = following ? parseCard(following) : null;
    following = null;
    if (held) {
      install(held.el);
    } else {
      // The last pair, or typed faster than the server answers: the next card comes with its answer.
      waiting = true;
      current.setAttribute("data-answered", "");
    }
    pump();
  }

  function choose(key) {
    var f = form();
    if (!f) return;
    var buttons = f.querySelectorAll("button.choice");
    for (var i = 0; i < buttons.length; i++) {
      var keys = (buttons[i].getAttribute("data-keys") || "").split(" ");
      if (keys.indexOf(key) !== -1) { answer(buttons[i]); return; }
    }
  }

  function goBack() {
    var link = document.getElementById("judge-back");
    if (!link) return;
    loading = true;
    settle();
    fetch(link.getAttribute("href"), { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (response) {
        return response.text().then(function (text) { return response.ok ? parseCard(text) : null; });
      })
      .then(function (parsed) {
        loading = false;
        if (parsed) {
          following = parsed.following;
          install(parsed.el);
        } else {
          status("The previous pair could not be loaded (you may be logged out). Press u to try again.", "error");
        }
        actOnQueued();
      }, function () {
        loading = false;
        status("The previous pair could not be loaded: no connection to the server. Press u to try again.", "error");
        actOnQueued();
      });
  }

  // The keys that answer or move. They wait in `queued`, in order, while the next card is not there yet.
  var QUEUED_KEYS = ["1", "2", "3", "f", "p", "n", "0", "s", "Enter", "u", "Backspace", "x"];
  var queued = [];

  function blocked(key) {
    if (waiting || loading) return true;
    // Going back asks the server for the pair judged before: only once it has every answer of this page.
    if (key === "u" || key === "Backspace") return inflight || outbox().length > 0;
    return false;
  }

  function act(key) {
    if (key === "1" || key === "2" || key === "3" || key === "f" || key === "p" || key === "n" || key === "0" || key === "s") {
      choose(key);
    } else if (key === "Enter") {
      var pre = form() && form().querySelector("button.choice.preselected");
      var next = document.getElementById("next-assignment");
      if (pre) answer(pre);
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
    while (queued.length && !blocked(queued[0])) {
      act(queued.shift());
    }
    if (queued.length && waiting) {
      status(queued.length + (queued.length === 1 ? " key" : " keys") + " waiting for the next card…", "");
    } else if (!queued.length && !failures) {
      var el = document.getElementById("judge-status");
      if (el && el.className === "judge-status") status("");
    }
    settle();
  }

  // A click on a choice or on "previous pair" goes through the same queue as its key.
  document.addEventListener("click", function (evt) {
    var t = evt.target;
    var button = t && t.closest ? t.closest("#judge-form button.choice") : null;
    var back = t && t.closest ? t.closest("#judge-back") : null;
    if (!button && !back) return;
    evt.preventDefault();
    queued.push(button ? (button.getAttribute("data-keys") || "").split(" ")[0] : "u");
    actOnQueued();
  });

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
      if (list) { window.location.href = list.href; evt.preventDefault(); }
      return;
    }
    if (QUEUED_KEYS.indexOf(key) === -1) return;
    evt.preventDefault();
    // Every key goes through the queue, so a key typed while earlier ones still wait never jumps ahead of them.
    queued.push(key);
    actOnQueued();
  });

  // --- start ---------------------------------------------------------------------------------------
  takeHeld();
  resetForCard();
  // Answers left from before a reload: if the card on screen is one of them, the next card comes with the
  // server's answer to the last of them.
  var onScreen = tokenOf(card());
  if (onScreen && outbox().some(function (e) { return e.token === onScreen; })) {
    waiting = true;
    following = null;
    card().setAttribute("data-answered", "");
  }
  if (outbox().length) {
    recovering = true;
    status("Sending the answers kept in this browser from before…", "warning");
  }
  showUnsaved();
  settle();
  pump();
})();

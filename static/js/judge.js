// The judging page: keys, active time, the cards held ahead, and sending the outbox (docs/judging.md).
//
// A keystroke puts the judgment in the outbox (judge-outbox.js; localStorage: it survives a reload) and shows
// at once the next of the cards the server sent ahead (`template.following-card` inside the card on screen;
// judge-cards.js). The outbox is sent in order, one request at a time carrying every answer it holds (up to
// SEND_MAX), retried with backoff until the server acknowledges them; every entry carries its card's submission
// token, so a retry stores nothing twice, and an answer the server refuses is named in its reply while the
// others are stored. Each request says how many cards to hold ahead (more when the measured round trip is long)
// and which pairs this page has answered and not sent yet, so the cards that come back are the ones after them. The
// server stays the authority on the queue: a card shown in advance that is no longer in its queue (judged in
// another tab, a changed assignment) is replaced.
(function () {
  "use strict";

  var IDLE_LIMIT_MS = 60 * 1000; // no input for longer than this is idle, and not counted
  var TICK_MS = 250;
  var BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000, 30000];
  var SHOW_UNSAVED_AFTER_MS = 1500; // an entry answered within this is not worth a flicker of "1 unsaved"
  var Cards = window.JudgeCards;

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
  var tokenOf = Cards.tokenOf;

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
    var answerPane = document.getElementById("answer-pane");
    var passage = document.getElementById("passage-pane");
    if (passage) {
      passage.scrollTop = 0;
      var id = passage.getAttribute("data-passage");
      var cue = document.getElementById("same-passage");
      if (cue) cue.hidden = !(lastPassage !== null && id === lastPassage);
      lastPassage = id;
    }
    if (answerPane) {
      var sentence = answerPane.querySelector(".judged-sentence");
      answerPane.scrollTop = 0;
      if (sentence && sentence.offsetTop + sentence.offsetHeight > answerPane.clientHeight) {
        answerPane.scrollTop = Math.max(0, sentence.offsetTop - answerPane.clientHeight / 3);
      }
    }
  }

  // --- cards ---------------------------------------------------------------------------------------
  var held = []; // the HTML of the cards that come after the one on screen, in queue order, as the server sent them
  var waiting = false; // the card on screen is answered; the next one comes with the server's answer
  var loading = false; // a card asked for by `u` (or Esc) is on its way
  var roundTrip = pageRoundTrip(); // the submits' round trip, ms (a moving average): more of it, more cards held ahead
  var reasonChosen = false; // the cannot-judge reason was picked in its list on this card (the mouse)

  // The page's own request, until a submit is measured: from its fetch to its first byte.
  function pageRoundTrip() {
    try {
      var nav = performance.getEntriesByType("navigation")[0];
      return nav && nav.responseStart > nav.fetchStart ? nav.responseStart - nav.fetchStart : 0;
    } catch (e) { return 0; }
  }

  function install(el) {
    var current = card();
    if (current) current.replaceWith(el);
    reasonChosen = false;
    resetForCard();
    settle();
  }

  // The cards this page has held lately, by token: the server sends a card the page said it holds as its token.
  var seen = {};
  var seenOrder = [];
  function remember(html) {
    var token = Cards.tokenOfHtml(html);
    if (!token || seen[token]) return;
    seen[token] = html;
    seenOrder.push(token);
    while (seenOrder.length > 64) delete seen[seenOrder.shift()];
  }
  function lookup(token) { return seen[token] || null; }

  function hold(list) {
    held = list.map(function (x) { return typeof x === "string" ? x : x.outerHTML; });
    held.forEach(remember);
  }

  function takeHeld() {
    var c = card();
    if (!c) return;
    var templates = c.querySelectorAll("template.following-card");
    var list = [];
    Array.prototype.slice.call(templates).forEach(function (t) { list.push(t.innerHTML); t.remove(); });
    hold(list);
  }

  function ahead() { return Cards.ahead(roundTrip); }

  // --- the outbox --------------------------------------------------------------------------------
  var box = window.JudgeOutbox(OUTBOX_PREFIX);
  function outbox() { return box.entries(); }

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

  var SEND_MAX = 50; // answers in one request: the server's SUBMIT_ANSWERS_MAX
  var inflight = false;
  var acknowledged = 0; // requests the server has answered with a card: a card fetched before one is stale
  var recovering = false; // the page said that answers wait: it says when they are all stored
  var warned = false; // "Not saved yet" is on the page: it goes once every answer is stored
  var failures = 0;
  var retryTimer = null;

  // The answers one request carries: the oldest entry and those after it to the same submit URL (one
  // assignment), in the order answered, at most SEND_MAX.
  function batchOf(entries) {
    var batch = [];
    for (var i = 0; i < entries.length && batch.length < SEND_MAX; i++) {
      if (entries[i].url !== entries[0].url) break;
      batch.push(entries[i]);
    }
    return batch;
  }

  function pump() {
    if (inflight || retryTimer) return;
    var entries = outbox();
    if (!entries.length) { showUnsaved(); settle(); return; }
    var batch = batchOf(entries);
    var first = batch[0];
    inflight = true;
    settle();
    // Every answer held and not sent goes in this request: each field once per answer, in the order answered.
    var body = new URLSearchParams();
    batch.forEach(function (entry) {
      ["pair_id", "token", "label", "seconds", "comment", "not_judged_reason"].forEach(function (name) {
        body.append(name, entry[name] == null ? "" : entry[name]);
      });
      body.append("flagged", entry.flagged ? "on" : "");
    });
    // The pairs answered after these, not sent yet: the cards that come back are those after them.
    var later = entries.slice(batch.length).filter(function (e) { return e.assignment === first.assignment && e.pair_id; });
    body.append("skip", later.slice(0, 500).map(function (e) { return e.pair_id; }).join(","));
    body.append("ahead", String(ahead()));
    // The cards it holds: they come back as their tokens only (when these answers are of this page).
    if (first.assignment === pageAssignment) {
      body.append("known", held.slice(0, Cards.MAX_AHEAD).map(Cards.pairOf).filter(Boolean).join(","));
    }
    var sent = Date.now();
    fetch(first.url, {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken(), "HX-Request": "true" },
    }).then(function (response) {
      return response.text().then(function (text) {
        var took = Date.now() - sent;
        roundTrip = roundTrip ? 0.7 * roundTrip + 0.3 * took : took;
        document.body.setAttribute("data-round-trip", String(Math.round(roundTrip)));
        answered(batch, response, text);
      });
    }, function () {
      failed("no connection to the server", false);
    });
  }

  function answered(batch, response, text) {
    inflight = false;
    var parsed = response.ok ? Cards.parse(text, lookup) : null;
    if (parsed) {
      acknowledged += 1;
      batch.forEach(function (entry) { box.remove(entry.key); });
      if ((failures || recovering || warned) && !outbox().length) {
        status("Saved: every answer is stored.", "ok");
        recovering = false;
        warned = false;
      }
      failures = 0;
      if (batch[0].assignment === pageAssignment) reconcile(parsed);
      // Stored but those it names: each refused for good (the pair left the assignment...), never retried.
      if (parsed.refused.length) refusedSay(parsed.refused.map(function (r) { return r.reason; }));
      pump();
    } else if (response.ok || response.status === 401 || response.status === 403) {
      // A login page (the session ended) or a refused CSRF check: kept until the assessor logs in again.
      failed("you seem to be logged out", true);
    } else if (response.status >= 500 || response.status === 408 || response.status === 429) {
      failed("server error " + response.status, false);
    } else {
      // Refused for good (the pair left the assignment, the assignment was removed): never stored, not retried.
      batch.forEach(function (entry) { box.remove(entry.key); });
      var plain = (response.headers.get("Content-Type") || "").indexOf("text/plain") === 0;
      refusedSay([plain ? text.slice(0, 300) : "error " + response.status], batch.length);
      if (!ownEntries().length) resync();
      pump();
    }
  }

  function refusedSay(reasons, count) {
    var n = count || reasons.length;
    status((n === 1 ? "One answer was" : n + " answers were") + " refused by the server and " +
      (n === 1 ? "is" : "are") + " NOT saved: " + reasons.join("; ").slice(0, 300) +
      ". The pair stays in your queue if it is still yours; tell your organizer if this repeats.", "error");
    failures = 0;
    warned = false;
  }

  function failed(reason, loggedOut) {
    inflight = false;
    failures += 1;
    warned = true;
    var delay = BACKOFF_MS[Math.min(failures - 1, BACKOFF_MS.length - 1)];
    var n = outbox().length;
    var kept = n + (n === 1 ? " answer is" : " answers are") + " kept in this browser, not yet saved on the server";
    if (loggedOut) {
      var line = document.createElement("span");
      line.appendChild(document.createTextNode("Not saved: " + reason + ". " + kept + ". "));
      var link = document.createElement("a");
      link.href = "/accounts/login/?next=" + encodeURIComponent(pageUrl);
      link.target = "_blank";
      link.textContent = "Log in again in a new tab";
      line.appendChild(link);
      line.appendChild(document.createTextNode("; they are sent as soon as you are back. Keep this tab open."));
      status(line, "error");
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

  // The server's queue after a stored judgment, against what the page shows. Its cards are the queue's next
  // ones after the acknowledged judgment and the answers this page said it had not sent; the page's answers
  // still in the outbox are left out of them, and what is left is what should be on screen, then held.
  function reconcile(parsed) {
    var answeredTokens = ownEntries().map(function (e) { return e.token; });
    var queue = Cards.unanswered(parsed, answeredTokens);
    if (!queue.length) return; // every card it sent is answered already: the next answer says more
    var target = queue[0];
    var current = card();
    if (waiting) {
      waiting = false;
      hold(queue.slice(1));
      install(target);
      actOnQueued();
      return;
    }
    var kind = current && current.getAttribute("data-kind");
    if (kind === "back" || loading) return; // the assessor chose that card; it is not the queue's
    if (tokenOf(target) === tokenOf(current) && target.getAttribute("data-state") === current.getAttribute("data-state")) {
      // The card on screen was held: the server's copy brings progress and today's figures.
      var fresh = target.querySelector(".judge-progress");
      var shown = current.querySelector(".judge-progress");
      if (fresh && shown) shown.replaceWith(fresh);
      var known = held.map(Cards.tokenOfHtml);
      var sent = queue.slice(1);
      var agrees = sent.every(function (el, i) { return i >= known.length || tokenOf(el) === known[i]; });
      if (!agrees || sent.length > known.length) hold(sent);
      settle();
      return;
    }
    hold(queue.slice(1));
    install(target);
    status("The pair that was on screen had already been judged (in another tab?) or has left your assignment: " +
      "here is your next pair.", "warning");
  }

  function withAhead(url) {
    return url + (url.indexOf("?") === -1 ? "?" : "&") + "ahead=" + ahead();
  }

  // Fewer cards held than the round trip needs (the page came with the server's three, on a slow network): ask
  // for the rest now, before the keys need them. The cards held already come back as their tokens only.
  // Its answer is still the queue unless a submit was acknowledged meanwhile (the answers made since are in the
  // outbox, and reconcile leaves their cards out).
  var toppingUp = false;
  function topUp() {
    if (toppingUp || waiting || loading || inflight || outbox().length) return;
    var c = card();
    if (!c || c.getAttribute("data-kind") !== "next" || held.length >= ahead()) return;
    toppingUp = true;
    var known = held.slice(0, Cards.MAX_AHEAD).map(Cards.pairOf).filter(Boolean).join(",");
    var before = acknowledged;
    fetch(withAhead(pageUrl) + "&known=" + known, { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (response) { return response.text().then(function (text) { return response.ok ? Cards.parse(text, lookup) : null; }); })
      .then(function (parsed) {
        toppingUp = false;
        if (parsed && acknowledged === before && !loading) reconcile(parsed);
      }, function () { toppingUp = false; });
  }

  function resync() {
    fetch(withAhead(pageUrl), { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (response) { return response.text().then(function (text) { return response.ok ? Cards.parse(text, lookup) : null; }); })
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

  // The keys that answer or move. They wait in `queued`, in order, while the next card is not there yet.
  var QUEUED_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "f", "p", "n", "0", "s", "Enter", "u", "Backspace", "x", "Escape"];
  var queued = [];

  // Ready = nothing waits: every answer acknowledged, no key queued, the card on screen unanswered.
  function settle() {
    var idle = !inflight && !waiting && !loading && !queued.length && !outbox().length;
    document.body.setAttribute("data-judge", idle ? "ready" : "busy");
    document.body.setAttribute("data-unsaved", String(outbox().length));
    document.body.setAttribute("data-held", String(held.length));
    document.body.setAttribute("data-ahead", String(ahead()));
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
    closeReasons();
    var reason = f.querySelector("[name=not_judged_reason]");
    var flag = f.querySelector("[name=flagged]");
    var comment = f.querySelector("[name=comment]");
    box.add({
      url: f.getAttribute("action"),
      assignment: pageAssignment,
      pair_id: f.querySelector("[name=pair_id]").value,
      token: f.querySelector("[name=token]").value,
      label: button.value,
      seconds: (activeMs / 1000).toFixed(2),
      flagged: !!(flag && flag.checked),
      comment: comment ? comment.value : "",
      not_judged_reason: button.value === "" && reason ? reason.value : "",
      at: Date.now(),
    });
    var next = null;
    while (held.length && !next) next = Cards.parse(held.shift());
    if (next) {
      install(next.el);
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

  // --- cannot judge: its reasons by keys (a numbered menu after 0 or s) ---------------------------------
  function reasonMenu() { return document.getElementById("reason-menu"); }
  function reasonsOpen() { var m = reasonMenu(); return !!(m && !m.hidden); }
  function closeReasons() { var m = reasonMenu(); if (m) m.hidden = true; }

  function cannotJudge() {
    var menu = reasonMenu();
    var button = form() && form().querySelector("button.choice-NJ");
    if (!button) return;
    if (!menu || reasonChosen) { answer(button); return; } // picked in its list already
    menu.hidden = false;
  }

  // `n` is the reason's number in the menu (1, 2, ...), or 0 for the one selected (the first, or a revisit's).
  function pickReason(n) {
    var select = document.getElementById("cannot-judge-reason");
    var button = form() && form().querySelector("button.choice-NJ");
    if (!select || !button) return;
    if (n > 0) {
      if (n > select.options.length) return; // no such reason: the menu stays open
      select.selectedIndex = n - 1;
    }
    answer(button);
  }

  function load(url, failedText) {
    loading = true;
    settle();
    fetch(withAhead(url), { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (response) {
        return response.text().then(function (text) { return response.ok ? Cards.parse(text, lookup) : null; });
      })
      .then(function (parsed) {
        loading = false;
        if (parsed) {
          hold(parsed.held);
          install(parsed.el);
        } else {
          status(failedText + " (you may be logged out).", "error");
        }
        actOnQueued();
      }, function () {
        loading = false;
        status(failedText + ": no connection to the server.", "error");
        actOnQueued();
      });
  }

  function goBack() {
    var link = document.getElementById("judge-back");
    if (!link) return;
    load(link.getAttribute("href"), "The previous pair could not be loaded. Press u to try again");
  }

  // Esc on a card changing a previous answer: leave that answer as it was, back to the queue's next card (held).
  function leaveChange() {
    var current = card();
    if (!current || current.getAttribute("data-kind") !== "back") return;
    var next = null;
    while (held.length && !next) next = Cards.parse(held.shift());
    if (next) install(next.el);
    else load(pageUrl, "Your next pair could not be loaded. Press Esc to try again");
  }

  function blocked(key) {
    if (waiting || loading) return true;
    // Going back asks the server for the pair judged before: only once it has every answer of this page.
    if (key === "u" || key === "Backspace") return inflight || outbox().length > 0;
    return false;
  }

  function act(key) {
    if (reasonsOpen()) {
      if (/^[1-9]$/.test(key)) pickReason(Number(key));
      else if (key === "Enter" || key === "0" || key === "s") pickReason(0);
      else if (key === "Escape") closeReasons();
      return; // the other keys wait for a reason or Esc
    }
    if (key === "0" || key === "s") {
      cannotJudge();
    } else if (key === "1" || key === "2" || key === "3" || key === "f" || key === "p" || key === "n") {
      choose(key);
    } else if (key === "Enter") {
      var pre = form() && form().querySelector("button.choice.preselected");
      var next = document.getElementById("next-assignment");
      if (pre && pre.classList.contains("choice-NJ")) cannotJudge();
      else if (pre) answer(pre);
      else if (next && !form()) window.location.href = next.href;
    } else if (key === "u" || key === "Backspace") {
      goBack();
    } else if (key === "Escape") {
      leaveChange();
    } else if (key === "x") {
      // x flags the pair and opens the comment; on a flagged pair (a revisit keeps its flag) it unflags.
      var flag = document.getElementById("flag-box");
      var comment = document.getElementById("flag-comment");
      if (flag && comment) {
        flag.checked = !flag.checked;
        if (flag.checked) comment.focus();
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

  // A click on a choice, a reason of the menu or "previous pair" goes through the same queue as its key.
  document.addEventListener("click", function (evt) {
    var t = evt.target;
    if (!t || !t.closest) return;
    var button = t.closest("#judge-form button.choice");
    var back = t.closest("#judge-back");
    var item = t.closest("#reason-menu [data-reason-key]");
    if (!button && !back && !item) return;
    evt.preventDefault();
    if (item) {
      queued.push(item.getAttribute("data-reason-key"));
    } else if (button && button.classList.contains("choice-NJ") && reasonsOpen()) {
      queued.push("0");
    } else {
      queued.push(button ? (button.getAttribute("data-keys") || "").split(" ")[0] : "u");
    }
    actOnQueued();
  });

  // A reason picked in the list (with the mouse) is the one 0 sends: no menu then.
  document.addEventListener("change", function (evt) {
    if (evt.target && evt.target.id === "cannot-judge-reason") reasonChosen = true;
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
    if (key === "l" && !reasonsOpen()) {
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
  // Answers left from before a reload: the cards they answered are left out (the server does not know them
  // yet); if none of the cards sent is left, the next card comes with the server's answer to them.
  var left = ownEntries();
  if (left.length && card() && tokenOf(card())) {
    var rest = Cards.unanswered({ el: card().cloneNode(true), held: held }, left.map(function (e) { return e.token; }));
    if (!rest.length) {
      waiting = true;
      held = [];
      card().setAttribute("data-answered", "");
    } else if (tokenOf(rest[0]) !== tokenOf(card())) {
      hold(rest.slice(1));
      install(rest[0]);
    }
  }
  if (outbox().length) {
    recovering = true;
    status("Sending the answers kept in this browser from before…", "warning");
  }
  showUnsaved();
  settle();
  pump();
  topUp();
})();

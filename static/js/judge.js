// The judging page: its keys (docs/judging.md).
//
// A keystroke puts the judgment in the outbox (judge-outbox.js; localStorage: it survives a reload, and its
// sender sends it) and shows at once the next of the cards the server sent ahead (`template.following-card`
// inside the card on screen; judge-cards.js keeps them as the server's queue says). The page's requests go
// through htmx (judge-request.js); the time spent on a card is judge-time.js's. `page` is what they share: the
// card on screen, the status line, and whether the page waits for a card.
(function () {
  "use strict";

  // The keys that answer or move. They wait in `queued`, in order, while the next card is not there yet.
  var QUEUED_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "f", "p", "n", "0", "s", "Enter", "u", "Backspace", "x", "Escape"];

  var time = window.JudgeTime();
  var cardToken = null;
  var queued = [];
  var reasonChosen = false; // the cannot-judge reason was picked in its list on this card (the mouse)

  var head = document.getElementById("judge-head");
  var page = {
    assignment: head ? head.getAttribute("data-assignment") : "",
    url: head ? head.getAttribute("data-page-url") : "",
    waiting: false, // the card on screen is answered; the next one comes with the server's answer
    loading: false, // a card asked for by `u` (or Esc) is on its way
    card: function () { return document.getElementById("pair-card"); },
    form: function () { return document.getElementById("judge-form"); },
    status: status,
    settle: settle,
    actOnQueued: actOnQueued,
    cardShown: function () { reasonChosen = false; resetForCard(); },
  };
  page.box = window.JudgeOutbox("judge-outbox:" + (head ? head.getAttribute("data-user") : "") + ":");
  page.cards = window.JudgeCards.queue(page);
  page.sender = window.JudgeOutbox.sender(page);
  var cards = page.cards;
  var sender = page.sender;
  var tokenOf = window.JudgeCards.tokenOf;

  function status(text, kind) {
    var el = document.getElementById("judge-status");
    if (!el) return;
    el.textContent = "";
    if (text && typeof text === "object") el.appendChild(text);
    else el.textContent = text || "";
    el.className = "judge-status" + (kind ? " " + kind : "");
    el.hidden = !text;
  }

  // Ready = nothing waits: every answer acknowledged, no key queued, the card on screen unanswered.
  function settle() {
    var unsaved = page.box.entries().length;
    var idle = !sender.inflight() && !page.waiting && !page.loading && !queued.length && !unsaved;
    document.body.setAttribute("data-judge", idle ? "ready" : "busy");
    document.body.setAttribute("data-unsaved", String(unsaved));
    document.body.setAttribute("data-held", String(cards.held().length));
    document.body.setAttribute("data-ahead", String(cards.ahead()));
  }

  function resetForCard() {
    var token = tokenOf(page.card()) || null;
    if (token !== cardToken) {
      cardToken = token;
      time.restart();
      cards.showCard();
    }
  }

  // --- keys --------------------------------------------------------------------------------------
  function answer(button) {
    var f = page.form();
    var current = page.card();
    if (!f || !current) return;
    closeReasons();
    var reason = f.querySelector("[name=not_judged_reason]");
    var flag = f.querySelector("[name=flagged]");
    var comment = f.querySelector("[name=comment]");
    var seconds = f.querySelector("[name=seconds]"); // its data-max: the most the server takes
    page.box.add({
      url: f.getAttribute("action"),
      assignment: page.assignment,
      pair_id: f.querySelector("[name=pair_id]").value,
      token: f.querySelector("[name=token]").value,
      label: button.value,
      seconds: time.seconds(seconds ? Number(seconds.getAttribute("data-max")) : 0),
      flagged: !!(flag && flag.checked),
      comment: comment ? comment.value : "",
      not_judged_reason: button.value === "" && reason ? reason.value : "",
      at: Date.now(),
    });
    var next = cards.next();
    if (next) {
      cards.install(next.el);
    } else {
      // The last pair, or typed faster than the server answers: the next card comes with its answer.
      page.waiting = true;
      current.setAttribute("data-answered", "");
    }
    sender.pump();
  }

  function choose(key) {
    var f = page.form();
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
  function cannotJudgeButton() { return page.form() && page.form().querySelector("button.choice-NJ"); }

  function cannotJudge() {
    var menu = reasonMenu();
    var button = cannotJudgeButton();
    if (!button) return;
    if (!menu || reasonChosen) { answer(button); return; } // picked in its list already
    menu.hidden = false;
  }

  // `n` is the reason's number in the menu (1, 2, ...), or 0 for the one selected (the first, or a revisit's).
  function pickReason(n) {
    var select = document.getElementById("cannot-judge-reason");
    var button = cannotJudgeButton();
    if (!select || !button) return;
    if (n > 0) {
      if (n > select.options.length) return; // no such reason: the menu stays open
      select.selectedIndex = n - 1;
    }
    answer(button);
  }

  function goBack() {
    var link = document.getElementById("judge-back");
    if (!link) return;
    cards.load(link.getAttribute("href"), "The previous pair could not be loaded. Press u to try again");
  }

  // Esc on a card changing a previous answer: leave that answer as it was, back to the queue's next card (held).
  function leaveChange() {
    var current = page.card();
    if (!current || current.getAttribute("data-kind") !== "back") return;
    var next = cards.next();
    if (next) cards.install(next.el);
    else cards.load(page.url, "Your next pair could not be loaded. Press Esc to try again");
  }

  function blocked(key) {
    if (page.waiting || page.loading) return true;
    // Going back asks the server for the pair judged before: only once it has every answer of this page.
    if (key === "u" || key === "Backspace") return sender.inflight() || page.box.entries().length > 0;
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
      var pre = page.form() && page.form().querySelector("button.choice.preselected");
      var next = document.getElementById("next-assignment");
      if (pre && pre.classList.contains("choice-NJ")) cannotJudge();
      else if (pre) answer(pre);
      else if (next && !page.form()) window.location.href = next.href;
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
    if (queued.length && page.waiting) {
      status(queued.length + (queued.length === 1 ? " key" : " keys") + " waiting for the next card…", "");
    } else if (!queued.length && !sender.failures()) {
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
  cards.takeHeld();
  resetForCard();
  cards.resume(sender.ownEntries().map(function (e) { return e.token; }));
  sender.resume();
  sender.showUnsaved();
  settle();
  sender.pump();
  cards.topUp();
})();

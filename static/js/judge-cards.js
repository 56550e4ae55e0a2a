// The judging page's card queue: a card as the server rendered it (with the cards it holds ahead), how many to
// hold ahead for the round trip measured, and (`JudgeCards.queue(page)`) the cards held after the one on screen,
// kept as the server's queue says. The server stays the authority on the queue: a card shown in advance that is
// no longer in its queue (judged in another tab, a changed assignment) is replaced.
(function () {
  "use strict";

  var MIN_AHEAD = 3; // the server's HELD_AHEAD
  var MAX_AHEAD = 16; // the server's HELD_AHEAD_MAX
  var FASTEST_KEY_MS = 150; // the fastest steady typing the page is built for (a key every 150 ms)

  function tokenOf(el) { return (el && el.getAttribute("data-token")) || ""; }

  // A card as the server rendered it, and the HTML of the cards it holds ahead, in order (their templates are
  // taken out of it). A held card the page said it had comes as its token only (`data-known`): `lookup(token)`
  // gives its HTML, and the list stops at one it no longer has. The answers of a submit that the server refused
  // (among several it stored) come as templates too: `refused`, each its token and why. Anything else (a login
  // page, Django's error page with DEBUG on) is not a card: null.
  function parse(html, lookup) {
    var t = document.createElement("template");
    t.innerHTML = html;
    var el = t.content.firstElementChild;
    while (el && el.id !== "pair-card") el = el.nextElementSibling;
    if (!el) return null;
    var held = [];
    var complete = true;
    Array.prototype.slice.call(el.querySelectorAll("template.following-card")).forEach(function (h) {
      var token = h.getAttribute("data-known");
      var text = token ? (lookup && lookup(token)) || null : h.innerHTML;
      if (text === null) complete = false;
      if (complete) held.push(text);
      h.remove();
    });
    var refused = Array.prototype.slice.call(el.querySelectorAll("template.refused-answer")).map(function (r) {
      r.remove();
      return { token: r.getAttribute("data-token") || "", reason: r.content.textContent };
    });
    return { el: el, held: held, refused: refused };
  }

  // The pair id and the token of a card's HTML, read without building it (on every send).
  function pairOf(html) {
    var m = /name="pair_id" value="(\d+)"/.exec(html);
    return m ? m[1] : "";
  }
  function tokenOfHtml(html) {
    var m = /data-token="([^"]+)"/.exec(html);
    return m ? m[1] : "";
  }

  // The queue as the server sees it after an acknowledged answer (its next card, then those it holds ahead),
  // without the cards this page has answered and not yet had acknowledged (`answered`: their tokens): what
  // should be on screen now, then what to hold. Elements, in order; empty when every card it sent is answered.
  function unanswered(parsed, answered) {
    var cards = [parsed.el].concat(parsed.held.map(function (h) {
      var p = parse(h);
      return p && p.el;
    }));
    return cards.filter(function (el) { return el && answered.indexOf(tokenOf(el)) === -1; });
  }

  // Cards to hold ahead: enough to cover three round trips of answers typed at the fastest steady pace (the
  // outbox has one request in flight, so the cards after a key typed just after it left come with the answer
  // to the next one: two round trips; a third, and two cards more, for an answer slower than the average).
  function ahead(roundTripMs) {
    if (!roundTripMs) return MIN_AHEAD;
    var needed = Math.ceil((3 * roundTripMs) / FASTEST_KEY_MS) + 2;
    return Math.max(MIN_AHEAD, Math.min(MAX_AHEAD, needed));
  }

  // The page's queue: `page` is judge.js's (the card on screen, status, settle, and the outbox's sender).
  function queue(page) {
    var held = []; // the HTML of the cards after the one on screen, in queue order, as the server sent them
    var roundTrip = pageRoundTrip(); // the submits' round trip, ms (a moving average): more of it, more cards held
    var lastPassage = null;
    var toppingUp = false;

    // The page's own request, until a submit is measured: from its fetch to its first byte.
    function pageRoundTrip() {
      try {
        var nav = performance.getEntriesByType("navigation")[0];
        return nav && nav.responseStart > nav.fetchStart ? nav.responseStart - nav.fetchStart : 0;
      } catch (e) { return 0; }
    }
    function measured(took) {
      roundTrip = roundTrip ? 0.7 * roundTrip + 0.3 * took : took;
      document.body.setAttribute("data-round-trip", String(Math.round(roundTrip)));
    }
    function aheadNow() { return ahead(roundTrip); }

    // The cards this page has held lately, by token: the server sends a card the page said it holds as its token.
    var seen = {};
    var seenOrder = [];
    function remember(html) {
      var token = tokenOfHtml(html);
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
      var c = page.card();
      if (!c) return;
      var list = [];
      Array.prototype.slice.call(c.querySelectorAll("template.following-card")).forEach(function (t) {
        list.push(t.innerHTML);
        t.remove();
      });
      hold(list);
    }
    // The next held card, built (null when none is left).
    function next() {
      var found = null;
      while (held.length && !found) found = parse(held.shift());
      return found;
    }
    function knownPairs() { return held.slice(0, MAX_AHEAD).map(pairOf).filter(Boolean).join(","); }

    function install(el) {
      var current = page.card();
      if (current) current.replaceWith(el);
      page.cardShown();
      page.settle();
    }

    // A new card starts at its top, with the judged sentence in view inside its answer, and says when it cites
    // the same passage as the previous card (otherwise only the highlighted sentence would seem to move).
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

    // The server's queue after a stored judgment, against what the page shows. Its cards are the queue's next
    // ones after the acknowledged judgment and the answers this page said it had not sent; the page's answers
    // still in the outbox are left out of them, and what is left is what should be on screen, then held.
    function reconcile(parsed) {
      var answeredTokens = page.sender.ownEntries().map(function (e) { return e.token; });
      var cards = unanswered(parsed, answeredTokens);
      if (!cards.length) return; // every card it sent is answered already: the next answer says more
      var target = cards[0];
      var current = page.card();
      if (page.waiting) {
        page.waiting = false;
        hold(cards.slice(1));
        install(target);
        page.actOnQueued();
        return;
      }
      var kind = current && current.getAttribute("data-kind");
      if (kind === "back" || page.loading) return; // the assessor chose that card; it is not the queue's
      if (tokenOf(target) === tokenOf(current) && target.getAttribute("data-state") === current.getAttribute("data-state")) {
        // The card on screen was held: the server's copy brings progress and today's figures.
        var fresh = target.querySelector(".judge-progress");
        var shown = current.querySelector(".judge-progress");
        if (fresh && shown) shown.replaceWith(fresh);
        var known = held.map(tokenOfHtml);
        var sent = cards.slice(1);
        var agrees = sent.every(function (el, i) { return i >= known.length || tokenOf(el) === known[i]; });
        if (!agrees || sent.length > known.length) hold(sent);
        page.settle();
        return;
      }
      hold(cards.slice(1));
      install(target);
      page.status("The pair that was on screen had already been judged (in another tab?) or has left your " +
        "assignment: here is your next pair.", "warning");
    }

    function withAhead(url) {
      return url + (url.indexOf("?") === -1 ? "?" : "&") + "ahead=" + aheadNow();
    }
    // A card page of the server, parsed (null when the reply is not a card: logged out, an error).
    function cardsAt(url) {
      return window.JudgeRequest("GET", url).then(function (reply) { return reply.ok ? parse(reply.text, lookup) : null; });
    }

    // Fewer cards held than the round trip needs (the page came with the server's three, on a slow network): ask
    // for the rest now, before the keys need them. The cards held already come back as their tokens only.
    // Its answer is still the queue unless a submit was acknowledged meanwhile (the answers made since are in the
    // outbox, and reconcile leaves their cards out).
    function topUp() {
      if (toppingUp || page.waiting || page.loading || page.sender.inflight() || page.box.entries().length) return;
      var c = page.card();
      if (!c || c.getAttribute("data-kind") !== "next" || held.length >= aheadNow()) return;
      toppingUp = true;
      var before = page.sender.acknowledged();
      cardsAt(withAhead(page.url) + "&known=" + knownPairs()).then(function (parsed) {
        toppingUp = false;
        if (parsed && page.sender.acknowledged() === before && !page.loading) reconcile(parsed);
      }, function () { toppingUp = false; });
    }

    function resync() {
      cardsAt(withAhead(page.url)).then(function (parsed) {
        if (parsed && !page.sender.ownEntries().length) reconcile(parsed);
      }, function () {});
    }

    // A card the assessor asked for (the previous pair, or back to the queue's next).
    function load(url, failedText) {
      page.loading = true;
      page.settle();
      cardsAt(withAhead(url)).then(function (parsed) {
        page.loading = false;
        if (parsed) {
          hold(parsed.held);
          install(parsed.el);
        } else {
          page.status(failedText + " (you may be logged out).", "error");
        }
        page.actOnQueued();
      }, function () {
        page.loading = false;
        page.status(failedText + ": no connection to the server.", "error");
        page.actOnQueued();
      });
    }

    // Answers left from before a reload (`answered`: their tokens): the cards they answered are left out (the
    // server does not know them yet); if none of the cards sent is left, the next card comes with its answer.
    function resume(answered) {
      var shown = page.card();
      if (!answered.length || !shown || !tokenOf(shown)) return;
      var rest = unanswered({ el: shown.cloneNode(true), held: held }, answered);
      if (!rest.length) {
        page.waiting = true;
        held = [];
        shown.setAttribute("data-answered", "");
      } else if (tokenOf(rest[0]) !== tokenOf(shown)) {
        hold(rest.slice(1));
        install(rest[0]);
      }
    }

    return {
      resume: resume, held: function () { return held; }, hold: hold, takeHeld: takeHeld, next: next, knownPairs: knownPairs,
      install: install, showCard: showCard, reconcile: reconcile, topUp: topUp, resync: resync, load: load,
      lookup: lookup, measured: measured, ahead: aheadNow,
    };
  }

  window.JudgeCards = {
    MAX_AHEAD: MAX_AHEAD, queue: queue, parse: parse, unanswered: unanswered, ahead: ahead, tokenOf: tokenOf, pairOf: pairOf, tokenOfHtml: tokenOfHtml,
  };
})();

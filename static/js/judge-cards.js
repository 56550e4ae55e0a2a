// The judging page's cards: a card as the server rendered it (with the cards it holds ahead), and how many to
// hold ahead for the round trip measured. No state of its own: judge.js keeps the card on screen and the held
// ones, and calls these.
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

  window.JudgeCards = {
    MAX_AHEAD: MAX_AHEAD, parse: parse, unanswered: unanswered, ahead: ahead, tokenOf: tokenOf, pairOf: pairOf, tokenOfHtml: tokenOfHtml,
  };
})();

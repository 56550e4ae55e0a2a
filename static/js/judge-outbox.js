// The judging page's outbox: the answers kept in this browser until the server acknowledges them, and their
// sending (`JudgeOutbox.sender(page)`). One localStorage key per entry (no read-modify-write, so two tabs cannot overwrite each other's
// entries); keys sort in the order answered. In memory when the browser refuses storage (then a reload loses
// them). `window.JudgeOutbox(prefix)` gives the outbox of one user (the prefix names them).
(function () {
  "use strict";

  function JudgeOutbox(prefix) {
    var memory = {};
    var seq = 0;
    var probe = prefix + "probe";
    var store = (function () {
      try {
        window.localStorage.setItem(probe, "1");
        window.localStorage.removeItem(probe);
        return window.localStorage;
      } catch (e) {
        return null;
      }
    })();

    // Every entry, oldest first, each with its storage `key`.
    function entries() {
      var keys = [];
      if (store) {
        for (var i = 0; i < store.length; i++) {
          var name = store.key(i);
          if (name && name.indexOf(prefix) === 0 && name !== probe) keys.push(name);
        }
      }
      keys = keys.concat(Object.keys(memory)); // those the browser had no room for
      keys.sort();
      var out = [];
      keys.forEach(function (k) {
        try {
          var entry = JSON.parse(k in memory ? memory[k] : store.getItem(k));
          if (entry && entry.url && entry.token) { entry.key = k; out.push(entry); }
        } catch (e) { /* not ours or damaged: leave it */ }
      });
      return out;
    }

    function add(entry) {
      var name = prefix + String(Date.now()).padStart(15, "0") + "-" + String(seq++).padStart(6, "0");
      var text = JSON.stringify(entry);
      if (store) {
        try { store.setItem(name, text); return; } catch (e) { /* full: keep it in memory */ }
      }
      memory[name] = text;
    }

    function remove(name) {
      if (store) store.removeItem(name);
      delete memory[name];
    }

    return { entries: entries, add: add, remove: remove };
  }

  var BACKOFF_MS = [500, 1000, 2000, 4000, 8000, 15000, 30000];
  var SHOW_UNSAVED_AFTER_MS = 1500; // an entry answered within this is not worth a flicker of "1 unsaved"
  var SEND_MAX = 50; // answers in one request: the server's SUBMIT_ANSWERS_MAX
  var FIELDS = ["pair_id", "token", "label", "seconds", "comment", "not_judged_reason"];

  // Sending the outbox (`page.box`), in order, one request at a time carrying every answer it holds (up to
  // SEND_MAX), retried with backoff until the server acknowledges them; every entry carries its card's
  // submission token, so a retry stores nothing twice, and an answer the server refuses is named in its reply
  // while the others are stored. Each request says how many cards to hold ahead and which pairs this page has
  // answered and not sent yet, so the cards that come back are the ones after them (judge-cards.js).
  function sender(page) {
    var box = page.box;
    var inflight = false;
    var acknowledged = 0; // requests the server has answered with a card: a card fetched before one is stale
    var recovering = false; // the page said that answers wait: it says when they are all stored
    var warned = false; // "Not saved yet" is on the page: it goes once every answer is stored
    var failures = 0;
    var retryTimer = null;

    function ownEntries() {
      return box.entries().filter(function (e) { return e.assignment === page.assignment; });
    }

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
      var entries = box.entries();
      if (!entries.length) { showUnsaved(); page.settle(); return; }
      var batch = batchOf(entries);
      var first = batch[0];
      inflight = true;
      page.settle();
      // Every answer held and not sent goes in this request: each field once per answer, in the order answered.
      var values = { flagged: [] };
      FIELDS.forEach(function (name) { values[name] = []; });
      batch.forEach(function (entry) {
        FIELDS.forEach(function (name) { values[name].push(entry[name] == null ? "" : entry[name]); });
        values.flagged.push(entry.flagged ? "on" : "");
      });
      // The pairs answered after these, not sent yet: the cards that come back are those after them.
      var later = entries.slice(batch.length).filter(function (e) { return e.assignment === first.assignment && e.pair_id; });
      values.skip = later.slice(0, 500).map(function (e) { return e.pair_id; }).join(",");
      values.ahead = String(page.cards.ahead());
      // The cards it holds: they come back as their tokens only (when these answers are of this page).
      if (first.assignment === page.assignment) values.known = page.cards.knownPairs();
      var sent = Date.now();
      window.JudgeRequest("POST", first.url, values).then(function (reply) {
        page.cards.measured(Date.now() - sent);
        answered(batch, reply);
      }, function () {
        failed("no connection to the server", false);
      });
    }

    function answered(batch, reply) {
      inflight = false;
      var parsed = reply.ok ? window.JudgeCards.parse(reply.text, page.cards.lookup) : null;
      if (parsed) {
        acknowledged += 1;
        batch.forEach(function (entry) { box.remove(entry.key); });
        if ((failures || recovering || warned) && !box.entries().length) {
          page.status("Saved: every answer is stored.", "ok");
          recovering = false;
          warned = false;
        }
        failures = 0;
        if (batch[0].assignment === page.assignment) page.cards.reconcile(parsed);
        // Stored but those it names: each refused for good (the pair left the assignment...), never retried.
        if (parsed.refused.length) refusedSay(parsed.refused.map(function (r) { return r.reason; }));
        pump();
      } else if (reply.ok || reply.status === 401 || reply.status === 403) {
        // A login page (the session ended) or a refused CSRF check: kept until the assessor logs in again.
        failed("you seem to be logged out", true);
      } else if (reply.status >= 500 || reply.status === 408 || reply.status === 429) {
        failed("server error " + reply.status, false);
      } else {
        // Refused for good (the pair left the assignment, the assignment was removed): never stored, not retried.
        batch.forEach(function (entry) { box.remove(entry.key); });
        refusedSay([reply.plain ? reply.text.slice(0, 300) : "error " + reply.status], batch.length);
        if (!ownEntries().length) page.cards.resync();
        pump();
      }
    }

    function refusedSay(reasons, count) {
      var n = count || reasons.length;
      page.status((n === 1 ? "One answer was" : n + " answers were") + " refused by the server and " +
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
      var n = box.entries().length;
      var kept = n + (n === 1 ? " answer is" : " answers are") + " kept in this browser, not yet saved on the server";
      if (loggedOut) {
        var line = document.createElement("span");
        line.appendChild(document.createTextNode("Not saved: " + reason + ". " + kept + ". "));
        var link = document.createElement("a");
        link.href = "/accounts/login/?next=" + encodeURIComponent(page.url);
        link.target = "_blank";
        link.textContent = "Log in again in a new tab";
        line.appendChild(link);
        line.appendChild(document.createTextNode("; they are sent as soon as you are back. Keep this tab open."));
        page.status(line, "error");
      } else {
        page.status("Not saved yet: " + reason + ". " + kept + "; retrying in " + Math.round(delay / 1000 * 10) / 10 +
          " s (try " + failures + "). You can keep this tab open; nothing is lost. If this lasts, tell your organizer.",
          failures >= 3 ? "error" : "warning");
      }
      showUnsaved();
      page.settle();
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

    function showUnsaved() {
      var el = document.getElementById("unsaved");
      if (!el) return;
      var entries = box.entries();
      var old = entries.length && Date.now() - (entries[0].at || 0) > SHOW_UNSAVED_AFTER_MS;
      var show = entries.length && (failures > 0 || old || entries.length > 1);
      el.hidden = !show;
      el.textContent = show ? entries.length + " unsaved" : "";
      el.title = show ? "Answers kept in this browser until the server confirms them" : "";
      document.body.setAttribute("data-unsaved", String(entries.length));
    }
    setInterval(showUnsaved, 500);

    window.addEventListener("beforeunload", function (evt) {
      if (box.entries().length) {
        evt.preventDefault();
        evt.returnValue = "";
      }
    });

    // Answers left from before a reload: the page says they are being sent.
    function resume() {
      if (!box.entries().length) return;
      recovering = true;
      page.status("Sending the answers kept in this browser from before…", "warning");
    }

    return {
      pump: pump, ownEntries: ownEntries, showUnsaved: showUnsaved, resume: resume,
      inflight: function () { return inflight; },
      failures: function () { return failures; },
      acknowledged: function () { return acknowledged; },
    };
  }

  JudgeOutbox.sender = sender;
  window.JudgeOutbox = JudgeOutbox;
})();

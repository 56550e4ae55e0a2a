// The judging page's outbox: the answers kept in this browser until the server acknowledges them (judge.js
// sends them). One localStorage key per entry (no read-modify-write, so two tabs cannot overwrite each other's
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

  window.JudgeOutbox = JudgeOutbox;
})();

// The judging page's active time on the card on screen: counted only while the tab is visible and the assessor
// gave some input within the last minute (docs/judging.md). `window.JudgeTime()`.
(function () {
  "use strict";

  var IDLE_LIMIT_MS = 60 * 1000; // no input for longer than this is idle, and not counted
  var TICK_MS = 250;

  function JudgeTime() {
    var activeMs = 0;
    var lastTick = Date.now();
    var lastInput = Date.now();

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

    return {
      // A new card: its time starts at zero.
      restart: function () { tick(); activeMs = 0; },
      // The seconds counted, as sent: at most `most` (the server refuses more), when given.
      seconds: function (most) { tick(); return Math.min(activeMs / 1000, most || Infinity).toFixed(2); },
    };
  }

  window.JudgeTime = JudgeTime;
})();

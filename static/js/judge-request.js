// The judging page's requests, through htmx's own request API (`htmx.ajax`): htmx sends `HX-Request` and the
// CSRF header of <body>'s hx-headers. Nothing is swapped: the page reads the reply itself (judge-cards.js parses
// a card) and decides what goes on screen. `window.JudgeRequest(verb, url, values)`.
(function () {
  "use strict";

  function csrfToken() {
    // The cookie at send time: a login in another tab rotates it, and an entry made before must still go.
    var m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (m) return decodeURIComponent(m[1]);
    var field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  // `values`: the body's fields, an array for a field repeated. Resolves to the reply ({ok, status, text, plain});
  // rejects when none came (no connection).
  function request(verb, url, values) {
    // A source element of its own: htmx holds back a request whose element has one in flight, and keeps only the
    // last of those; the outbox's submit and the card queue's requests go side by side.
    var source = document.createElement("span");
    source.hidden = true;
    document.body.appendChild(source);
    var xhr = null;
    return window.htmx.ajax(verb, url, {
      source: source,
      target: source,
      swap: "none",
      values: values || {},
      headers: { "X-CSRFToken": csrfToken() },
      handler: function (elt, info) { xhr = info.xhr; },
    }).then(function () {
      source.remove();
      if (!xhr) throw new Error("not sent");
      return {
        ok: xhr.status >= 200 && xhr.status < 300,
        status: xhr.status,
        text: xhr.responseText,
        plain: (xhr.getResponseHeader("Content-Type") || "").indexOf("text/plain") === 0,
      };
    }, function (error) {
      source.remove();
      throw error;
    });
  }

  window.JudgeRequest = request;
})();

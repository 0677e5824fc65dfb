// The table's page: follows the game live (Server-Sent Events), keeps the turn's times
// current, and steps through a replay without reloading. Without this script the page
// still shows the table as it was when loaded, and the replay's links still step.
"use strict";

(function () {
  var lang = document.documentElement.lang || "en";
  var relative = window.Intl && Intl.RelativeTimeFormat
    ? new Intl.RelativeTimeFormat(lang, { numeric: "auto" }) : null;

  function ago(seconds) {
    var units = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
    for (var i = 0; i < units.length; i++) {
      var n = Math.trunc(seconds / units[i][1]);
      if (Math.abs(n) >= 1 || units[i][0] === "second") {
        return relative ? relative.format(n, units[i][0]) : n + " " + units[i][0];
      }
    }
    return "";
  }

  function clock(seconds) {
    seconds = Math.max(0, Math.round(seconds));
    var h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    return (h ? h + ":" + two(m) : m) + ":" + two(s);
  }

  function tick() {
    var now = Date.now();
    document.querySelectorAll("time.ago").forEach(function (el) {
      el.textContent = ago((Date.parse(el.getAttribute("datetime")) - now) / 1000);
    });
    document.querySelectorAll("time.countdown").forEach(function (el) {
      el.textContent = clock((Date.parse(el.getAttribute("datetime")) - now) / 1000);
    });
  }

  function follow(table) {
    var banner = document.getElementById("connection");
    var source = new EventSource(table.getAttribute("data-events"));
    source.addEventListener("table", function (event) {
      var shown = JSON.parse(event.data);
      table.innerHTML = shown.html;
      table.setAttribute("data-shown", event.lastEventId);
      tick();
      if (shown.over) {
        table.setAttribute("data-over", "yes");
        source.close();
      }
    });
    source.addEventListener("gone", function () {
      source.close();
      window.location.reload();
    });
    source.addEventListener("open", function () { banner.hidden = true; });
    source.addEventListener("error", function () {
      banner.hidden = source.readyState === EventSource.CLOSED && table.getAttribute("data-over") === "yes";
    });
  }

  function replay(main) {
    var slider = document.getElementById("slider");
    var shown = document.getElementById("shown");
    var steps = Number(main.getAttribute("data-steps"));
    var step = Number(main.getAttribute("data-step"));
    var wanted = step;
    var busy = false;

    function go(to) {
      wanted = Math.max(0, Math.min(steps, to));
      slider.value = String(wanted);
      if (busy) return;
      busy = true;
      var asked = wanted;
      fetch("replay/" + asked + ".json?lang=" + encodeURIComponent(main.getAttribute("data-lang")))
        .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
        .then(function (data) {
          shown.innerHTML = data.html;
          step = data.step;
          main.setAttribute("data-step", String(step));
          links();
          history.replaceState(null, "", "replay?step=" + step + "&lang=" + main.getAttribute("data-lang"));
        })
        .catch(function () {})
        .then(function () { busy = false; if (wanted !== asked) go(wanted); });
    }

    function links() {
      var targets = { first: 0, back: step - 1, next: step + 1, last: steps };
      main.querySelectorAll("a.step").forEach(function (a) {
        var to = Math.max(0, Math.min(steps, targets[a.getAttribute("data-to")]));
        a.setAttribute("href", "replay?step=" + to + "&lang=" + main.getAttribute("data-lang"));
        a.setAttribute("aria-disabled", String(to === step));
      });
    }

    main.querySelectorAll("a.step").forEach(function (a) {
      a.addEventListener("click", function (event) {
        event.preventDefault();
        var targets = { first: 0, back: wanted - 1, next: wanted + 1, last: steps };
        go(targets[a.getAttribute("data-to")]);
      });
    });
    slider.addEventListener("input", function () { go(Number(slider.value)); });
    document.addEventListener("keydown", function (event) {
      if (event.target === slider) return;  // the slider moves itself
      var keys = { ArrowLeft: wanted - 1, ArrowRight: wanted + 1, Home: 0, End: steps };
      if (event.key in keys && !event.altKey && !event.ctrlKey && !event.metaKey) {
        event.preventDefault();
        go(keys[event.key]);
      }
    });
    links();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var table = document.getElementById("table");
    if (table && table.getAttribute("data-over") !== "yes") follow(table);
    var main = document.getElementById("replay");
    if (main) replay(main);
    tick();
    setInterval(tick, 1000);
  });
})();

// riichi-referee hall: the tiles of /hall/stream, most urgent first (the server's order:
// level, then longest at that level, then name). Durations run on the page's monotonic
// performance.now() from the server's figures; no clock of the phone is read.
"use strict";

(function () {
  const body = document.body;
  const CSRF = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  const $ = (id) => document.getElementById(id);
  const WIND = { E: "East", S: "South", W: "West", N: "North" };
  const tiles = new Map();   // table -> tile (with .at: performance.now() when received)
  let broker = null, brokerAt = 0, round = null;
  // Where a table stands in the round (hall/round_status.py), as a word across the room.
  const ROUND = { playing: "playing", time_up: "TIME UP", signing: "game over: signing",
                  disputed: "waiting for a referee", signed: "result signed" };

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v; else el.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat()) {
      if (c === null || c === undefined || c === false) continue;
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return el;
  }

  const since = (at) => (performance.now() - at) / 1000;
  function dur(s) {
    if (typeof s !== "number") return "";
    s = Math.max(0, Math.floor(s));
    const hh = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    return (hh ? hh + ":" + String(m).padStart(2, "0") : m) + ":" + String(sec).padStart(2, "0");
  }

  // Who plays at the table, seat by seat, each with their score: the head referee walks up
  // to people, not to seat numbers.
  function players(t) {
    if (!t.scores) return null;
    return h("ol", { class: "players", "aria-label": "Players and scores, seat 0 to 3" },
      t.scores.map((score, seat) => {
        const name = (t.names && t.names[seat]) || "Seat " + seat;
        return h("li", { "data-seat": seat },
          h("span", { class: "pname", title: name + " (seat " + seat + ")" }, name),
          h("span", { class: "pscore" },
            typeof score === "number" ? score.toLocaleString("en-US") : String(score)));
      }));
  }

  // The round's time left on the table's own clock, run down at its rate since received.
  function timeLeft(t) {
    const rs = t.round_status || {};
    if (typeof rs.time_left !== "number") return null;
    if (rs.time_up) return 0;
    return Math.max(0, rs.time_left - since(t.at) * (t.rate || 1));
  }

  function roundEl(t) {
    const rs = t.round_status || {};
    if (!rs.status) return null;
    const left = timeLeft(t);
    let sub = ROUND[rs.status] || rs.status;
    if (rs.status === "signing" || rs.status === "disputed") {
      sub += " · " + (rs.signatures || []).length + "/4" + (rs.referee_signed ? " + referee" : "");
    }
    return h("div", { class: "rclock rs-" + rs.status },
      left === null || !(rs.status === "playing" || rs.status === "time_up") ? null :
        h("span", { class: "left", title: "time left in the round (the table's clock)" },
          left > 0 ? dur(left) : "0:00"),
      h("span", { class: "rstate", title: rs.reason || null }, sub));
  }

  function tileEl(t) {
    const rs = (t.round_status || {}).status;
    const el = h("li", { class: "htile lvl-" + t.level + (t.online === false ? " offline" : "") +
                                (rs ? " rs-" + rs : ""),
                         "data-table": t.table, "data-level": t.level });
    const open = t.open || { violations: [], calls: [] };
    const r = t.round;
    const lines = [];
    if (r) lines.push(h("span", {}, (WIND[r.wind] || r.wind) + " " + r.number +
                        (r.honba ? " · " + r.honba + " honba" : "")));
    else lines.push(h("span", {}, t.game_over ? "game over" : "no hand yet"));
    if (typeof t.played === "number") {
      lines.push(h("span", { class: "played", "data-base": t.played, "data-rate": t.rate || 1,
                             title: "time played (game time)" }, dur(t.played + since(t.at) * (t.playing ? t.rate || 1 : 0))));
    }
    const items = [];
    for (const c of open.calls || []) {
      items.push(h("li", { class: "call" }, "Seat " + c.seat + " calls for a referee"));
    }
    for (const v of open.violations || []) {
      items.push(h("li", { class: "violation" + (v.check ? " check" : ""), "data-ruling": v.ruling_id },
        (v.kind || "violation").replace(/_/g, " ") + " · seat " + v.seat + " · " +
        (v.check ? "camera reading to confirm" : (v.penalty || "none").replace(/_/g, " "))));
    }
    const chips = [];
    if (t.online === false) chips.push(h("span", { class: "chip bad offline-for", "data-base": t.offline_for },
                                          "offline " + dur(t.offline_for + since(t.at))));
    for (const x of t.health || []) {
      if (!x.ok) chips.push(h("span", { class: "chip bad", title: x.text || "" }, x.component + " ✗"));
    }
    if (t.backlog) chips.push(h("span", { class: "chip" }, "catching up: " + t.backlog));
    if (t.behind) chips.push(h("span", { class: "chip" }, "behind schedule"));
    if (t.gaps) chips.push(h("span", { class: "chip bad", title: "events the broker lost: the table's journal has them" }, "gaps: " + t.gaps));
    el.append(h("a", { href: "/t/" + encodeURIComponent(t.table) + "/" },
      h("div", { class: "thead" }, h("span", { class: "tname" }, t.table), h("span", { class: "why" }, t.why)),
      roundEl(t),
      h("div", { class: "line" }, lines),
      players(t),
      items.length ? h("ul", {}, items) : null,
      chips.length ? h("div", { class: "chips" }, chips) : null));
    if (t.level <= 2) {
      const b = h("button", { type: "button", class: "seen" }, "Seen: someone is going");
      b.addEventListener("click", () => markSeen(t.table));
      el.append(h("div", { class: "actions" }, b));
    }
    return el;
  }

  // Only the tiles that changed are drawn again; the rest keep their elements (a hall of 200
  // tables sends a few changed tiles ten times a second).
  const els = new Map();     // table -> element
  let order = "";
  function render(changed) {
    const list = [...tiles.values()].sort((a, b) =>
      (a.level - b.level) || ((b.level_for + since(b.at)) - (a.level_for + since(a.at))) ||
      (a.table < b.table ? -1 : a.table > b.table ? 1 : 0));
    for (const t of list) {
      if (!els.has(t.table) || changed === null || changed.has(t.table)) {
        const fresh = tileEl(t), old = els.get(t.table);
        if (old && old.parentNode) old.replaceWith(fresh);
        els.set(t.table, fresh);
      }
    }
    for (const name of [...els.keys()]) if (!tiles.has(name)) { els.get(name).remove(); els.delete(name); }
    const now = list.map((t) => t.table).join("\n");
    if (now !== order) {
      $("tiles").replaceChildren(...list.map((t) => els.get(t.table)));
      order = now;
    }
    $("empty").hidden = list.length > 0;
    const urgent = list.filter((t) => t.level <= 3).length;
    $("counts").textContent = list.length + (list.length === 1 ? " table" : " tables") +
      (urgent ? " · " + urgent + (urgent === 1 ? " needs" : " need") + " a referee" : "");
    renderRound(list);
  }

  function renderRound(list) {
    $("round-name").textContent = round ? "Round " + round.round + " · " +
      Math.round(round.seconds / 6) / 10 + " min" : "No round started";
    const n = {};
    for (const t of list) { const s = (t.round_status || {}).status; if (s) n[s] = (n[s] || 0) + 1; }
    const parts = [];
    for (const k of ["time_up", "signing", "disputed", "signed"]) {
      if (n[k]) parts.push(n[k] + " " + (k === "time_up" ? "time up" : ROUND[k]));
    }
    $("round-counts").textContent = parts.join(" · ");
  }

  function renderBroker() {
    const el = $("broker"), banner = $("broker-banner");
    const ok = broker && broker.online;
    el.className = "hb " + (ok ? "ok" : "bad");
    el.textContent = "Broker " + (ok ? "✓" : "✗");
    banner.hidden = !!ok;
    banner.textContent = ok ? "" : (broker && broker.text ? broker.text : "no broker yet") +
      (broker && broker.online === false ? " (" + dur(broker.for + since(brokerAt)) + ")" : "");
  }

  function tick() {
    for (const el of document.querySelectorAll(".htile")) {
      const t = tiles.get(el.dataset.table);
      if (!t) continue;
      const p = el.querySelector(".played");
      if (p && typeof t.played === "number") p.textContent = dur(t.played + since(t.at) * (t.playing ? t.rate || 1 : 0));
      const l = el.querySelector(".rclock .left");
      if (l) { const left = timeLeft(t); l.textContent = left > 0 ? dur(left) : "0:00"; }
      const o = el.querySelector(".offline-for");
      if (o) o.textContent = "offline " + dur(t.offline_for + since(t.at));
    }
    if (broker && !broker.online) renderBroker();
  }
  setInterval(tick, 1000);

  function markSeen(name) {
    fetch(body.dataset.seen.replace("TABLE", encodeURIComponent(name)), {
      method: "POST", credentials: "same-origin",
      headers: { "X-CSRF-Token": CSRF, Accept: "application/json" },
    }).catch(() => {});
  }

  const form = $("round-form");
  if (form) {
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const n = form.elements.round.value, m = form.elements.minutes.value;
      if (!window.confirm("Start round " + n + " (" + m + " minutes) at every table now?")) return;
      const said = $("round-said");
      said.textContent = "Starting…";
      fetch(body.dataset.round, {
        method: "POST", credentials: "same-origin",
        headers: { "X-CSRF-Token": CSRF, Accept: "application/json", "Content-Type": "application/json" },
        body: JSON.stringify({ round: n, minutes: m }),
      }).then((r) => r.json().then((j) => {
        said.textContent = r.ok ? "Round " + j.round + " started at every table." : (j.error || "Not started.");
        if (r.ok) $("round-start").open = false;
      })).catch(() => { said.textContent = "No answer from the hall: look at the tables' clocks before trying again."; });
    });
  }

  function onTiles(msg) {
    const at = performance.now();
    if ("round" in msg) round = msg.round;
    if (msg.full) tiles.clear();
    for (const t of msg.tiles || []) { t.at = at; tiles.set(t.table, t); }
    broker = msg.broker; brokerAt = at;
    renderBroker();
    render(msg.full ? null : new Set((msg.tiles || []).map((t) => t.table)));
  }

  function setLive(on) {
    const el = $("live");
    el.textContent = on ? "Live" : "Reconnecting…";
    el.classList.toggle("off", !on);
  }

  const es = new EventSource(body.dataset.stream);
  es.onopen = () => setLive(true);
  es.onerror = () => setLive(false);
  es.addEventListener("tiles", (ev) => {
    let msg;
    try { msg = JSON.parse(ev.data); } catch (e) { return; }
    setLive(true);
    onTiles(msg);
    window.riichiHall.last = msg;
  });
  window.riichiHall = { tiles: tiles, source: es, last: null };
})();

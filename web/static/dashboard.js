// riichi-referee dashboard: draws the table from the server-sent events of /stream.
// The claim countdown runs on the table clock the server sends with every message
// (`now`), advanced by the page's monotonic performance.now(): the phone's own clock
// never judges anything.
"use strict";

(function () {
  const body = document.body;
  const REFEREE = body.dataset.referee === "1";
  const CSRF = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  const $ = (id) => document.getElementById(id);

  // -- small DOM helper: h("span", {class: "x"}, "text", child) -------------------------
  const { h } = window.riichiDom;   // dom.js, loaded first

  // -- tiles --------------------------------------------------------------------------
  // Kanji where the phone has a CJK font, Latin letters where it has none (no tofu boxes).
  const CJK = (function () {
    try {
      const ctx = document.createElement("canvas").getContext("2d");
      ctx.font = "16px sans-serif";
      const cjk = ctx.measureText("東南西北萬發中").width;
      const missing = ctx.measureText("\uE000\uE001\uE002\uE003\uE004\uE005\uE006").width;
      return Math.abs(cjk - missing) > 0.5;
    } catch (e) { return false; }
  })();
  const HONOR = {
    1: ["東", "E", "East"], 2: ["南", "S", "South"], 3: ["西", "W", "West"],
    4: ["北", "N", "North"], 5: ["白", "", "White dragon"], 6: ["發", "F", "Green dragon"],
    7: ["中", "C", "Red dragon"],
  };
  const WIND = { E: "East", S: "South", W: "West", N: "North" };
  const WINDS = ["E", "S", "W", "N"];

  function tileLabel(code) {
    const n = code[0], s = code[1];
    if (s === "z") return code + " " + HONOR[n][2];
    return n === "0" ? "5" + s + " red" : code;
  }

  // opts: side (riichi / called, drawn sideways), gone (claimed by another seat),
  // last (the latest discard), back (face down).
  function tile(code, opts) {
    opts = opts || {};
    let el;
    if (opts.back) {
      el = h("span", { class: "tile back", role: "img", "aria-label": "face-down tile",
                       title: "face-down tile" });
    } else {
      const n = code[0], s = code[1];
      let cls = "tile " + s + (s === "z" ? " z" + n : "") + (n === "0" ? " red" : "");
      if (opts.gone) cls += " gone";
      if (opts.last) cls += " last";
      let label = tileLabel(code);
      if (opts.side) label += ", sideways";
      if (opts.gone) label += ", called";
      el = h("span", { class: cls, role: "img", "aria-label": label, title: label,
                       "data-tile": code });
      if (s === "z") {
        el.append(h("span", { class: "n", "aria-hidden": "true" }, CJK ? HONOR[n][0] : HONOR[n][1]),
                  h("span", { class: "k", "aria-hidden": "true" }));
      } else {
        el.append(h("span", { class: "n", "aria-hidden": "true" }, n === "0" ? "5" : n),
                  h("span", { class: "k", "aria-hidden": "true" }, s === "m" ? (CJK ? "萬" : "m") : ""));
      }
    }
    return opts.side ? h("span", { class: "side" }, el) : el;
  }

  // -- table clock --------------------------------------------------------------------
  let now0 = null, recv0 = 0, rate = 1;
  function sync(msg) {
    if (typeof msg.now === "number") { now0 = msg.now; recv0 = performance.now(); }
    if (typeof msg.rate === "number") rate = msg.rate;
  }
  function tableNow() {
    return now0 === null ? 0 : now0 + rate * (performance.now() - recv0) / 1000;
  }

  // -- state --------------------------------------------------------------------------
  const st = {
    snap: null,
    rulings: [],            // {seq, r}
    rulingIds: new Set(),
    referee: [],            // referee events
    events: [],             // recent table events
    evidence: [],           // every discard and press the page knows of: what claims rest on
    health: {},
    lastWindow: null,       // {w, closed, extra: [], result}
    seq: 0,
    t0: null,               // table-clock time of the game's start
  };

  function who(seat) {
    if (seat === null || seat === undefined) return "—";
    const names = st.snap && st.snap.names;
    return names && names[seat] ? names[seat] + " (seat " + seat + ")" : "Seat " + seat;
  }
  const fmt = (x, d) => (typeof x === "number" ? x.toFixed(d === undefined ? 2 : d) : "?");
  // A table-clock time as minutes:seconds since the game started.
  function clockText(t, decimals) {
    if (typeof t !== "number") return "?";
    if (typeof st.t0 !== "number") return fmt(t, 1);
    const d = decimals || 0, k = Math.pow(10, d);
    const total = Math.floor(Math.max(0, t - st.t0) * k + 1e-6) / k;
    const m = Math.floor(total / 60);
    const sec = total - 60 * m;
    return m + ":" + (sec < 10 ? "0" : "") + sec.toFixed(d);
  }
  const plural = (n, one, many) => n + " " + (n === 1 ? one : many);

  // -- top: round, dora, health ---------------------------------------------------------
  function renderCentre() {
    const s = st.snap;
    const r = s.round;
    $("round").textContent = r ? (WIND[r.wind] || r.wind) + " " + r.number
      : (s.game_over ? "Game over" : "Waiting for a hand");
    $("honba").textContent = r ? plural(r.honba, "honba", "honba") : "";
    $("sticks").textContent = r ? plural(r.riichi_sticks, "riichi stick", "riichi sticks") : "";
    $("wall").textContent = r && typeof s.wall === "number" ? "Wall " + s.wall : "";
    $("ruleset").textContent = s.ruleset || "—";
    const dora = $("dora");
    dora.replaceChildren(...(s.dora_indicators || []).map((c) => tile(c)));
    // What the table is waiting for (keys the rules core adds beyond the documented shape).
    const notes = [];
    if (s.game_over) notes.push("Game over");
    else if (s.hand_over) notes.push("Hand over");
    for (const w of s.declared_wins || []) {
      notes.push(who(w.seat) + (w.from === null || w.from === undefined ? " declared tsumo"
        : " declared ron") + ": waiting for the hand to be shown");
    }
    if (s.game_over && s.result_given) notes.push("Result signed");
    else if (s.sheet) notes.push(s.sheet.status === "waiting_for_referee" ? "Waiting for a referee"
      : "Result to sign: " + s.sheet.signatures.length + " of 4 players");
    else if (s.game_over && Array.isArray(s.signatures)) {
      notes.push("Result to sign: " + s.signatures.length + " of 4 players" +
        (s.referee_signed ? ", the referee has signed" : ", then the referee"));
    }
    const pc = s.pending_claim;
    if (pc) notes.push(who(pc.seat) + " called " + pc.call + " on " + pc.tile + ": waiting for the meld");
    const banner = $("banner");
    banner.textContent = notes.join(" · ");
    banner.hidden = !notes.length;
  }

  // -- the round: its clock and the penalty ledger (referee.round) ------------------------
  // The clock counts down on the table clock (tableNow), as the claim window does; the
  // page only draws it between updates: the time-up itself is the table's ruling.
  const ENDS = {
    now: "the game ends now", after_this_hand: "this hand is the last",
    after_next_hand: "one more hand after this one",
  };
  // Where a deduction comes off (referee.rulesets.PENALTY_APPLIES).
  const APPLIES = { after_uma: "after uma", before_uma: "before uma" };
  const APPLIES_TITLE = {
    after_uma: "Comes off the match points after uma and oka: the ranking stands as played",
    before_uma: "Comes off the table score before uma and oka: it can change the ranking",
  };
  const GAME_END = {
    time: "the round's time is up", last_hand: "the last hand was played",
    bust: "a score went below zero", referee: "ended by the referee",
  };
  let clockTimer = null;

  // Seconds as a wall clock reads them (1:05:09, 45:00), rounded up: it says 0:00 only
  // when the time is up.
  function hms(seconds) {
    const total = Math.max(0, Math.ceil(seconds - 1e-6));
    const hr = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, sec = total % 60;
    const two = (n) => (n < 10 ? "0" : "") + n;
    return (hr ? hr + ":" + two(m) : String(m)) + ":" + two(sec);
  }

  // When the game ends now that time is up: from the table's count of hands still to end.
  function timeUpNote(s) {
    if (s.game_over) return "Time up: the game is over";
    const inPlay = !!s.round && !s.hand_over;
    const left = s.hands_left;
    if (left === 1) return inPlay ? "Time up: this hand is the last" : "Time up: the next hand is the last";
    if (left === 2) return inPlay ? "Time up: one more hand after this one" : "Time up: two more hands";
    return "Time up";
  }

  function renderClock() {
    const c = st.snap.clock;
    const box = $("round-clock");
    const shown = !!c && typeof c.time_up_at === "number";
    box.hidden = !shown;
    const runs = shown && !c.stopped && !c.time_up;
    if (runs && clockTimer === null) clockTimer = setInterval(updateClock, 250);
    if (!runs && clockTimer !== null) { clearInterval(clockTimer); clockTimer = null; }
    if (shown) updateClock();
  }

  function updateClock() {
    const s = st.snap, c = s && s.clock;
    if (!c || typeof c.time_up_at !== "number") return;
    const left = c.time_up ? 0 : Math.max(0, c.time_up_at - tableNow());
    const up = c.time_up || s.hands_left !== null && s.hands_left !== undefined;
    const el = $("clock-left");
    el.textContent = up ? "Time up" : c.stopped ? "Stopped" : hms(left);
    el.dataset.left = left.toFixed(1);
    $("clock-label").textContent = up || c.stopped ? "Round clock" : "Round time left";
    $("clock-note").textContent = up ? timeUpNote(s).replace(/^Time up: /, "")
      : c.stopped ? "the round's clock was stopped"
      : left <= 0 ? "time is up: the table rules when the game ends" : "";
    const box = $("round-clock");
    box.classList.toggle("up", !!up);
    box.classList.toggle("low", !up && !c.stopped && left < 300);
  }

  function penaltyName(p) {
    const found = st.rulings.find(({ r }) => String(r.ruling_id) === String(p.ruling_id));
    const r = found && found.r;
    return r && PENALTY[r.penalty] ? PENALTY[r.penalty] : (KINDS[p.kind] || p.kind);
  }

  const minus = (n) => "\u2212" + Number(n).toLocaleString("en-US");

  // Every deduction standing on the game's ledger, where it comes off, and why; a
  // cancelled one has left the ledger and so leaves the page.
  function renderLedger() {
    const ledger = st.snap.penalties || [];
    $("ledger").hidden = !ledger.length;
    $("ledger-list").replaceChildren(...ledger.map((p) =>
      h("li", { class: "penalty", "data-ruling": p.ruling_id, "data-seat": p.seat },
        h("span", { class: "pts" }, minus(p.points)),
        h("span", { class: "whom" }, who(p.seat)),
        h("span", { class: "pname" }, penaltyName(p)),
        h("span", { class: "applies", title: APPLIES_TITLE[p.applies] || "" },
          APPLIES[p.applies] || p.applies),
        p.reason ? h("span", { class: "why" }, p.reason) : null)));
  }

  // -- the score sheet at the game's end (table.score_sheet) -------------------------------
  // What each seat scored, what uma and oka and the ledger make of it, and who has signed:
  // each player holds their ron button for two seconds, then the referee countersigns.
  const points = (n) => (n > 0 ? "+" : n < 0 ? "\u2212" : "") + Math.abs(n).toFixed(1);
  function renderSheet() {
    const s = st.snap, sheet = s.sheet;
    const note = $("sign-note");
    note.textContent = s.sign_note || "";
    note.hidden = !s.sign_note;
    const box = $("sheet");
    box.hidden = !sheet;
    if (!sheet) return;
    box.dataset.status = sheet.status;
    $("sheet-why").textContent = sheet.reason ? "game ended: " + (GAME_END[sheet.reason] || sheet.reason) : "";
    $("sheet-line").textContent = sheet.line;
    $("sheet-rows").replaceChildren(...sheet.rows.map((r) => {
      const off = [];
      for (const [n, where] of [[r.before_uma, "before uma"], [r.after_uma, "after uma"]]) {
        if (n) off.push(h("span", { class: "n" }, minus(n)), " ", h("span", { class: "w" }, where));
      }
      return h("tr", { "data-seat": r.seat, class: r.signed ? "signed" : "" },
        h("th", { scope: "row", class: "player", title: who(r.seat) },
          r.name || "Seat " + r.seat, r.name ? h("span", { class: "seatno" }, " seat " + r.seat) : null),
        h("td", { class: "score" }, r.score.toLocaleString("en-US")),
        h("td", { class: "uma" }, points(r.uma_oka)),
        h("td", { class: "ded" }, off),
        h("td", { class: "final" }, points(r.final)),
        h("td", { class: "sig" }, r.signed ? "Signed" : "\u2014"));
    }));
    $("sheet-referee").textContent = sheet.status === "final" ? "Result final." :
      sheet.referee_signed ? "The referee has countersigned." : "The referee countersigns last.";
    const form = $("countersign");
    if (form) form.hidden = sheet.status === "final" || sheet.referee_signed;
  }

  // The referee's list of penalties that can be cancelled: those standing on the ledger.
  function renderCancel() {
    const select = $("cancel-which");
    if (!select) return;
    const ledger = st.snap.penalties || [];
    const chosen = select.value;
    select.replaceChildren(...(ledger.length ? ledger.map((p) =>
      h("option", Object.assign({ value: p.ruling_id }, p.ruling_id === chosen ? { selected: true } : {}),
        p.ruling_id + ": " + minus(p.points) + " " + who(p.seat) + " (" + penaltyName(p) + ")"))
      : [h("option", { value: "" }, "(none on the ledger)")]));
  }

  function renderHealth() {
    const box = $("health");
    const names = ["camera", "buttons"];
    for (const k of Object.keys(st.health)) if (!names.includes(k)) names.push(k);
    box.replaceChildren(...names.map((name) => {
      const e = st.health[name];
      if (name === "tileset" && e) {
        // which tile set the camera reads with, and when it was enrolled (vision.tileset)
        return h("span", { class: "hb tileset " + (e.ok ? "ok" : "bad"), "data-component": name,
                           title: "The tile set the camera reads with" }, "Tiles: " + e.text);
      }
      const title = name[0].toUpperCase() + name.slice(1);
      if (!e) return h("span", { class: "hb", "data-component": name, title: "no report yet" },
                       title + " ?");
      return h("span", { class: "hb " + (e.ok ? "ok" : "bad"), "data-component": name,
                         title: e.text || (e.ok ? "working" : "fault") },
               title + (e.ok ? " ✓" : " ✗"),
               !e.ok && e.text ? h("span", { class: "htext" }, ": " + e.text) : null);
    }));
  }

  // -- seats ----------------------------------------------------------------------------
  function renderSeats() {
    const s = st.snap;
    const dealer = s.round ? s.round.dealer : null;
    let lastT = -Infinity, lastSeat = null;
    for (const seat of s.seats) {
      const p = seat.pond[seat.pond.length - 1];
      if (p && p.t >= lastT) { lastT = p.t; lastSeat = seat.seat; }
    }
    const against = {};
    for (const { r } of st.rulings) {
      if (r.type === "violation") against[r.seat] = (against[r.seat] || 0) + 1;
    }
    for (const seat of s.seats) {
      const box = $("seat-" + seat.seat);
      if (!box) continue;
      box.classList.toggle("turn", s.turn === seat.seat);
      box.classList.toggle("dead", !!seat.dead_hand);
      const wind = box.querySelector(".wind");
      if (dealer === null || dealer === undefined) {
        wind.textContent = "";
        wind.title = "";
      } else {
        const w = WINDS[(seat.seat - dealer + 4) % 4];
        wind.textContent = w;
        wind.title = WIND[w] + (w === "E" ? " (dealer)" : "");
      }
      wind.classList.toggle("dealer", dealer === seat.seat);
      box.querySelector(".name").textContent = who(seat.seat);
      const score = s.scores ? s.scores[seat.seat] : null;
      box.querySelector(".score").textContent = typeof score === "number" ? score.toLocaleString("en-US") : "";
      const badges = [];
      if (s.turn === seat.seat) badges.push(h("span", { class: "badge b-turn" }, "To play"));
      if (seat.riichi) badges.push(h("span", { class: "badge b-riichi" }, "Riichi"));
      if (seat.dead_hand) badges.push(h("span", { class: "badge b-dead" }, "Dead hand"));
      if (against[seat.seat]) badges.push(h("span", { class: "badge b-viol" },
        plural(against[seat.seat], "violation", "violations")));
      for (const p of (s.penalties || []).filter((p) => p.seat === seat.seat)) {
        badges.push(h("span", { class: "badge b-deduct", "data-ruling": p.ruling_id,
                                title: APPLIES_TITLE[p.applies] || "" },
          "Penalty " + minus(p.points) + " " + (APPLIES[p.applies] || p.applies)));
      }
      box.querySelector(".badges").replaceChildren(...badges);

      const rows = [];
      for (let i = 0; i < seat.pond.length; i += 6) {
        rows.push(h("div", { class: "row" }, seat.pond.slice(i, i + 6).map((p, j) =>
          tile(p.tile, { side: p.riichi, gone: p.called,
                         last: seat.seat === lastSeat && i + j === seat.pond.length - 1 }))));
      }
      if (!rows.length) rows.push(h("span", { class: "empty" }, "No discard yet"));
      box.querySelector(".pond").replaceChildren(...rows);
      box.querySelector(".melds").replaceChildren(...seat.melds.map((m) => renderMeld(m, seat.seat)));
    }
  }

  // As on the table: the called tile lies sideways on the side of the seat it came from
  // (first from the left, in the middle from across, last from the right).
  function renderMeld(m, owner) {
    const tiles = (m.tiles || []).slice();
    const from = m.from !== undefined && m.from !== null ? m.from : null;
    let parts;
    if (m.kind === "ankan") {
      parts = tiles.map((c, i) => tile(c, { back: i === 0 || i === tiles.length - 1 }));
    } else {
      const at = m.called ? tiles.indexOf(m.called) : -1;
      if (at >= 0) tiles.splice(at, 1);
      parts = tiles.map((c) => tile(c));
      if (at >= 0) {
        const rel = from === null ? 3 : (from - owner + 4) % 4;
        const pos = rel === 3 ? 0 : rel === 2 ? 1 : parts.length;
        parts.splice(pos, 0, tile(m.called, { side: true }));
      }
    }
    const label = m.kind + " " + (m.tiles || []).join(" ") + (from !== null ? " from seat " + from : "");
    return h("span", { class: "meld", title: label, "aria-label": label, "data-kind": m.kind },
      parts, from !== null ? h("span", { class: "from" }, "from S" + from) : null);
  }


  // -- claim window: countdown and press timeline ----------------------------------------
  let ticking = false;

  function noteWindow() {
    const w = st.snap && st.snap.window;
    if (w) {
      const same = st.lastWindow && !st.lastWindow.closed && st.lastWindow.w.opened === w.opened &&
        st.lastWindow.w.discard_seat === w.discard_seat;
      st.lastWindow = { w: w, closed: false, extra: [],
                        result: same ? st.lastWindow.result : null };
    } else if (st.lastWindow && !st.lastWindow.closed) {
      st.lastWindow.closed = true;
    }
  }

  function renderWindow() {
    const box = $("window");
    const lw = st.lastWindow;
    if (!lw) {
      box.className = "window idle";
      $("w-what").textContent = "No discard open to claims";
      $("w-tile").replaceChildren();
      $("w-count").textContent = "";
      $("w-presses").replaceChildren();
      $("w-result").textContent = "";
      return;
    }
    const w = lw.w;
    const span = w.deadline - w.opened;
    box.className = "window " + (lw.closed ? "closed" : "open");
    let what = who(w.discard_seat) + (w.chankan ? " added a kan (chankan: ron only)"
      : w.last_discard ? " discarded the last tile (ron only)" : " discarded");
    $("w-what").textContent = what;
    $("w-tile").replaceChildren(tile(w.tile));
    const presses = (w.presses || []).map((p) => Object.assign({}, p)).concat(lw.extra);
    let scale = span * 1.25;
    for (const p of presses) scale = Math.max(scale, p.t - w.opened + 0.25);
    const winners = lw.result ? lw.result.winners || [] : [];
    $("w-presses").replaceChildren(...presses.map((p) => {
      const off = p.t - w.opened;
      const late = p.t > w.deadline;
      const won = winners.some((x) => x.seat === p.seat && x.call === p.call);
      const mark = h("span", { class: "mark" });
      mark.style.left = (100 * Math.max(0, off) / scale) + "%";
      const line = h("span", { class: "deadline" });
      line.style.left = (100 * span / scale) + "%";
      return h("li", { class: "press" + (late ? " late" : "") + (won ? " won" : ""),
                       "data-seat": p.seat, "data-call": p.call,
                       "aria-label": who(p.seat) + " " + p.call + " at +" + fmt(off) + " s" + (late ? ", late" : "") },
        h("span", { class: "who" }, "S" + p.seat + " " + p.call),
        h("span", { class: "track" }, line, mark),
        h("span", { class: "at" }, "+" + fmt(off) + " s"));
    }));
    $("w-result").textContent = lw.closed ? resultText(lw) : "";
    updateCountdown();
    if (!lw.closed && !ticking) {
      ticking = true;
      requestAnimationFrame(frame);
    }
  }

  function resultText(lw) {
    const r = lw.result;
    if (!r) return lw.w.presses && lw.w.presses.length ? "Window closed." :
      "Window closed: no claim.";
    const won = (r.winners || []).map((x) => who(x.seat) + " " + x.call).join(" and ");
    return "Decided after " + fmt(r.window) + " s: " + (won ? won + " awarded." : "no claim stands.");
  }

  function updateCountdown() {
    const lw = st.lastWindow;
    if (!lw) return;
    const w = lw.w;
    const span = Math.max(w.deadline - w.opened, 0.001);
    if (lw.closed) {
      $("w-count").textContent = "closed";
      $("w-fill").style.transform = "scaleX(0)";
      return;
    }
    const left = Math.max(0, w.deadline - tableNow());
    $("w-count").textContent = left > 0 ? fmt(left, 1) + " s" : "deciding…";
    $("w-count").dataset.left = left.toFixed(3);
    $("w-fill").style.transform = "scaleX(" + (left / span).toFixed(4) + ")";
  }

  function frame() {
    if (!st.lastWindow || st.lastWindow.closed) { ticking = false; updateCountdown(); return; }
    updateCountdown();
    requestAnimationFrame(frame);
  }

  // -- rulings ----------------------------------------------------------------------------
  const REASONS = {
    precedence: "a higher claim won", head_bump: "a nearer ron won",
    late: "outside the claim window", wrong_seat: "chii only from the player on the left",
    last_discard: "only ron may claim the last discard", no_wall: "no replacement tile for a kan",
    kan_limit: "no more kans allowed",
    // not in the spec's list; the rules core adds them (referee/claims.py)
    own_pon: "no kan on a discarded fourth tile to one's own pon",
    riichi: "a player in riichi may only call ron",
    triple_ron: "three rons abort the hand",
  };
  const KINDS = {
    kuikae: "Kuikae (swap call)", false_group: "False group", late_call: "Late call",
    wrong_seat_call: "Call from the wrong seat", last_discard_call: "Call on the last discard",
    illegal_kan: "Illegal kan", fifth_kan: "Fifth kan", furiten_ron: "Furiten ron",
    no_yaku: "No yaku", false_win: "False win", riichi_open_hand: "Riichi with an open hand",
    procedure: "Procedure",
  };
  const PENALTY = { none: "No penalty", warning: "Warning", dead_hand: "Dead hand", chombo: "Chombo",
                    points: "Point penalty" };

  function addRuling(r) {
    const id = r.ruling_id;
    if (id !== undefined && id !== null) {
      if (st.rulingIds.has(String(id))) return false;
      st.rulingIds.add(String(id));
    }
    st.rulings.push({ seq: ++st.seq, r: r });
    const lw = st.lastWindow;
    if (r.type === "claim" && lw && lw.w.discard_seat === r.discard_seat && lw.w.tile === r.tile &&
        !lw.result) lw.result = r;
    return true;
  }

  // Where a ruling's deduction stands on the ledger, if it still does.
  function standing(id) {
    const p = ((st.snap && st.snap.penalties) || []).find((x) => String(x.ruling_id) === String(id));
    return p ? ", on the ledger (" + (APPLIES[p.applies] || p.applies) + ")" : "";
  }

  function signed(n) { return (n > 0 ? "+" : "") + n; }

  // A source's own time (a press the table had to put after an event reported later keeps
  // it as t_source): what happened when, for the referee.
  function when(e) { return typeof e.t_source === "number" ? e.t_source : e.t; }

  // Discards and presses are kept apart from the recent events, which scroll: an old claim
  // still shows its presses, and a page opened later gets them in the state's `evidence`.
  const EVIDENCE = new Set(["discard", "call"]);
  const EVIDENCE_KEPT = 5000;  // far more than a game's discards and presses
  function keepEvidence(e) {
    if (!EVIDENCE.has(e.type)) return;
    st.evidence.push(e);
    if (st.evidence.length > EVIDENCE_KEPT) st.evidence.splice(0, st.evidence.length - EVIDENCE_KEPT);
  }

  // The discard a claim was on (null for a kan's tile).
  function discardOf(seat, tileCode, upto) {
    for (let i = st.evidence.length - 1; i >= 0; i--) {
      const e = st.evidence[i];
      if (e.type === "discard" && when(e) <= upto + 1e-9 &&
          (seat === undefined || (e.seat === seat && e.tile === tileCode))) return e;
    }
    return null;
  }

  // Every press on a claim's discard with its time after the discard, to the hundredth.
  function pressTimes(r) {
    const d = discardOf(r.discard_seat, r.tile, r.t);
    if (!d) return null;
    const t0 = when(d);
    const presses = st.evidence.filter((e) => e.type === "call" && when(e) >= t0 - 1e-9 &&
                                     when(e) <= r.t + 1e-9);
    if (!presses.length) return null;
    return h("p", { class: "rule press-times" }, "Presses: " + presses.map((e) =>
      "S" + e.seat + " " + e.call + " +" + fmt(when(e) - t0) + " s").join(" · "));
  }

  function rulingBody(r) {
    const rule = r.rule ? "Rule: " + r.rule : null;
    switch (r.type) {
      case "claim": {
        const winners = r.winners || [];
        const main = winners.length
          ? [winners.map((x) => who(x.seat) + " " + x.call).join(" and "), " on ", tile(r.tile),
             " from " + who(r.discard_seat)]
          : ["No claim stands on ", tile(r.tile), " from " + who(r.discard_seat)];
        return [
          h("p", { class: "rmain" }, main),
          (r.rejected || []).length ? h("ul", { class: "rejected" }, r.rejected.map((x) =>
            h("li", {}, who(x.seat) + " " + x.call + " rejected: " + x.reason +
              (REASONS[x.reason] ? " (" + REASONS[x.reason] + ")" : "")))) : null,
          pressTimes(r),
          h("p", { class: "rule" }, [rule, "decided " + fmt(r.window) + " s after the discard",
                                     st.snap && st.snap.ruleset ? "ruleset " + st.snap.ruleset : null]
            .filter(Boolean).join(" · ")),
        ];
      }
      case "violation":
        return [
          h("p", { class: "rmain who" }, who(r.seat)),
          h("p", { class: "seen" }, r.text || ""),
          r.check ? checkNote(r) : null,
          r.points ? h("p", { class: "rsub deduction" }, "Deduction " + minus(r.points) +
            standing(r.ruling_id)) : null,
          h("p", { class: "rule" }, rule || "No rule cited"),
        ];
      case "win": {
        const how = r.from === null || r.from === undefined ? "tsumo" : "ron from " + who(r.from);
        return [
          h("p", { class: "rmain" }, who(r.seat) + " wins by " + how),
          h("p", { class: "rsub" }, r.han + " han " + r.fu + " fu · " + r.points + " points" +
            ((r.yaku || []).length ? " · " + r.yaku.join(", ") : "")),
          r.payments ? h("p", { class: "rule" }, "Payments: " + r.payments.map((p, i) => "S" + i + " " + signed(p)).join(", ")) : null,
          rule ? h("p", { class: "rule" }, rule) : null,
        ];
      }
      case "hand_end":
        return [
          h("p", { class: "rmain" }, "Hand ends: " + r.result + (r.reason ? " (" + r.reason.replace(/_/g, " ") + ")" : "")),
          r.scores ? h("p", { class: "rule" }, "Scores: " + r.scores.join(" / ")) : null,
          rule ? h("p", { class: "rule" }, rule) : null,
        ];
      case "game_end":
        return [
          h("p", { class: "rmain" }, "Game ends" + (r.reason ? ": " + (GAME_END[r.reason] || r.reason.replace(/_/g, " ")) : "")),
          r.scores ? h("p", { class: "rsub" }, "Scores: " + r.scores.join(" / ")) : null,
          penaltyList(r.penalties),
          r.final ? h("p", { class: "rule" }, "Final (after uma/oka" +
            ((r.penalties || []).length ? " and penalties" : "") + "): " + r.final.join(" / ")) : null,
        ];
      case "time_up":
        return [
          h("p", { class: "rmain" }, "Time up: " + (ENDS[r.ends] || String(r.ends).replace(/_/g, " "))),
          rule ? h("p", { class: "rule" }, rule) : null,
        ];
      case "result": {
        const signers = (r.signatures || []).map((seat) => who(seat));
        if (r.referee_signed) signers.push("the referee");
        return [
          h("p", { class: "rmain" }, "Result signed"),
          r.scores ? h("p", { class: "rsub" }, "Scores: " + r.scores.join(" / ")) : null,
          penaltyList(r.penalties),
          r.final ? h("p", { class: "rsub" }, "Final (after uma/oka" +
            ((r.penalties || []).length ? " and penalties" : "") + "): " + r.final.join(" / ")) : null,
          signers.length ? h("p", { class: "rule" }, "Signed by " + signers.join(", ")) : null,
        ];
      }
      default:
        return [h("p", { class: "rmain" }, r.text || JSON.stringify(r)), rule ? h("p", { class: "rule" }, rule) : null];
    }
  }

  // The deductions a game_end or result lists: who, how much, where it comes off, why.
  function penaltyList(penalties) {
    if (!(penalties || []).length) return null;
    return h("ul", { class: "penalties" }, penalties.map((p) =>
      h("li", { "data-ruling": p.ruling_id }, "Penalty " + minus(p.points) + " " + who(p.seat) +
        " (" + (APPLIES[p.applies] || p.applies) + ")" + (p.reason ? ": " + p.reason : ""))));
  }

  // A violation resting on a reading the camera was not sure of: the referee looks at the
  // table and confirms it, or says what the tile really is (referee.checks).
  function checkNote(r) {
    const rd = r.reading || {};
    const what = rd.tile ? "read " + rd.tile : "read this";
    return h("div", { class: "check-note" },
      r.crop ? h("img", { class: "crop", src: r.crop, alt: "the tile as the camera saw it" }) : null,
      h("p", {}, "The camera " + what + (rd.type ? " (" + rd.type + (rd.seat !== null && rd.seat !== undefined ? ", seat " + rd.seat : "") + ")" : "") +
        " only " + Math.round(100 * (r.confidence || 0)) + "% sure: nothing is applied until the referee checks the table."));
  }

  const CODES = [].concat(...["m", "p", "s"].map((s) => ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0"].map((n) => n + s)),
                          ["1z", "2z", "3z", "4z", "5z", "6z", "7z"]);

  function checkForms(r) {
    const hidden = () => [h("input", { type: "hidden", name: "csrf_token", value: CSRF }),
                          h("input", { type: "hidden", name: "ruling_id", value: r.ruling_id })];
    const read = (r.reading || {}).tile;
    return h("div", { class: "check-actions" },
      h("form", { method: "post", action: body.dataset.confirmUrl || "/referee/confirm", class: "inline" },
        hidden(), h("button", { type: "submit", class: "danger" }, "Confirm " + (PENALTY[r.penalty] || r.penalty))),
      h("form", { method: "post", action: body.dataset.correctUrl || "/referee/correct", class: "inline" },
        hidden(),
        h("label", {}, "It is ",
          h("select", { name: "tile", required: true }, CODES.map((c) =>
            h("option", Object.assign({ value: c }, c === read ? { selected: true } : {}), c)))),
        h("button", { type: "submit" }, "Correct the reading")));
  }

  function overrideForm(r) {
    const form = h("form", { method: "post", action: body.dataset.overrideUrl || "/referee/override" },
      h("input", { type: "hidden", name: "csrf_token", value: CSRF }),
      h("input", { type: "hidden", name: "ruling_id", value: r.ruling_id }),
      h("label", {}, "Decision and why",
        h("textarea", { name: "text", required: true, maxlength: 500, rows: 2 })),
      h("button", { type: "submit" }, "Override " + r.ruling_id));
    return h("details", { class: "override-box" }, h("summary", {}, "Override"), form);
  }

  function rulingItem(r) {
    const decisions = st.referee.filter((e) => e.ruling_id !== undefined && e.ruling_id !== null &&
                                                String(e.ruling_id) === String(r.ruling_id));
    const overridden = decisions.some((e) => e.action === "override") ||
      ((st.snap && st.snap.overrides) || []).some((o) => String(o.ruling_id) === String(r.ruling_id));
    let cls = "ruling r-" + r.type + (overridden ? " is-overridden" : "");
    let title = r.type.replace(/_/g, " ");
    const head = [];
    const answered = decisions.length > 0;
    if (r.type === "violation") {
      cls += " violation pen-" + r.penalty + (r.check ? " check" + (answered ? " answered" : "") : "");
      title = (r.check ? "Check · " : "Violation · ") + (KINDS[r.kind] || r.kind);
    }
    head.push(h("span", { class: "rtype" }, title));
    if (r.type === "violation") head.push(h("span", { class: "pen" },
      (r.check && !answered ? "If confirmed: " : "") + (PENALTY[r.penalty] || r.penalty)));
    head.push(h("span", { class: "rid" }, r.ruling_id || ""));
    if (typeof r.t === "number") head.push(h("span", { class: "rt", title: "game time" }, clockText(r.t)));
    return h("li", { class: cls, id: r.ruling_id ? "ruling-" + r.ruling_id : null,
                     "data-ruling": r.ruling_id, "data-type": r.type },
      h("div", { class: "rhead" }, head),
      rulingBody(r),
      decisions.map((e) => h("p", { class: e.action === "override" ? "overridden" : "rule" },
        (e.action === "override" ? "Overridden by the referee: " :
         e.action === "penalty" ? "Referee penalty (" + (PENALTY[e.penalty] || e.penalty || "?") + "): " :
         "Referee " + e.action + ": ") + e.text)),
      REFEREE && r.check && !answered ? checkForms(r) : null,
      REFEREE && r.ruling_id ? overrideForm(r) : null);
  }

  function refereeItem(e) {
    let what = "Referee " + e.action.replace(/_/g, " ");
    if (e.action === "penalty" && e.seat !== undefined) what += " for " + who(e.seat) + " (" + (PENALTY[e.penalty] || e.penalty) + ")";
    if (e.ruling_id !== undefined && e.ruling_id !== null) what += " on " + e.ruling_id;
    return h("li", { class: "ruling r-referee", "data-type": "referee", "data-action": e.action },
      h("div", { class: "rhead" }, h("span", { class: "rtype" }, what), h("span", { class: "rt", title: "game time" }, clockText(e.t))),
      h("p", { class: "rsub" }, e.text));
  }

  // A referee penalty the core turned into a violation ruling is shown once, as that card.
  function becameRuling(e) {
    return e.action === "penalty" && st.rulings.some(({ r }) =>
      r.type === "violation" && r.by_referee && r.text === e.text && Math.abs(r.t - e.t) < 1e-6);
  }

  function renderFeed() {
    const items = st.rulings.map(({ seq, r }) => ({ seq, t: typeof r.t === "number" ? r.t : 0, el: () => rulingItem(r) }))
      .concat(st.referee.filter((e) => !becameRuling(e))
        .map((e) => ({ seq: e.__seq, t: e.t, el: () => refereeItem(e) })));
    items.sort((a, b) => (b.t - a.t) || (b.seq - a.seq));
    const list = $("rulings");
    // An override form the referee is typing in survives the redraw, text and all.
    const typing = list.querySelector("details.override-box[open]");
    const keep = typing ? typing.closest("li").dataset.ruling : null;
    list.replaceChildren(...(items.length ? items.slice(0, 300).map((x) => x.el())
      : [h("li", { class: "empty muted" }, "No ruling yet.")]));
    if (keep) {
      for (const li of list.querySelectorAll("li[data-ruling]")) {
        if (li.dataset.ruling === keep) {
          const fresh = li.querySelector("details.override-box");
          if (fresh) fresh.replaceWith(typing);
        }
      }
    }
  }

  // -- table events ----------------------------------------------------------------------
  function describe(e) {
    const s = e.seat !== undefined ? "S" + e.seat + " " : "";
    switch (e.type) {
      case "discard": return s + "discards " + e.tile + (e.riichi ? " (riichi)" : "");
      case "call": {
        const d = discardOf(undefined, undefined, when(e));
        return s + "presses " + e.call + (d ? " (+" + fmt(when(e) - when(d)) + " s after the discard)" : "");
      }
      case "meld": return s + e.kind + " " + (e.tiles || []).join(" ");
      case "dora": return "dora indicator " + e.indicator;
      case "reveal": return s + "reveals " + (e.tiles || []).join(" ") + " (wins on " + e.win_tile + ")";
      case "tenpai": return "tenpai: " + (e.seats || []).map((x) => "S" + x).join(", ");
      case "hand_start": return "hand starts: " + (WIND[e.round_wind] || e.round_wind) + ", dealer S" + e.dealer;
      case "game_start": return "game starts (" + e.ruleset + ")";
      case "referee": return "referee " + e.action.replace(/_/g, " ") + ": " + e.text;
      case "clock": return e.carried === true ? "round clock runs on: " + hms(e.seconds) + " left" : "round clock " + e.action +
        (typeof e.seconds === "number" ? " " + hms(e.seconds) : "") + (e.source ? " (" + e.source + ")" : "");
      case "sign": return e.referee === true ? "the referee signs the result" : s + "signs the result";
      default: return e.type;
    }
  }

  function renderEvents() {
    const list = $("event-log");
    const recent = st.events.slice(-15).reverse();
    list.replaceChildren(...(recent.length ? recent.map((e) =>
      h("li", { "data-type": e.type }, h("span", { class: "et" }, clockText(e.t, 1)), h("span", {}, describe(e))))
      : [h("li", { class: "empty muted" }, "No event yet.")]));
  }

  // -- undo target (referee) ---------------------------------------------------------------
  let undoPending = false;
  function refreshUndo() {
    const box = $("undo-box");
    if (!box || !box.open || undoPending) return;
    undoPending = true;
    fetch(body.dataset.undoTargetUrl || "/referee/undo-target",
          { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((r) => r.json())
      .then((j) => {
        $("undo-target").value = j.key || "";
        $("undo-what").textContent = j.text;
      })
      .catch(() => { $("undo-what").textContent = "(could not ask the table)"; })
      .finally(() => { undoPending = false; });
  }
  const undoBox = $("undo-box");
  if (undoBox) undoBox.addEventListener("toggle", refreshUndo);

  // -- the stream ------------------------------------------------------------------------
  function setLive(on, why) {
    const el = $("live");
    el.textContent = on ? "Live" : (why || "Reconnecting…");
    el.classList.toggle("off", !on);
    el.classList.toggle("refused", !on && !!why);
  }

  function addEvent(e) {
    st.events.push(e);
    if (st.events.length > 60) st.events.splice(0, st.events.length - 60);
    keepEvidence(e);
    if (e.type === "referee") {
      e.__seq = ++st.seq;
      st.referee.push(e);
    }
  }

  function renderAll() {
    if (!st.snap) return;
    renderCentre();
    renderClock();
    renderLedger();
    renderSheet();
    renderCancel();
    renderHealth();
    renderSeats();
    renderWindow();
    renderFeed();
    renderEvents();
  }

  function onState(msg) {
    if (msg.full) {
      st.rulings = []; st.rulingIds = new Set(); st.referee = []; st.events = [];
      st.evidence = [];
      st.health = {};
      st.lastWindow = null;
      st.snap = msg.data;
      st.t0 = msg.game_t0;
      for (const e of msg.events || []) if (e.type !== "referee") st.events.push(e);
      for (const e of (msg.evidence || []).concat(msg.events || [])) keepEvidence(e);
      for (const e of msg.referee || []) { e.__seq = ++st.seq; st.referee.push(e); }
      st.events = st.events.concat(msg.referee || []).sort((a, b) => a.t - b.t).slice(-60);
      for (const r of msg.rulings || []) addRuling(r);
    } else {
      st.snap = msg.data;
    }
    for (const e of st.snap.health || []) st.health[e.component] = e;
    noteWindow();
    renderAll();
  }

  function handle(kind, msg) {
    sync(msg);
    setLive(true);
    if (kind === "state") return onState(msg);
    if (!st.snap) return;
    const d = msg.data;
    if (kind === "ruling") {
      if (addRuling(d)) { renderFeed(); renderSeats(); renderWindow(); renderLedger(); renderClock(); }
    } else if (kind === "event") {
      if (d.type === "game_start") st.t0 = d.t;
      addEvent(d);
      const lw = st.lastWindow;
      // A press after its window closed still belongs on that window's timeline (late).
      if (d.type === "call" && lw && lw.closed && !(st.snap && st.snap.window) &&
          st.snap.turn !== d.seat && d.t - lw.w.opened < 3 * (lw.w.deadline - lw.w.opened)) {
        lw.extra.push({ seat: d.seat, call: d.call, t: d.t });
        renderWindow();
      }
      if (d.type === "referee") renderFeed();
      renderEvents();
      refreshUndo();
    } else if (kind === "health") {
      st.health[d.component] = d;
      renderHealth();
    }
  }

  function connect() {
    const url = body.dataset.stream || "/stream";
    const es = new EventSource(url);
    es.onopen = () => setLive(true);
    es.onerror = () => {
      setLive(false);
      // A refusal (429: too many views from this address; 503: the server is full) closes
      // the EventSource for good: ask why, say so, and try again when the server says.
      if (es.readyState === EventSource.CLOSED) refused(url);
    };
    for (const kind of ["state", "event", "ruling", "health"]) {
      es.addEventListener(kind, (ev) => {
        let msg;
        try { msg = JSON.parse(ev.data); } catch (e) { return; }
        handle(kind, msg);
      });
    }
    return es;
  }

  async function refused(url) {
    let wait = 10, why = "No live view";
    try {
      const r = await fetch(url, { method: "HEAD", cache: "no-store" });
      wait = parseInt(r.headers.get("Retry-After"), 10) || (r.ok ? 2 : wait);
      if (r.status === 429) why = "Too many live views from this phone or network";
      else if (r.status === 503) why = "The table's server is full";
      else if (r.ok) why = "Reconnecting…";
    } catch (e) { /* offline: try again later */ }
    setLive(false, why === "Reconnecting…" ? why : why + ": retrying in " + wait + " s");
    // Spread the retries, so refused phones do not all come back in the same second.
    setTimeout(() => { window.riichiDashboard.source = connect(); },
               (wait + Math.random() * wait / 2) * 1000);
  }

  window.riichiDashboard = { tableNow: tableNow, state: st, cjk: CJK, source: connect() };
})();

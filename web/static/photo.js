// riichi-referee: score a hand from a photo (the referee's side; web/photo.py).
// The photo is shrunk on the phone before it is sent (a few hundred KB over the venue's
// Wi-Fi, and a small picture for the Pi to read); the tiles come back with their boxes, and
// each is shown as its piece of the photo with the code read, for a tap-to-correct.
"use strict";

(function () {
  const box = document.getElementById("photo-box");
  if (!box || box.dataset.available !== "1") return;
  const $ = (id) => document.getElementById(id);
  const CSRF = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";
  const LONGEST = 1600;          // as vision/reading/phone_photo.py reads it
  const CODES = [];
  for (const s of "mps") for (let n = 1; n <= 9; n++) CODES.push(n + s);
  for (let n = 1; n <= 7; n++) CODES.push(n + "z");
  CODES.push("0m", "0p", "0s");  // red fives

  // tiles: [{tile, unsure, box}] as read, then as corrected; win: an index or null;
  // melds: [{at: [indices], closed}]; picked: indices picked for a meld
  let state = { tiles: [], win: null, melds: [], picked: new Set(), width: 0, height: 0 };
  let bitmap = null;   // the photo as taken, for the tiles' pictures
  let editing = null;  // the index the picker corrects; -1: a tile to add
  let table = null;    // /state.json's data, for the seat's riichi and a declared win

  const { h } = window.riichiDom;   // dom.js, loaded first

  function say(el, text, bad) {
    el.textContent = text;
    el.classList.toggle("photo-error", !!bad);
  }

  async function errorLine(response) {
    try {
      const data = await response.json();
      if (data && data.error) return data.error;
    } catch (e) { /* not JSON */ }
    return "The dashboard answered " + response.status + ": try again.";
  }

  // -- the photo, shrunk on the phone -------------------------------------------------------
  async function shrink(file) {
    try {
      bitmap = await createImageBitmap(file);   // upright: browsers apply the EXIF turn
    } catch (e) {
      bitmap = null;
      return file;   // not a picture the phone can open: the table says what is wrong
    }
    const scale = Math.min(1, LONGEST / Math.max(bitmap.width, bitmap.height));
    if (scale === 1 && file.type === "image/jpeg") return file;
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise((done) => canvas.toBlob(done, "image/jpeg", 0.9));
    return blob || file;
  }

  async function readPhoto(file) {
    const status = $("photo-status");
    $("photo-hand").hidden = true;
    say($("photo-result"), "");
    $("photo-note").hidden = true;
    say(status, "Reading the photo…");
    const form = new FormData();
    form.append("photo", await shrink(file), file.name || "hand.jpg");
    let response;
    try {
      response = await fetch(box.dataset.readUrl, {
        method: "POST", body: form, credentials: "same-origin",
        headers: { "X-CSRF-Token": CSRF, "Accept": "application/json" },
      });
    } catch (e) {
      say(status, "The photo did not reach the table: check the Wi-Fi and try again.", true);
      return;
    }
    if (!response.ok) { say(status, await errorLine(response), true); return; }
    const data = await response.json();
    state = { tiles: data.tiles.map((t) => ({ tile: t.tile, unsure: t.unsure, box: t.box })),
              win: null, melds: [], picked: new Set(), width: data.width, height: data.height };
    const unsure = state.tiles.filter((t) => t.unsure).length;
    say(status, state.tiles.length + " tiles read" +
        (unsure ? "; " + unsure + " marked ? to check" : "") + ".");
    $("photo-hand").hidden = false;
    await loadTable();
    draw();
  }

  // -- the tiles ----------------------------------------------------------------------------
  function picture(t) {
    if (!bitmap || !t.box || !state.width) return null;
    const k = bitmap.width / state.width;
    const [x1, y1, x2, y2] = t.box.map((v) => v * k);
    const w = Math.max(1, x2 - x1), hgt = Math.max(1, y2 - y1);
    const canvas = document.createElement("canvas");
    canvas.height = 64;
    canvas.width = Math.max(1, Math.round(64 * w / hgt));
    canvas.getContext("2d").drawImage(bitmap, x1, y1, w, hgt, 0, 0, canvas.width, canvas.height);
    return h("img", { src: canvas.toDataURL("image/jpeg", 0.8), alt: "" });
  }

  function meldOf(i) {
    return state.melds.findIndex((m) => m.at.includes(i));
  }

  function draw() {
    const row = $("photo-tiles");
    row.replaceChildren();
    state.tiles.forEach((t, i) => {
      const meld = meldOf(i);
      const classes = ["photo-tile"];
      if (t.unsure) classes.push("unsure");
      if (state.win === i) classes.push("win");
      if (meld >= 0) classes.push("meld", "meld-" + meld);
      if (state.picked.has(i)) classes.push("picked");
      const what = t.tile + (t.unsure ? "?" : "");
      const label = "Tile " + (i + 1) + ": " + t.tile + (t.unsure ? " (unsure)" : "") +
                    (state.win === i ? ", the winning tile" : "") +
                    (meld >= 0 ? ", in meld " + (meld + 1) : "");
      const button = h("button", { type: "button", class: classes.join(" "), "data-index": i,
                                   "aria-label": label, title: label },
                       t.picture || (t.picture = picture(t)), h("span", { class: "code" }, what));
      button.addEventListener("click", () => tap(i));
      row.append(button);
    });
    const add = h("button", { type: "button", class: "photo-tile add", id: "photo-add",
                              title: "A tile the photo missed" }, "+");
    add.addEventListener("click", () => openPicker(-1));
    row.append(add);
  }

  function mode() {
    const checked = document.querySelector('input[name="photo-mode"]:checked');
    return checked ? checked.value : "correct";
  }

  function tap(i) {
    const m = mode();
    if (m === "win") {
      state.win = state.win === i ? null : i;
    } else if (m === "meld") {
      const meld = meldOf(i);
      if (meld >= 0) state.melds.splice(meld, 1);   // a second tap undoes that meld
      else if (state.picked.has(i)) state.picked.delete(i);
      else state.picked.add(i);
    } else {
      openPicker(i);
      return;
    }
    draw();
  }

  // -- the picker: the tile it really is ----------------------------------------------------
  function openPicker(i) {
    editing = i;
    const picker = $("photo-picker");
    picker.replaceChildren(h("p", { class: "small" }, i < 0 ? "Add the tile the photo missed:"
      : "Tile " + (i + 1) + " is really:"));
    for (const code of CODES) {
      const b = h("button", { type: "button", class: "pick", "data-tile": code }, code);
      b.addEventListener("click", () => choose(code));
      picker.append(b);
    }
    if (i >= 0) {
      const gone = h("button", { type: "button", class: "pick gone" }, "not a tile");
      gone.addEventListener("click", () => remove(i));
      picker.append(gone);
    }
    const cancel = h("button", { type: "button", class: "link" }, "cancel");
    cancel.addEventListener("click", closePicker);
    picker.append(cancel);
    picker.hidden = false;
  }

  function closePicker() {
    editing = null;
    $("photo-picker").hidden = true;
  }

  function choose(code) {
    if (editing === null) return;
    if (editing < 0) state.tiles.push({ tile: code, unsure: false, box: null });
    else Object.assign(state.tiles[editing], { tile: code, unsure: false });
    closePicker();
    draw();
  }

  function remove(i) {
    const shift = (j) => (j > i ? j - 1 : j);
    state.tiles.splice(i, 1);
    state.win = state.win === i ? null : state.win === null ? null : shift(state.win);
    state.melds = state.melds.filter((m) => !m.at.includes(i))
      .map((m) => ({ at: m.at.map(shift), closed: m.closed }));
    state.picked = new Set([...state.picked].filter((j) => j !== i).map(shift));
    closePicker();
    draw();
  }

  // -- melds --------------------------------------------------------------------------------
  function makeMeld() {
    const at = [...state.picked].sort((a, b) => a - b);
    if (at.length < 3 || at.length > 4) {
      say($("photo-result"), "Pick the three or four tiles of the meld first.", true);
      return;
    }
    state.melds.push({ at: at, closed: at.length === 4 && $("photo-meld-closed").checked });
    state.picked = new Set();
    draw();
  }

  // -- the table's side: seat, riichi -------------------------------------------------------
  async function loadTable() {
    try {
      const r = await fetch("/state.json", { credentials: "same-origin" });
      table = (await r.json()).data;
    } catch (e) { table = null; return; }
    const declared = (table.declared_wins || [])[0];
    if (declared) {
      $("photo-seat").value = String(declared.seat);
      const how = declared.from === null || declared.from === undefined ? "tsumo" : "ron";
      document.querySelector('input[name="photo-how"][value="' + how + '"]').checked = true;
    }
    seatChanged();
  }

  function seatChanged() {
    const seat = table && (table.seats || [])[Number($("photo-seat").value)];
    $("photo-riichi").checked = !!(seat && seat.riichi);
    $("photo-ippatsu").checked = !!(seat && seat.ippatsu);
  }

  // -- scoring ------------------------------------------------------------------------------
  function handText() {
    const inMeld = new Set(state.melds.flatMap((m) => m.at));
    const concealed = state.tiles.filter((t, i) => !inMeld.has(i)).map((t) => t.tile);
    const melds = state.melds.map((m) => "[" + m.at.map((i) => state.tiles[i].tile).join(" ") +
                                         (m.closed ? " closed" : "") + "]");
    return [concealed.join(" ")].concat(melds).join(" ");
  }

  async function score() {
    const result = $("photo-result");
    $("photo-note").hidden = true;
    if (state.win === null) {
      say(result, "Mark the winning tile first: choose \u201cmarks the winning tile\u201d and tap it.", true);
      return;
    }
    const ura = $("photo-ura").value.split(/[\s,]+/).filter(Boolean);
    const body = {
      seat: Number($("photo-seat").value), tiles: state.tiles.map((t) => t.tile),
      win: state.win, tsumo: document.querySelector('input[name="photo-how"]:checked').value === "tsumo",
      melds: state.melds, riichi: $("photo-riichi").checked,
      ippatsu: $("photo-ippatsu").checked, ura: ura,
    };
    say(result, "Scoring…");
    let response;
    try {
      response = await fetch(box.dataset.scoreUrl, {
        method: "POST", body: JSON.stringify(body), credentials: "same-origin",
        headers: { "X-CSRF-Token": CSRF, "Accept": "application/json",
                   "Content-Type": "application/json" },
      });
    } catch (e) {
      say(result, "The table did not answer: check the Wi-Fi and try again.", true);
      return;
    }
    if (!response.ok) { say(result, await errorLine(response), true); return; }
    show(await response.json(), body);
  }

  function show(v, body) {
    const result = $("photo-result");
    const t = v.table;
    const how = t.tsumo ? "tsumo" : "ron";
    const where = t.ruleset + " \u00b7 " + t.winds + " \u00b7 dora indicators " +
      (t.dora_indicators.join(" ") || "none") + " \u00b7 honba " + t.honba +
      ", riichi sticks " + t.riichi_sticks + (t.riichi ? " \u00b7 riichi" : "");
    result.classList.remove("photo-error");
    result.replaceChildren();
    let line;
    if (!v.win) {
      line = "Not a win (" + v.reason.replace("_", " ") + "): " + v.text + ".";
      result.append(h("p", { class: "photo-verdict bad", id: "photo-verdict" }, line),
                    h("p", { class: "small muted" }, where));
    } else {
      const limit = v.limit && v.limit !== "none" ? v.limit + ", " : "";
      line = v.han + " han " + v.fu + " fu: " + limit + v.points + " points";
      let pays;
      if (!t.tsumo) pays = "the discarder pays " + v.payments.ron;
      else if (t.seat_wind === "E") pays = "each pays " + v.payments.non_dealer;
      else pays = "the dealer pays " + v.payments.dealer + ", the others " + v.payments.non_dealer;
      const yaku = v.yaku.filter((y) => y[1]).map((y) => y[0] + " " + y[1]).join(", ");
      result.append(h("p", { class: "photo-verdict", id: "photo-verdict" }, line),
                    h("p", null, "Seat " + t.seat + " " + how + ": " + pays +
                      "; with honba and sticks the winner gains " + v.total + "."),
                    h("p", { id: "photo-yaku" }, "Yaku: " + yaku),
                    h("p", { class: "small muted" }, where));
    }
    $("photo-note-text").value = ("Photo scoring, seat " + t.seat + " " + how + ": " +
      handText() + ", winning tile " + body.tiles[body.win] + ". " + line).slice(0, 500);
    $("photo-note").hidden = false;
  }

  // -- wiring -------------------------------------------------------------------------------
  $("photo-file").addEventListener("change", (e) => {
    const file = e.target.files && e.target.files[0];
    if (file) readPhoto(file);
  });
  for (const radio of document.querySelectorAll('input[name="photo-mode"]')) {
    radio.addEventListener("change", () => {
      $("photo-meld-tools").hidden = mode() !== "meld";
      closePicker();
      if (mode() !== "meld") state.picked = new Set();
      draw();
    });
  }
  $("photo-meld-make").addEventListener("click", makeMeld);
  $("photo-meld-clear").addEventListener("click", () => { state.melds = []; state.picked = new Set(); draw(); });
  $("photo-seat").addEventListener("change", seatChanged);
  $("photo-score").addEventListener("click", score);
})();

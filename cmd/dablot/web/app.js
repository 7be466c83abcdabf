// dablot-zero's page: the board drawn from the server's geometry, turns made
// by clicks, the model's replies and evaluation. Every rule is checked by the
// server (/api/move); the page only offers the legal turns it was sent.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const UNIT = 36;   // pixels per step of the doubled grid
const MARGIN = 44; // room for the coordinates

const S = {
  info: null,      // GET /api/info
  setup: "",       // FEN of the first position ("" for the start)
  turns: [],       // the turns played
  state: null,     // the current position (from the server)
  human: "south",  // south, north, both or none
  sel: null,       // the turn being made: the points clicked so far
  analysis: null,  // the model's last analysis: of the position at (where()), with its reply if it played
  busy: false,     // a request that changes the game is running
  gen: 0,          // bumped whenever the game changes under a running request
  abort: null,     // aborts the running engine request
  flipSet: false,  // the user chose the orientation
};

const $ = (id) => document.getElementById(id);

// api calls the server; it returns the JSON answer or throws an Error with
// the server's reason.
async function api(path, body, signal) {
  const opts = body === undefined ? { signal } : {
    method: "POST", signal,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  };
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok || data === null) {
    throw new Error((data && data.error) || `${path}: HTTP ${res.status}`);
  }
  return data;
}

function game(extra) {
  return Object.assign({ setup: S.setup, turns: S.turns, human: S.human }, extra);
}

function say(text, isError) {
  const m = $("message");
  m.textContent = text || "";
  m.className = isError ? "error" : "";
}

const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// tablesText reads the endgame tables' result ("win 17", "draw", "loss 9":
// the turns to the move that settles it) for the side to move.
function tablesText(r) {
  const [result, turns] = r.split(" ");
  if (result === "draw") return "draws";
  return `${result === "win" ? "wins" : "loses"}, settled within ${turns} ${turns === "1" ? "turn" : "turns"}`;
}
const pname = (i) => S.info.board.points[i].name;

// ---- drawing ----

function xy(i) {
  const b = S.info.board, p = b.points[i];
  const flip = $("flip").checked;
  const x = flip ? b.width - 1 - p.x : p.x;
  const y = flip ? p.y : b.height - 1 - p.y;
  return [MARGIN + x * UNIT, MARGIN + y * UNIT];
}

function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function pathPoints(path) {
  return path.map((i) => xy(i).join(",")).join(" ");
}

function drawBoard() {
  const b = S.info.board, st = S.state, svg = $("board");
  const w = 2 * MARGIN + (b.width - 1) * UNIT, h = 2 * MARGIN + (b.height - 1) * UNIT;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  el("rect", { class: "frame", x: 4, y: 4, width: w - 8, height: h - 8, rx: 10 }, svg);
  const flip = $("flip").checked;
  // Coordinates: column letters below, row numbers on the left.
  for (let x = 0; x < b.width; x++) {
    const px = MARGIN + (flip ? b.width - 1 - x : x) * UNIT;
    el("text", { class: "coord", x: px, y: h - MARGIN / 2 + 6 }, svg, String.fromCharCode(97 + x));
  }
  for (let y = 0; y < b.height; y++) {
    const py = MARGIN + (flip ? y : b.height - 1 - y) * UNIT;
    el("text", { class: "coord", x: MARGIN / 2 - 6, y: py }, svg, String(y + 1));
  }
  for (const [p, q] of b.lines) {
    const [x1, y1] = xy(p), [x2, y2] = xy(q);
    el("line", { class: "grid", x1, y1, x2, y2 }, svg);
  }
  for (let i = 0; i < b.points.length; i++) {
    const [cx, cy] = xy(i);
    el("circle", { class: "dot", cx, cy, r: 3.5 }, svg);
  }
  if (st.last.length > 1) el("polyline", { class: "lastmove", points: pathPoints(st.last) }, svg);

  const pieces = new Map(st.pieces.map((p) => [p.point, p]));
  const myTurn = humanToMove() && !S.busy;
  const starts = new Set(myTurn ? st.legal.filter((t) => t.path.length).map((t) => t.path[0]) : []);
  for (const pc of st.pieces) {
    const [cx, cy] = xy(pc.point);
    const g = el("g", { class: pc.side }, svg);
    el("circle", { class: `piece ${pc.side}`, cx, cy, r: UNIT * 0.4 }, g);
    if (pc.rank !== "soldier") {
      el("circle", { class: `mark ${pc.side}`, cx, cy, r: UNIT * 0.29 }, g);
      if (pc.rank === "king") el("circle", { class: `mark ${pc.side}`, cx, cy, r: UNIT * 0.22 }, g);
      el("text", { class: `label ${pc.side}`, x: cx, y: cy + 1 }, g, pc.rank === "king" ? "K" : "P");
    }
    el("title", {}, g, `${pname(pc.point)}: ${cap(pc.side)} ${pc.rank}`);
    if (!S.sel && starts.has(pc.point)) el("circle", { class: "movable", cx, cy, r: UNIT * 0.47 }, svg);
  }
  // The turn being made: its path, the landing points that go on, and
  // where it may stop.
  if (S.sel) {
    const [sx, sy] = xy(S.sel[0]);
    el("circle", { class: "selected", cx: sx, cy: sy, r: UNIT * 0.47 }, svg);
    if (S.sel.length > 1) el("polyline", { class: "path", points: pathPoints(S.sel) }, svg);
    for (const i of nextPoints()) {
      const [cx, cy] = xy(i);
      el("circle", { class: "target", cx, cy, r: UNIT * 0.16, "data-target": pname(i) }, svg);
    }
    if (stopTurn()) {
      const [cx, cy] = xy(S.sel[S.sel.length - 1]);
      el("circle", { class: "stop", cx, cy, r: UNIT * 0.47 }, svg);
    }
  }
  // Click targets on top of everything, one per point.
  for (let i = 0; i < b.points.length; i++) {
    const [cx, cy] = xy(i);
    const pc = pieces.get(i);
    const hit = el("circle", { class: "hit", cx, cy, r: UNIT * 0.48, "data-sq": pname(i) }, svg);
    el("title", {}, hit, pc ? `${pname(i)}: ${cap(pc.side)} ${pc.rank}` : pname(i));
    hit.addEventListener("click", () => onPoint(i));
  }
}

function render() {
  const st = S.state;
  drawBoard();
  $("status").textContent = st.status.over
    ? `Game over: ${st.status.text} (${st.status.result})`
    : `${st.status.text}${st.chain >= 0 ? `, continuing the chain from ${pname(st.chain)}` : ""}${humanToMove() ? " (you)" : " (the model)"}`;
  const moves = $("moves");
  moves.replaceChildren();
  const first = startSide();
  S.turns.forEach((t, k) => {
    const side = sideOfTurn(k, first);
    const li = document.createElement("li");
    li.className = side;
    li.textContent = `${cap(side)} ${t}`;
    moves.appendChild(li);
  });
  moves.scrollTop = moves.scrollHeight;
  $("fen").value = st.fen;
  const my = humanToMove() && !S.busy;
  $("stop-here").hidden = !(my && stopTurn());
  $("pass").hidden = !(my && !S.sel && st.legal.some((t) => t.text === "pass"));
  $("cancel").hidden = !(my && S.sel && S.state.chain < 0);
  $("undo").disabled = S.turns.length === 0;
  $("analyse").disabled = S.busy || st.status.over;
  renderAnalysis();
}

// where describes the current position for the evaluation panel: how many
// turns were played (numbered as in the move list), the last, the side to
// move.
function where() {
  const n = S.turns.length;
  return { n, last: n ? S.turns[n - 1] : "", setup: S.setup, side: S.state.side };
}

// whereText is a position of where() in words: "after 12. c3-d4, South to
// move" or "the start position, South to move".
function whereText(at) {
  const pos = at.n ? `after ${at.n}. ${at.last}` : at.setup ? "the position set up" : "the start position";
  return `${pos}, ${cap(at.side)} to move`;
}

function renderAnalysis() {
  const a = S.analysis, bar = $("evalbar");
  const [w, d, l] = a ? a.south_wdl : [0, 0, 0];
  bar.querySelector(".w").style.width = `${100 * w}%`;
  bar.querySelector(".d").style.width = `${100 * d}%`;
  bar.querySelector(".l").style.width = `${100 * l}%`;
  const top = $("top");
  top.replaceChildren();
  const pos = $("evalpos");
  if (!a) {
    pos.textContent = "";
    $("evaltext").textContent = "Not yet: play a turn or press Analyse.";
    $("pv").textContent = "";
    return;
  }
  // The position analysed (and the model's reply, if it played), and
  // whether the game has moved on since.
  const now = where(), n = a.at.n + (a.reply ? 1 : 0);
  const current = now.setup === a.at.setup && now.n === n && now.last === (a.reply || a.at.last);
  pos.textContent = `Of the position ${whereText(a.at)}` + (a.reply ? ` (the model replied ${n}. ${a.reply})` : "") +
    (current ? "" : "; the game has gone on since");
  pos.className = current ? "" : "old";
  const pct = (x) => `${Math.round(100 * x)}%`;
  $("evaltext").textContent = `For South: win ${pct(w)}, draw ${pct(d)}, loss ${pct(l)} ` +
    `(${a.sims} simulations, ${a.ms} ms; ${cap(a.side)} to move, value ${a.value >= 0 ? "+" : ""}${a.value.toFixed(2)})` +
    (a.proof ? `; proven: ${cap(a.side)} ${a.proof.result === "win" ? "wins" : a.proof.result === "loss" ? "loses" : "draws"} ` +
      `within ${a.proof.decisions} ${a.proof.decisions === 1 ? "decision" : "decisions"}` : "") +
    (a.tables ? `; endgame tables: ${cap(a.side)} ${tablesText(a.tables)}` : "");
  for (const t of a.top) {
    const li = document.createElement("li");
    li.textContent = `${t.turn}: win ${pct(t.wdl[0])}, draw ${pct(t.wdl[1])}, loss ${pct(t.wdl[2])} (${t.visits} ${t.visits === 1 ? "visit" : "visits"})`;
    top.appendChild(li);
  }
  $("pv").textContent = a.pv && a.pv.length > 1 ? `Expected line: ${a.pv.join(" ")}` : "";
}

// ---- the game ----

function startSide() {
  const fen = S.setup || S.info.start;
  return fen.trim().split(/\s+/)[1] === "n" ? "north" : "south";
}

function sideOfTurn(k, first) {
  return (k % 2 === 0) === (first === "south") ? "south" : "north";
}

function humanToMove() {
  const st = S.state;
  if (!st || st.status.over) return false;
  return S.human === "both" || S.human === st.side;
}

// nextPoints are the points where the turn being made may go next.
function nextPoints() {
  const n = S.sel.length, out = new Set();
  for (const t of S.state.legal) {
    if (t.path.length > n && S.sel.every((p, k) => t.path[k] === p)) out.add(t.path[n]);
  }
  return out;
}

// stopTurn is the legal turn that ends where the turn being made is now (a
// capture chain that may stop there), if there is one.
function stopTurn() {
  if (!S.sel || (S.sel.length < 2 && S.state.chain < 0)) return null;
  const n = S.sel.length;
  return S.state.legal.find((t) => t.path.length === n && S.sel.every((p, k) => t.path[k] === p)) || null;
}

function selectChainPiece() {
  S.sel = S.state.chain >= 0 && humanToMove() ? [S.state.chain] : null;
}

function setState(st) {
  S.state = st;
  S.turns = st.turns;
  S.setup = st.setup;
  selectChainPiece();
}

async function onPoint(i) {
  const st = S.state;
  if (S.busy) { say("The model is thinking…"); return; }
  if (st.status.over) { say(`The game is over: ${st.status.text}. Start a new game or undo.`, true); return; }
  if (!humanToMove()) { say("It is the model's turn."); return; }
  const pc = st.pieces.find((p) => p.point === i);
  if (!S.sel) {
    if (st.legal.some((t) => t.path[0] === i)) {
      S.sel = [i];
      say(`${pname(i)} selected: click where it goes.`);
      render();
      return;
    }
    if (pc && pc.side === st.side) {
      say(`The ${pc.rank} on ${pname(i)} has no legal turn here.`, true);
    } else {
      say(`Click one of ${cap(st.side)}'s pieces that can move (marked with a dashed ring).`, true);
    }
    return;
  }
  if (S.sel.length === 1 && i === S.sel[0] && st.chain < 0) {
    S.sel = null;
    say("");
    render();
    return;
  }
  if (nextPoints().has(i)) {
    const path = [...S.sel, i];
    const complete = st.legal.find((t) => t.path.length === path.length && path.every((p, k) => t.path[k] === p));
    const goesOn = st.legal.some((t) => t.path.length > path.length && path.every((p, k) => t.path[k] === p));
    if (complete && !goesOn) {
      await playTurn(complete.text);
      return;
    }
    S.sel = path;
    say(complete ? "The chain may stop here (Stop here) or go on." : "The chain goes on: click the next landing point.");
    render();
    return;
  }
  if (S.sel.length === 1 && st.chain < 0 && st.legal.some((t) => t.path[0] === i)) {
    S.sel = [i];
    say(`${pname(i)} selected: click where it goes.`);
    render();
    return;
  }
  // Not a legal continuation: ask the server why, and keep the position.
  const from = S.sel[S.sel.length - 1];
  const adjacent = S.info.board.lines.some(([p, q]) => (p === from && q === i) || (p === i && q === from));
  const sep = S.sel.length > 1 || !adjacent ? "x" : "-";
  const text = [...S.sel, i].map(pname).join(sep);
  const gen = S.gen;
  try {
    const res = await api("/api/move", game({ move: text }));
    if (gen !== S.gen) return;
    setState(res); // the server found it legal after all
    render();
    await engineTurn();
  } catch (e) {
    if (gen === S.gen) say(`Not legal: ${e.message}`, true);
  }
}

async function playTurn(text) {
  const gen = S.gen;
  S.busy = true;
  try {
    const res = await api("/api/move", game({ move: text }));
    if (gen !== S.gen) return;
    setState(res);
    say(`You played ${text}.`);
  } catch (e) {
    if (gen === S.gen) say(`Not legal: ${e.message}`, true);
  } finally {
    if (gen === S.gen) S.busy = false;
  }
  render();
  await engineTurn();
}

function sims() {
  const n = Number($("sims").value);
  if (!Number.isInteger(n) || n < 0 || n > S.info.max_sims) {
    $("sims").value = S.info.sims;
    say(`Strength must be 0 (the player's own budget) to ${S.info.max_sims} simulations; using ${S.info.sims}.`, true);
    return S.info.sims;
  }
  return n;
}

// engineTurn lets the model play while it is its turn.
async function engineTurn() {
  while (S.state && !S.state.status.over && !humanToMove()) {
    const gen = S.gen, ctl = new AbortController(), at = where();
    S.busy = true;
    S.abort = ctl;
    say("The model is thinking…");
    render();
    try {
      const res = await api("/api/engine", game({ sims: sims(), play: true }), ctl.signal);
      if (gen !== S.gen) return;
      S.analysis = { ...res.analysis, at, reply: res.move };
      setState(res.state);
      say(`The model played ${res.move}.`);
    } catch (e) {
      if (gen !== S.gen || e.name === "AbortError") return;
      say(`The model could not move: ${e.message}`, true);
      S.busy = false;
      render();
      return;
    } finally {
      if (gen === S.gen) { S.busy = false; S.abort = null; }
    }
    render();
    if (S.human === "none") await new Promise((r) => setTimeout(r, 300));
  }
}

// reset forgets any running request: the game changes under it.
function reset() {
  S.gen++;
  if (S.abort) S.abort.abort();
  S.abort = null;
  S.busy = false;
  S.sel = null;
}

async function loadGame(setup, turns, message) {
  reset();
  const gen = S.gen;
  try {
    const st = await api("/api/state", { setup, turns, human: S.human });
    if (gen !== S.gen) return false;
    setState(st);
    S.analysis = null;
    say(message || "");
  } catch (e) {
    if (gen === S.gen) say(e.message, true);
    return false;
  }
  render();
  engineTurn();
  return true;
}

function undo() {
  if (S.turns.length === 0) { say("Nothing to undo."); return; }
  const first = startSide();
  let n = S.turns.length;
  if (S.human === "south" || S.human === "north") {
    // Back to before the person's last turn.
    let k = n - 1;
    while (k >= 0 && sideOfTurn(k, first) !== S.human) k--;
    if (k < 0) { say("Nothing to undo: you have not played a turn yet."); return; }
    n = k;
  } else {
    n -= 1;
  }
  const taken = S.turns.slice(n).join(" ");
  loadGame(S.setup, S.turns.slice(0, n), `Taken back: ${taken}.`);
}

async function analyse() {
  if (S.busy || S.state.status.over) return;
  const gen = S.gen, ctl = new AbortController(), at = where();
  S.busy = true;
  S.abort = ctl;
  say("The model is analysing…");
  render();
  try {
    const res = await api("/api/engine", game({ sims: sims(), play: false }), ctl.signal);
    if (gen !== S.gen) return;
    S.analysis = { ...res.analysis, at };
    const best = res.analysis.top[0];
    say(`The model's choice: ${best.turn}.`);
  } catch (e) {
    if (gen === S.gen && e.name !== "AbortError") say(`No analysis: ${e.message}`, true);
  } finally {
    if (gen === S.gen) { S.busy = false; S.abort = null; }
  }
  if (gen === S.gen) render();
}

function download() {
  const blob = new Blob([S.state.pgn], { type: "text/plain" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  const d = new Date();
  const stamp = `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, "0")}${String(d.getDate()).padStart(2, "0")}-` +
    `${String(d.getHours()).padStart(2, "0")}${String(d.getMinutes()).padStart(2, "0")}`;
  a.download = `dablot-${S.info.variant}-${stamp}.pgn`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

async function copyFEN() {
  const input = $("fen");
  input.value = S.state.fen;
  try {
    await navigator.clipboard.writeText(S.state.fen);
    say("FEN copied.");
  } catch (e) {
    input.select();
    say("FEN selected: press Ctrl+C to copy it.");
  }
}

function setFlipDefault() {
  if (!S.flipSet) $("flip").checked = S.human === "north";
}

async function start() {
  try {
    S.info = await api("/api/info");
  } catch (e) {
    say(`Cannot reach the server: ${e.message}`, true);
    return;
  }
  document.title = `dablot-zero: ${S.info.variant}`;
  $("title").textContent = `${S.info.variant} against ${S.info.model} (${S.info.search})`;
  $("sims").value = S.info.sims;
  $("sims").max = S.info.max_sims;
  $("side").addEventListener("change", () => {
    S.human = $("side").value;
    setFlipDefault();
    if (!S.busy) {
      selectChainPiece();
      render();
      engineTurn();
    } else if (S.human === "both") {
      loadGame(S.setup, S.turns);
    }
  });
  $("flip").addEventListener("change", () => { S.flipSet = true; render(); });
  $("new").addEventListener("click", () => loadGame("", [], "New game."));
  $("undo").addEventListener("click", undo);
  $("analyse").addEventListener("click", analyse);
  $("download").addEventListener("click", download);
  $("copy-fen").addEventListener("click", copyFEN);
  $("load-fen").addEventListener("click", () => {
    const fen = $("fen").value.trim();
    loadGame(fen, [], "Position loaded.");
  });
  $("fen").addEventListener("keydown", (e) => { if (e.key === "Enter") $("load-fen").click(); });
  $("stop-here").addEventListener("click", () => { const t = stopTurn(); if (t) playTurn(t.text); });
  $("pass").addEventListener("click", () => playTurn("pass"));
  $("cancel").addEventListener("click", () => { S.sel = null; say(""); render(); });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && S.sel && S.state.chain < 0) { S.sel = null; say(""); render(); }
  });
  await loadGame("", [], "");
  document.body.dataset.ready = "true";
}

start();

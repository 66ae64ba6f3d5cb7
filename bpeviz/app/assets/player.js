// bpeviz player: a run (or an encoding trace) sent once, every step drawn here in the browser.
// The server is told the step (for the address bar and the lesson file), never asked for it.
// Every text that comes from a corpus or a user is set with textContent: no markup is built from it.

const HISTORIES = (globalThis.__bpevizHistories ??= new Map()); // digest -> history, for the page's life
const PLAYERS = (globalThis.__bpevizPlayers ??= new Set());
// kind:digest -> {step, jump}: the step this page showed last, so that a player drawn again (after a
// visit to another page) keeps it even when the message that told the server was lost on the way
const SHOWN = (globalThis.__bpevizShown ??= new Map());
// a speed chosen here that the server has not confirmed yet, and the server's speed before it
const CHOSEN = (globalThis.__bpevizSpeed ??= { speed: null, before: null });
const SHIFT = 2097152; // 2^21: pair key = left * SHIFT + right, exact for ids below 2^21
const SYNC_MS = 400; // the server hears of a new step at most this often
const PRESENTED_PAIRS = 6; // the pair chart's bars when presenting: one projector screen

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (name === "text") node.textContent = value;
    else if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function fmt(template, values = {}) {
  // Python-style "{name}" and "{name:,}" placeholders
  return String(template).replace(/\{(\w+)(:[^}]*)?\}/g, (_, name, spec) => {
    const value = values[name];
    if (value === undefined) return "";
    if (typeof value === "number") return value.toLocaleString(LOCALE.name); // 0,25 s in Portuguese; 4.096
    return String(value);
  });
}

// the interface language's number format (Portuguese: 4.096 and 3,05), set from the labels each render brings
const LOCALE = (globalThis.__bpevizLocale ??= { name: "en-US" });

function number(n) {
  return Number(n).toLocaleString(LOCALE.name);
}

function decimals(x, digits) {
  return Number(x).toLocaleString(LOCALE.name, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function significant(x, digits) {
  return Number(x).toLocaleString(LOCALE.name, { maximumSignificantDigits: digits });
}

function hue(id) {
  return `hsl(${Math.round((id * 137.508) % 360)}, 70%, 84%)`;
}

function keepInView(scroll) {
  // scroll the table, not the page, so that the highlighted row shows
  requestAnimationFrame(() => {
    const row = scroll.querySelector(".bpe-row-hl");
    if (!row) return;
    const head = scroll.querySelector("thead")?.offsetHeight ?? 0;
    if (row.offsetTop + row.offsetHeight > scroll.scrollTop + scroll.clientHeight) {
      scroll.scrollTop = row.offsetTop + row.offsetHeight - scroll.clientHeight;
    } else if (row.offsetTop - head < scroll.scrollTop) {
      scroll.scrollTop = row.offsetTop - head;
    }
  });
}

// a presentation clicker sends these: forward is PageDown, Space or →, back is PageUp or ←
const CLICKER = new Set(["PageDown", "PageUp", "ArrowRight", "ArrowLeft"]);
const WIDGETS = '[role="slider"], [role="radiogroup"], [role="tablist"], [role="listbox"], [role="menu"], [role="grid"], [data-baseweb]';

function installKeys() {
  if (globalThis.__bpevizKeys) return;
  globalThis.__bpevizKeys = true;
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      if (!(target.type === "range" && target.closest(".bpe-player"))) return;
      if (CLICKER.has(event.key)) return; // the slider moves itself by arrows and pages
    }
    if (CLICKER.has(event.key) || event.key === " ") {
      if (target && /^(BUTTON|A|SUMMARY)$/.test(target.tagName)) return; // Space presses what has focus
      if (target?.closest?.(WIDGETS)) return; // a slider, a radio group, a menu: the arrows are theirs
    }
    const player = [...PLAYERS].reverse().find((p) => p.root.isConnected && p.root.offsetParent !== null);
    if (player && player.key(event.key)) event.preventDefault();
  });
  document.addEventListener("pointerdown", (event) => {
    for (const player of PLAYERS) if (!player.root.contains(event.target)) player.flush();
  }, true);
}

// The lesson file is written by the server from the step it holds. A Download clicked right after a step
// (before the server has heard it) waits, busy, until every player's step has come back from the server
// (or WAIT_MS passed), then goes: the file holds the step on screen.
const WAIT_MS = 5000;
function installDownloadWait() {
  if (globalThis.__bpevizDownloadWait) return;
  globalThis.__bpevizDownloadWait = true;
  document.addEventListener("click", (event) => {
    const button = event.target.closest?.(".st-key-snapshot_download button");
    if (!button || button.__bpevizLetGo) return;
    const want = [...PLAYERS].filter((p) => p.root.isConnected && p.heard !== p.step).map((p) => [p, p.step]);
    if (!want.length) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    for (const [player] of want) player.flush();
    button.setAttribute("aria-busy", "true");
    const started = performance.now();
    const check = () => {
      const heard = want.every(([p, step]) => !p.root.isConnected || p.heard === step || p.step !== step);
      if (!heard && performance.now() - started < WAIT_MS) return void setTimeout(check, 25);
      button.removeAttribute("aria-busy");
      button.__bpevizLetGo = true;
      button.click();
      button.__bpevizLetGo = false;
    };
    check();
  }, true);
}

class Player {
  constructor(root, history, data, setStateValue, kind) {
    this.kind = kind;
    this.root = root;
    this.history = history;
    this.digest = data.digest;
    this.send = setStateValue;
    this.labels = data.labels;
    this.n = this.steps();
    this.jump = data.jump;
    this.hold = data.hold ?? null; // an open vote in a live class: no step past this one until the reveal
    this.shownKey = `${kind}:${data.digest}`;
    const shown = SHOWN.get(this.shownKey);
    // the step last shown here stands unless the server moved the step since (a link, a lesson file)
    this.step = Math.min(Math.max(shown && shown.jump === data.jump ? shown.step : data.step, 0), this.last());
    this.sentStep = data.step;
    this.heard = data.step; // the step the server holds (as its last render said)
    this.serverSpeed = data.speed;
    if (CHOSEN.speed !== null && data.speed !== CHOSEN.before) CHOSEN.speed = null; // heard, or moved by the server
    this.speed = CHOSEN.speed ?? (data.speed || 1);
    this.playing = false;
    this.timer = null;
    this.syncTimer = null;
    this.build();
    if (this.step !== this.sentStep) this.schedule(); // the server missed it: tell it again
    if (this.speed !== data.speed) this.send("speed", this.speed);
  }

  steps() {
    return 0;
  }

  last() {
    // the furthest step one may show: the end, or the step a vote holds
    return this.hold === null ? this.n : Math.min(this.hold, this.n);
  }

  receive(data) {
    this.heard = data.step;
    this.labels = data.labels;
    this.serverSpeed = data.speed;
    if (CHOSEN.speed !== null && data.speed === CHOSEN.speed) CHOSEN.speed = null; // the server has it now
    this.root.classList.toggle("bpe-big", !!data.classroom);
    if (this.root.classList.contains("bpe-present") !== !!data.present) {
      this.root.classList.toggle("bpe-present", !!data.present);
      if (this.drawn) this.render(); // presenting lays the corpus under the table
    }
    const hold = data.hold ?? null;
    if (hold !== this.hold) {
      this.hold = hold;
      if (this.playing && hold !== null) this.pause();
      if (this.step > this.last()) this.go(this.last(), false);
      else if (this.drawn) this.render();
    }
    if (data.jump !== this.jump) {
      // the server moved the step (a link, a lesson file, "open in the merge table"); any other
      // step it sends is an echo of one this browser sent, maybe late, and newer clicks stand
      this.jump = data.jump;
      this.sentStep = data.step;
      this.go(data.step, false);
    }
  }

  build() {
    const L = this.labels;
    this.counter = el("span", { class: "bpe-counter", "data-testid": "bpe-counter" });
    const button = (label, shortcut, action, extra = "") =>
      el("button", { class: `bpe-btn ${extra}`, type: "button", "aria-keyshortcuts": shortcut,
                     title: `${label} (${shortcut.replace("ArrowRight", "→").replace("ArrowLeft", "←").split(" ").join(", ")})`,
                     onclick: action }, label);
    this.firstBtn = button(`« ${L.first}`, "Home", () => this.go(0));
    this.prevBtn = button(`◀ ${L.prev}`, "P ArrowLeft PageUp", () => this.go(this.step - 1));
    this.playBtn = button(`▶ ${L.play}`, "K", () => this.toggle(), "bpe-primary");
    this.nextBtn = button(`${L.next} ▶`, "N ArrowRight PageDown Space", () => this.go(this.step + 1));
    this.lastBtn = button(`${L.last} »`, "End", () => this.go(this.last()));
    this.speedSelect = el("select", { class: "bpe-speed", "aria-label": L.speed, title: L.speed,
                                      onchange: () => this.setSpeed(Number(this.speedSelect.value)) });
    for (const s of [0.25, 0.5, 1, 2, 3]) {
      this.speedSelect.append(el("option", { value: String(s), text: fmt(L.seconds_per_step, { s }) }));
    }
    this.speedSelect.value = String(this.speed);
    this.slider = el("input", { type: "range", min: "0", max: String(this.n), value: String(this.step), class: "bpe-slider",
                                "aria-label": L.step, oninput: () => this.go(Number(this.slider.value)) });
    this.bar = el("div", { class: "bpe-controls" }, this.firstBtn, this.prevBtn, this.playBtn, this.nextBtn, this.lastBtn,
                  el("label", { class: "bpe-speed-label" }, el("span", { text: L.speed }), this.speedSelect));
    this.body = el("div", { class: "bpe-body" });
    this.root.replaceChildren(this.bar, el("div", { class: "bpe-scrub" }, this.slider, this.counter), this.body);
    this.render();
  }

  key(name) {
    const actions = { n: () => this.go(this.step + 1), N: () => this.go(this.step + 1), p: () => this.go(this.step - 1),
                      P: () => this.go(this.step - 1), k: () => this.toggle(), K: () => this.toggle(),
                      Home: () => this.go(0), End: () => this.go(this.last()) };
    for (const forward of ["PageDown", " ", "ArrowRight"]) actions[forward] = actions.n;
    for (const back of ["PageUp", "ArrowLeft"]) actions[back] = actions.p;
    if (!actions[name]) return false;
    actions[name]();
    return true;
  }

  go(step, sync = true) {
    const clamped = Math.min(Math.max(Math.round(step), 0), this.last());
    if (this.playing && clamped >= this.last()) this.pause();
    if (clamped === this.step && this.drawn) return;
    this.step = clamped;
    this.render();
    if (sync) this.schedule();
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  play() {
    if (this.hold !== null && this.step >= this.last()) return;
    if (this.step >= this.n) this.go(0);
    this.playing = true;
    this.playBtn.textContent = `❚❚ ${this.labels.pause}`;
    this.timer = setInterval(() => this.go(this.step + 1), this.speed * 1000);
  }

  pause() {
    this.playing = false;
    clearInterval(this.timer);
    this.playBtn.textContent = `▶ ${this.labels.play}`;
    this.flush();
  }

  setSpeed(speed) {
    if (CHOSEN.speed === null) CHOSEN.before = this.serverSpeed;
    CHOSEN.speed = speed;
    this.speed = speed;
    this.send("speed", speed);
    if (this.playing) {
      clearInterval(this.timer);
      this.timer = setInterval(() => this.go(this.step + 1), this.speed * 1000);
    }
  }

  schedule() {
    // tell the server now, then at most every SYNC_MS, and once more when the stepping stops
    if (this.syncTimer) {
      this.pending = true;
      return;
    }
    this.flush();
    this.syncTimer = setTimeout(() => {
      this.syncTimer = null;
      if (this.pending) this.schedule();
    }, SYNC_MS);
  }

  flush() {
    this.pending = false;
    if (this.step !== this.sentStep) {
      this.sentStep = this.step;
      this.send("step", this.step);
    }
  }

  stop() {
    clearInterval(this.timer);
    clearTimeout(this.syncTimer);
  }

  render() {
    this.drawn = true;
    SHOWN.set(this.shownKey, { step: this.step, jump: this.jump });
    this.slider.max = String(this.n);
    this.slider.value = String(this.step);
    this.counter.textContent = `${number(this.step)} / ${number(this.n)}`;
    this.prevBtn.disabled = this.firstBtn.disabled = this.step <= 0;
    this.nextBtn.disabled = this.lastBtn.disabled = this.step >= this.last();
    this.playBtn.disabled = this.hold !== null && this.step >= this.last();
    this.root.classList.toggle("bpe-held", this.hold !== null);
    this.draw();
  }

  draw() {}
}

class TrainPlayer extends Player {
  steps() {
    const h = this.history;
    this.rank = new Map();
    h.merges.forEach((m, k) => this.rank.set(m[0] * SHIFT + m[1], k + 1));
    this.partial = new Set(h.partial);
    this.top = new Map(); // step -> flat [l, r, c, ...]
    this.addTop(h.top);
    this.quizOn = false;
    this.revealed = -1;
    this.guess = null;
    this.highlight = null; // a merge rank chosen by clicking its row
    return h.n;
  }

  addTop(chunk) {
    if (!chunk) return;
    chunk.rows.forEach((row, k) => this.top.set(chunk.start + k, row));
  }

  receive(data) {
    if (data.top) this.addTop(data.top);
    super.receive(data);
    if (data.top && this.drawn) this.render();
  }

  text(id) {
    const h = this.history;
    if (id < h.tokens.length) return h.tokens[id];
    if (h.fallbackStart !== null && id >= h.fallbackStart) return `\\x${(id - h.fallbackStart).toString(16).padStart(2, "0")}`;
    return `#${id}`;
  }

  segment(ids, k) {
    // BPE on one pre-token with the merges of rank <= k, lowest rank first
    let word = ids;
    const { base, merges } = this.history;
    while (word.length > 1) {
      let best = Infinity;
      for (let i = 0; i + 1 < word.length; i++) {
        const r = this.rank.get(word[i] * SHIFT + word[i + 1]);
        if (r !== undefined && r <= k && r < best) best = r;
      }
      if (best === Infinity) break;
      const [a, b] = merges[best - 1];
      const out = [];
      for (let i = 0; i < word.length; i++) {
        if (i + 1 < word.length && word[i] === a && word[i + 1] === b) {
          out.push(base + best - 1);
          i++;
        } else out.push(word[i]);
      }
      word = out;
    }
    return word;
  }

  pairsAt(step) {
    const row = this.top.get(step);
    if (!row) return null;
    const pairs = [];
    for (let i = 0; i + 2 < row.length; i += 3) pairs.push({ left: row[i], right: row[i + 1], count: row[i + 2] });
    return pairs;
  }

  pairText(p) {
    return `${this.text(p.left)} + ${this.text(p.right)}`;
  }

  draw() {
    const L = this.labels;
    const h = this.history;
    const step = this.step;
    const wanted = Math.floor(step / h.chunk);
    if (!this.top.has(step) && this.asked !== wanted) {
      this.asked = wanted;
      this.send("chunk", wanted); // counts for far steps of a long run come on request
    }
    const chosen = this.highlight !== null && this.highlight <= step ? this.highlight : step;
    const left = el("div", { class: "bpe-col" }, el("h3", { text: L.merge_table }), this.quizToggle(), this.table(step, chosen));
    const right = el("div", { class: "bpe-col" }, el("h3", { text: L.pair_counts }), ...this.pairs(step));
    const corpus = [el("h3", { text: L.corpus_now }), this.corpus(step, chosen)];
    if (this.root.classList.contains("bpe-present")) { // one projector screen: the corpus under the table
      left.append(...corpus);
      this.body.replaceChildren(el("div", { class: "bpe-columns" }, left, right));
    } else {
      this.body.replaceChildren(this.metrics(step), el("div", { class: "bpe-columns" }, left, right), ...corpus);
    }
  }

  metrics(step) {
    const L = this.labels;
    const h = this.history;
    const tokensNow = step === 0 ? h.corpusTokens : h.merges[step - 1][3];
    const card = (label, value, extra = null) =>
      el("div", { class: "bpe-metric" }, el("div", { class: "bpe-metric-label", text: label }),
         el("div", { class: "bpe-metric-value", text: value }), extra);
    const cards = []; // the step itself reads beside the slider
    if (tokensNow) {
      const delta = tokensNow - h.corpusTokens;
      cards.push(card(L.tokens_now, number(tokensNow), delta ? el("div", { class: "bpe-delta", text: `↓ ${number(-delta)}` }) : null));
      cards.push(card(L.bpt_now, decimals(h.corpusBytes / tokensNow, 2)));
    }
    cards.push(card(L.vocab_now, number(h.base + step)));
    return el("div", { class: "bpe-metrics", "data-testid": "bpe-metrics" }, ...cards);
  }

  quizToggle() {
    const box = el("input", { type: "checkbox", onchange: () => { this.quizOn = box.checked; this.render(); } });
    box.checked = this.quizOn;
    return el("label", { class: "bpe-toggle" }, box, el("span", { text: this.labels.quiz }));
  }

  table(step, chosen) {
    const L = this.labels;
    const h = this.history;
    if (step === 0) return el("p", { class: "bpe-caption", text: L.no_merge_yet });
    const first = Math.max(1, step - 199);
    const head = el("tr", {}, ...L.table_cols.split("|").map((c) => el("th", { text: c })));
    const body = el("tbody");
    for (let rank = first; rank <= step; rank++) {
      const [a, b, count, , ties] = h.merges[rank - 1];
      const id = h.base + rank - 1;
      const flag = this.partial.has(id) ? " ⚠" : "";
      const tr = el("tr", { class: rank === chosen ? "bpe-row-hl" : "", title: L.click_row, onclick: () => {
        this.highlight = rank;
        this.render();
      } }, el("td", { text: String(rank) }), el("td", { text: `${this.text(a)} + ${this.text(b)} → ${this.text(id)}${flag}` }),
      el("td", { text: h.counted ? number(count) : "–" }),
      el("td", { text: ties ? fmt(ties === 1 ? L.n_tied_one : L.n_tied, { n: ties >= h.maxTies ? `${ties}+` : ties }) : "" }));
      body.append(tr);
    }
    const scroll = el("div", { class: "bpe-scroll" }, el("table", { class: "bpe-table", id: "merge-table" }, el("thead", {}, head), body));
    const notes = [];
    if (first > 1) notes.push(el("p", { class: "bpe-caption", text: fmt(L.rows_window, { first, step }) }));
    if ([...Array(step - first + 1).keys()].some((k) => this.partial.has(h.base + first + k - 1))) {
      notes.push(el("p", { class: "bpe-caption", text: L.partial_flag }));
    }
    keepInView(scroll);
    return el("div", {}, scroll, ...notes);
  }

  pairs(step) {
    const L = this.labels;
    const h = this.history;
    const found = this.pairsAt(step);
    const out = [];
    if (this.hold !== null && step >= this.hold) return [el("p", { class: "bpe-info", "data-testid": "bpe-held", text: L.vote_held })];
    if (step >= h.n) out.push(el("p", { class: "bpe-caption", text: L.all_done }));
    if (found === null) return [...out, el("p", { class: "bpe-caption", text: L.loading })];
    if (found.length === 0) return [...out, el("p", { class: "bpe-info", text: L.no_pair_left })];
    if (this.quizOn && step < h.n && this.revealed !== step) return [...out, ...this.quiz(step, found)];
    if (this.quizOn && step < h.n) out.push(this.verdict(step, found));
    const top = found[0];
    const next = step < h.n ? { left: h.merges[step][0], right: h.merges[step][1] } : top;
    const tied = found.filter((p) => p.count === top.count);
    const max = Math.max(...found.map((p) => p.count), 1);
    const [nextLabel, tiedLabel, otherLabel] = L.legend.split("|");
    const shown = this.root.classList.contains("bpe-present") ? found.slice(0, PRESENTED_PAIRS) : found;
    const rows = shown.map((p) => {
      const kind = p.left === next.left && p.right === next.right ? "next" : p.count === top.count ? "tied" : "other";
      return el("div", { class: `bpe-bar-row bpe-${kind}`, title: `${this.pairText(p)}: ${number(p.count)}` },
                el("span", { class: "bpe-bar-label", text: this.pairText(p) }),
                el("span", { class: "bpe-bar-track" }, el("span", { class: "bpe-bar", style: `width:${(100 * p.count) / max}%` })),
                el("span", { class: "bpe-bar-count", text: number(p.count) }));
    });
    out.push(el("div", { class: "bpe-chart", "data-testid": "bpe-chart" }, ...rows));
    out.push(el("div", { class: "bpe-legend" }, ...[["next", nextLabel], ["tied", tiedLabel], ["other", otherLabel]].map(
      ([kind, label]) => el("span", { class: `bpe-key bpe-${kind}` }, el("i"), el("span", { text: label })))));
    if (tied.length > 1) {
      const n = tied.length >= found.length && found.length >= 12 ? `${tied.length}+` : String(tied.length);
      out.push(el("p", { class: "bpe-ties", text: fmt(L.ties, { n, count: top.count, pair: this.pairText(top) }) }));
    }
    if (h.replay) out.push(el("p", { class: "bpe-caption", text: L.replay_counts }));
    return out;
  }

  quiz(step, found) {
    const L = this.labels;
    const options = [...new Set(found.slice(0, 6).map((p) => this.pairText(p)))].sort();
    const group = el("div", { class: "bpe-quiz", role: "radiogroup", "aria-label": L.your_guess },
                     el("span", { class: "bpe-quiz-label", text: L.your_guess }));
    for (const option of options) {
      const radio = el("input", { type: "radio", name: `guess-${step}`, onchange: () => { this.guess = option; } });
      radio.checked = this.guess === option;
      group.append(el("label", { class: "bpe-option" }, radio, el("span", { text: option })));
    }
    const reveal = el("button", { class: "bpe-btn bpe-primary", type: "button", onclick: () => { this.revealed = step; this.render(); } },
                      L.reveal);
    return [group, reveal, el("p", { class: "bpe-info", text: L.quiz_hidden })];
  }

  verdict(step, found) {
    const L = this.labels;
    const answer = found[0];
    const answerText = this.pairText(answer);
    const tied = new Set(found.filter((p) => p.count === answer.count).map((p) => this.pairText(p)));
    let verdict = "";
    if (this.guess === answerText) verdict = L.quiz_right;
    else if (this.guess && tied.has(this.guess)) verdict = L.quiz_tied;
    else if (this.guess) verdict = fmt(L.quiz_wrong, { guess: this.guess });
    return el("p", { class: "bpe-success", text: `${fmt(L.quiz_answer, { pair: answerText, count: answer.count })} ${verdict}` });
  }

  go(step, sync = true) {
    if (step !== this.step) this.guess = null;
    super.go(step, sync);
  }

  corpus(step, chosen) {
    const L = this.labels;
    const h = this.history;
    const mark = chosen > 0 ? h.base + chosen - 1 : null;
    const memo = new Map();
    let alone = 0;
    const holders = new Set(); // later tokens that hold the chosen one inside them
    const docs = h.window.map((doc) => {
      const row = el("div", { class: "bpe-chips" });
      for (const word of doc) {
        const group = el("span", { class: "bpe-word" }); // a pre-token's chips never part across lines
        row.append(group);
        for (const id of this.segment(word, step)) {
          const dashed = this.partial.has(id) || (h.fallbackStart !== null && id >= h.fallbackStart);
          const inside = mark !== null && id !== mark && this.holds(id, mark, memo);
          if (id === mark) alone += 1;
          if (inside) holders.add(this.text(id));
          const outline = id === mark ? " bpe-hl" : inside ? " bpe-hl-in" : "";
          group.append(el("span", { class: `bpe-chip${dashed ? " bpe-partial" : ""}${outline}`,
                                  style: `background:${hue(id)}`, title: `id ${id}`, text: this.text(id) }));
        }
      }
      return row;
    });
    const notes = [];
    if (h.shownChars < h.totalChars) notes.push(el("p", { class: "bpe-caption", text: fmt(L.showing_chars, { shown: h.shownChars, total: h.totalChars }) }));
    if (mark !== null) notes.push(el("p", { class: "bpe-caption", text: this.outlined(chosen, mark, alone, [...holders]) }));
    return el("div", { class: "bpe-corpus", "data-testid": "bpe-corpus" }, ...docs, ...notes);
  }

  holds(id, mark, memo) {
    // is token `mark` inside token `id`? (a token is built only from older ones, so ids below mark never hold it)
    const h = this.history;
    if (id === mark) return true;
    if (id < mark || id < h.base || (h.fallbackStart !== null && id >= h.fallbackStart)) return false;
    if (!memo.has(id)) {
      const merge = h.merges[id - h.base];
      memo.set(id, merge !== undefined && (this.holds(merge[0], mark, memo) || this.holds(merge[1], mark, memo)));
    }
    return memo.get(id);
  }

  outlined(rank, mark, alone, holders) {
    // the caption under the corpus says what the outline shows, also when the token is only inside longer ones
    const L = this.labels;
    const token = this.text(mark);
    const where = holders.slice(0, 6).join("  ") + (holders.length > 6 ? " …" : "");
    if (alone && holders.length) return `${fmt(L.highlighting, { rank, token })} ${fmt(L.highlighting_also, { where })}`;
    if (alone) return fmt(L.highlighting, { rank, token });
    if (holders.length) return fmt(L.highlighting_inside, { rank, token, where });
    return fmt(L.highlighting_none, { rank, token });
  }
}

class TracePlayer extends Player {
  steps() {
    const h = this.history;
    const text = (id) => h.texts[String(id)] ?? `#${id}`;
    let words = h.words.map((w) => w.slice());
    const piecesOf = (ws) => ws.flat().map(text);
    this.rows = [{ merge: this.labels.start, pieces: piecesOf(words) }];
    for (const [rank, a, b, id] of h.fired) {
      words = words.map((w) => {
        const out = [];
        for (let i = 0; i < w.length; i++) {
          if (i + 1 < w.length && w[i] === a && w[i + 1] === b) {
            out.push(id);
            i++;
          } else out.push(w[i]);
        }
        return out;
      });
      this.rows.push({ merge: `#${rank}: ${text(a)} + ${text(b)}`, pieces: piecesOf(words) });
    }
    return h.fired.length;
  }

  draw() {
    const L = this.labels;
    const head = el("tr", {}, ...L.trace_cols.split("|").map((c) => el("th", { text: c })));
    const body = el("tbody");
    this.rows.slice(0, this.step + 1).forEach((row, k) => {
      body.append(el("tr", { class: k === this.step ? "bpe-row-hl" : "" }, el("td", { text: String(k) }), el("td", { text: row.merge }),
                     el("td", { text: row.pieces.join(" ") }), el("td", { text: String(row.pieces.length) })));
    });
    const scroll = el("div", { class: "bpe-scroll" }, el("table", { class: "bpe-table", id: "trace-table" }, el("thead", {}, head), body));
    const after = fmt(L.after_step, { step: this.step, n: this.rows[this.step].pieces.length }) + (this.step < this.n ? "" : L.no_more);
    const held = this.hold === null ? [] : [el("p", { class: "bpe-info", "data-testid": "bpe-held", text: L.vote_held_trace })];
    this.body.replaceChildren(scroll, el("p", { class: "bpe-caption", "data-testid": "bpe-after", text: after }), ...held);
    keepInView(scroll);
  }
}

class TablePlayer extends Player {
  // WordPiece merges or Unigram pruning rounds: a table that grows a row per step, and the step explained
  steps() {
    return this.history.n;
  }

  draw() {
    const L = this.labels;
    const h = this.history;
    const wordpiece = this.kind === "wordpiece";
    const cols = (wordpiece ? L.wp_cols : L.ug_cols).split("|");
    const head = el("tr", {}, ...cols.map((c) => el("th", { text: c })));
    const body = el("tbody");
    const first = Math.max(1, this.step - 199);
    for (let k = first; k <= this.step; k++) {
      const r = h.rows[k - 1];
      const cells = wordpiece
        ? [String(r[0]), `${r[1]} + ${r[2]} → ${r[3]}`, number(r[4]), significant(r[5], 3), `${r[6]} + ${r[7]} (${number(r[8])})`]
        : [String(r[0]), `${number(r[1])} → ${number(r[2])}`, number(Math.round(r[3])), number(r[4]), r[5].slice(0, 8).join("  ")];
      const row = el("tr", { class: k === this.step ? "bpe-row-hl" : "" }, ...cells.map((c) => el("td", { text: c })));
      if (wordpiece && (r[1] !== r[6] || r[2] !== r[7])) row.classList.add("bpe-row-differs");
      body.append(row);
    }
    const id = wordpiece ? "wordpiece-table" : "unigram-table";
    const scroll = el("div", { class: "bpe-scroll" }, el("table", { class: "bpe-table", id }, el("thead", {}, head), body));
    this.body.replaceChildren(this.metrics(), this.step ? scroll : el("p", { class: "bpe-caption", text: wordpiece ? L.no_merge_yet : L.no_round_yet }),
                              el("p", { class: "bpe-caption", "data-testid": "bpe-detail", text: this.detail() }));
    keepInView(scroll);
  }

  metrics() {
    const L = this.labels;
    const h = this.history;
    const r = this.step ? h.rows[this.step - 1] : null;
    const card = (label, value) => el("div", { class: "bpe-metric" }, el("div", { class: "bpe-metric-label", text: label }),
                                       el("div", { class: "bpe-metric-value", text: value }));
    const cards = [];
    if (this.kind === "wordpiece") {
      const tokens = r ? r[10] : h.corpusTokens;
      cards.push(card(L.tokens_now, number(tokens)));
      if (tokens) cards.push(card(L.bpt_now, decimals(h.corpusBytes / tokens, 2)));
      cards.push(card(L.vocab_now, number(h.base + this.step)));
    } else {
      cards.push(card(L.vocab_now, number(r ? r[2] : h.start)));
      if (r) cards.push(card(L.loglik_now, number(Math.round(r[3]))));
    }
    return el("div", { class: "bpe-metrics", "data-testid": "bpe-metrics" }, ...cards);
  }

  detail() {
    const L = this.labels;
    const h = this.history;
    if (this.kind === "wordpiece") {
      if (!this.step) return "";
      const r = h.rows[this.step - 1];
      const same = r[1] === r[6] && r[2] === r[7];
      return fmt(same ? L.wp_same : L.wp_detail, { wp: `${r[1]} + ${r[2]}`, count: number(r[4]), score: significant(r[5], 3),
                                                   bpe: `${r[6]} + ${r[7]}`, bcount: number(r[8]), bscore: significant(r[9], 3) });
    }
    if (!this.step) return fmt(L.ug_start, { n: number(h.start), final: number(h.final) });
    const r = h.rows[this.step - 1];
    const last = this.step === this.n ? " · " + fmt(L.ug_final, { final: number(h.final) }) : "";
    return fmt(L.ug_detail, { round: r[0], before: number(r[1]), after: number(r[2]), pruned: r[5].slice(0, 12).join("  "),
                              n: number(r[6]) }) + last;
  }
}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  if (data.labels?.locale) LOCALE.name = data.labels.locale;
  const root = parentElement.querySelector(".bpe-player");
  if (!root) return undefined;
  if (data.history) HISTORIES.set(data.digest, data.history);
  const history = HISTORIES.get(data.digest);
  if (!history) {
    root.textContent = data.labels.loading;
    setStateValue("have", null); // we lost it (a reload): ask for it again
    return undefined;
  }
  let player = root.__player;
  if (!player || player.digest !== data.digest || player.kind !== data.kind) {
    player?.stop();
    if (player) PLAYERS.delete(player);
    const Kind = { trace: TracePlayer, wordpiece: TablePlayer, unigram: TablePlayer }[data.kind] ?? TrainPlayer;
    player = root.__player = new Kind(root, history, data, setStateValue, data.kind);
  }
  player.receive(data);
  PLAYERS.add(player);
  installKeys();
  installDownloadWait();
  if (data.history) setStateValue("have", data.digest);
  return () => {
    player.stop();
    PLAYERS.delete(player);
  };
}

// Stepping through merges in the browser: the keys → ← Home End and space,
// the buttons, the slider and Play move the step here, with no round trip to
// the server. The server sent everything a span of steps shows (see
// bpe_core/drawing/training_view.py); this file only picks and joins.
//
// The step is written to the address bar at once (a copied link opens this
// step) and told to the server once the presenter pauses (other views on the
// page follow it), or at once when it leaves the span of steps held here.
// Only a step the server does not know yet is told: a message starts a rerun,
// and one sent unasked (on mount, or after the control is gone) would race
// whatever the presenter does next, such as leaving for another page.
//
// The app mounts this module as a Streamlit component (pages/common/stepper.py);
// a page saved to stand alone mounts it with every step held and no server to
// tell (bpe_core/drawing/standalone.py). Both call the default export alike.

const SETTLE_MS = 600; // a pause this long tells the server the step

const steppers = new WeakMap(); // mount element -> its Stepper, kept across the server's reruns

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  let stepper = steppers.get(parentElement);
  if (!stepper) {
    stepper = new Stepper(parentElement);
    steppers.set(parentElement, stepper);
  }
  stepper.load(data, setStateValue);
  return () => stepper.detach();
}

// The app sends the data packed (bpe_core/drawing/step_control.py `packed`):
// the settings as JSON, a line break, then the view's JSON text, or that text
// gzip-compressed (a training view: a seventh of its size); a saved page
// gives the object itself, the view's JSON text under "view".
const decoder = new TextDecoder();

function settingsOf(data) {
  if (!(data instanceof Uint8Array)) return data;
  return JSON.parse(decoder.decode(data.subarray(0, data.indexOf(10))));
}

// The view's JSON text, or a promise of it while the browser unpacks it.
function viewOf(data, settings) {
  if (!(data instanceof Uint8Array)) return data.view;
  const view = data.subarray(data.indexOf(10) + 1);
  if (!settings.compressed) return decoder.decode(view);
  return new Response(new Blob([view]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
}

class Stepper {
  constructor(root) {
    this.root = root;
    this.step = null; // the step shown; survives new data from the server
    this.playing = false;
    this.onKey = (event) => this.key(event);
  }

  load(data, setStateValue) {
    // This runs again whenever the page sends new data. Data for the same
    // view (the page heard a step and drew the same span) changes nothing.
    this.tell = setStateValue;
    const settings = settingsOf(data);
    if (this.control !== settings.control) {
      // Another control drawn in this place (the presenter chose another
      // training): it starts where the server draws it, and a step left
      // untold by the one before is not told to this one.
      clearTimeout(this.settle);
      this.control = settings.control;
      this.step = null;
    }
    this.known = { step: settings.step, speed: settings.speed }; // what the server drew this run with
    // A server that drew another step than the one shown here turned a
    // report down (it was made for a view the server had moved on from):
    // tell it again, for the view it sent.
    if (this.step !== null && !this.playing && !this.serverKnows()) this.remember();
    if (this.viewKey === settings.viewKey) return; // shown, or being unpacked
    this.viewKey = settings.viewKey;
    const view = viewOf(data, settings);
    if (typeof view === "string") return this.showView(view, settings);
    view.then((text) => this.viewKey === settings.viewKey && this.showView(text, settings)); // unless a newer came
  }

  showView(viewText, settings) {
    if (this.view && this.view.detach) this.view.detach();
    const data = (this.data = { ...JSON.parse(viewText), ...settings });
    this.view = data.kind === "training" ? new TrainingView(this.root, data) : new FramesView(this.root, data);
    if (this.step === null || !this.holds(this.step)) this.step = data.step;
    this.speed = data.speeds.includes(data.speed) ? data.speed : 1;
    this.bindControls();
    document.addEventListener("keydown", this.onKey);
    this.show(this.step);
  }

  detach() {
    document.removeEventListener("keydown", this.onKey);
    this.pause();
    clearTimeout(this.settle); // gone from the page: nothing left to tell
    this.viewKey = null; // a view still being unpacked is not shown
    if (this.view && this.view.detach) this.view.detach();
  }

  holds(step) {
    return step >= this.data.start && step < this.data.start + this.data.held;
  }

  // ------------------------------------------------------------- controls

  bindControls() {
    const $ = (selector) => this.root.querySelector(selector);
    this.slider = $(".stp-slider");
    this.slider.max = this.data.total;
    this.slider.disabled = this.data.total === 0;
    this.slider.oninput = () => this.show(Number(this.slider.value));
    for (const button of this.root.querySelectorAll("[data-move]")) {
      button.onclick = () => this.move(button.dataset.move);
    }
    this.playButton = $(".stp-play");
    this.playButton.hidden = !this.data.playable;
    this.playButton.onclick = () => (this.playing ? this.pause() : this.play());
    const speed = $(".stp-speed");
    speed.hidden = !this.data.playable;
    speed.innerHTML = this.data.speeds.map((s) => `<option value="${s}">${s} / s</option>`).join("");
    speed.value = String(this.speed);
    speed.onchange = () => {
      this.speed = Number(speed.value);
      this.remember();
    };
  }

  move(where) {
    const targets = { first: 0, previous: this.step - 1, next: this.step + 1, last: this.data.total };
    this.show(targets[where]);
  }

  key(event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const path = event.composedPath();
    const typing = path.some((el) => el.matches && el.matches("input, textarea, select, [contenteditable='true']"));
    const inTokens = path.some((el) => el.classList && el.classList.contains("bpe-text"));
    if (typing || inTokens) return;
    const moves = { ArrowRight: "next", ArrowLeft: "previous", Home: "first", End: "last" };
    if (event.key in moves) {
      event.preventDefault();
      this.move(moves[event.key]);
    } else if (event.key === " " && this.data.playable && !path.some((el) => el.tagName === "BUTTON")) {
      event.preventDefault();
      this.playing ? this.pause() : this.play();
    }
  }

  play() {
    if (this.step >= this.data.total) this.show(0);
    this.playing = true;
    this.playButton.textContent = "⏸ Pause";
    // The step follows the clock, not the frames: a slow frame skips ahead
    // rather than slowing the pace.
    const started = performance.now();
    const from = this.step;
    const speed = this.speed;
    const tick = (now) => {
      if (!this.playing) return;
      if (speed !== this.speed) return this.play(); // a new speed starts a new pace from here
      const due = Math.min(from + Math.floor(((now - started) * speed) / 1000), this.data.total);
      if (due > this.step) this.show(due);
      if (this.step >= this.data.total) return this.pause();
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  pause() {
    if (!this.playing) return;
    this.playing = false;
    this.playButton.textContent = "▶ Play";
    this.remember();
  }

  // ------------------------------------------------------------- showing

  show(step) {
    step = Math.min(Math.max(step, 0), this.data.total);
    this.step = step;
    this.slider.value = String(step);
    this.root.querySelector(".stp-position").textContent = `${step.toLocaleString("en")} / ${this.data.total.toLocaleString("en")}`;
    if (this.holds(step)) {
      this.view.show(step);
      this.root.querySelector(".stp").dataset.step = String(step);
      this.remember();
    } else {
      this.view.waiting(step);
      this.tellServer(); // fetch the span of steps around this one
    }
  }

  remember() {
    const url = new URL(window.location.href);
    const { param, speedParam } = this.data;
    this.step ? url.searchParams.set(param, this.step) : url.searchParams.delete(param);
    if (speedParam) this.speed !== 1 ? url.searchParams.set(speedParam, this.speed) : url.searchParams.delete(speedParam);
    window.history.replaceState(window.history.state, "", url);
    clearTimeout(this.settle);
    if (!this.playing && !this.serverKnows()) this.settle = setTimeout(() => this.tellServer(), SETTLE_MS);
  }

  serverKnows() {
    return this.known.step === this.step && this.known.speed === this.speed;
  }

  tellServer() {
    clearTimeout(this.settle);
    this.known = { step: this.step, speed: this.speed };
    // The view it was chosen in goes with it: the server applies a step only to that view.
    this.tell("position", { step: this.step, speed: this.speed, viewKey: this.viewKey });
  }
}

// ----------------------------------------------------------------- views

// Where an element starts on the page (not on the screen): its scrolling
// ancestors' scroll added back, across the shadow root it may sit in.
function pageTop(element) {
  let top = element.getBoundingClientRect().top;
  for (let node = element.parentNode; node; node = node.parentNode || node.host) {
    if (node.scrollTop) top += node.scrollTop;
  }
  return top;
}

const number = (n, digits = 0) => n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

// Training: the merge, the corpus's length, the text as training had it,
// the leading pairs and the newest tokens, at any held step.
class TrainingView {
  constructor(root, data) {
    this.data = data;
    this.view = root.querySelector(".stp-view");
    this.view.innerHTML = TRAINING_LAYOUT;
    this.text = this.view.querySelector(".trn-text");
    this.text.onpointerover = this.text.onfocusin = (event) => this.card(event.target);
    this.text.onkeydown = (event) => this.walk(event);
    this.drawCurve();
    // The text and the pairs end at the bottom of the window: on a projector
    // the whole view fits above the fold, scrolling inside itself.
    this.fit = () => this.fitToWindow();
    window.addEventListener("resize", this.fit);
    this.settling = new ResizeObserver(this.fit); // the page above may still be laid out
    this.settling.observe(this.view.closest(".stp"));
    this.settling.observe(document.body);
  }

  fitToWindow() {
    const least = 12 * parseFloat(getComputedStyle(document.documentElement).fontSize);
    for (const panel of [this.text, this.view.querySelector(".trn-side")]) {
      panel.style.maxHeight = `${Math.max(window.innerHeight - pageTop(panel) - 16, least)}px`;
    }
  }

  detach() {
    window.removeEventListener("resize", this.fit);
    this.settling.disconnect();
  }

  show(step) {
    const d = this.data;
    const merge = step ? d.merges[step - d.start] : null;
    const $ = (selector) => this.view.querySelector(selector);
    const units = d.units === "bytes" ? "byte" : "character";
    // SuperBPE's stages, BoundlessBPE's supermerges and Picky BPE's removals come with headings of their own.
    const heading = d.headings && d.headings[step - d.start];
    const chips = d.chips && d.chips[step - d.start];
    $(".trn-heading").innerHTML = heading || (merge
      ? `<b>Merge ${number(step)} of ${number(d.total)}</b> — the pair occurred <b>${number(merge[3])}</b> times`
      : `<b>Step 0</b> — no merges yet: every ${units} is its own token`);
    $(".trn-chips").innerHTML = chips || (merge
      ? `${this.chip(merge[0])}<span class="bpe-op">+</span>${this.chip(merge[1])}<span class="bpe-op">→</span>${this.chip(merge[2])}`
      : "");
    this.showMetrics(step, merge);
    this.showText(step, merge);
    this.showPairs(step);
    this.showVocabulary(step);
    this.marker.setAttribute("x1", (1000 * step) / Math.max(d.total, 1));
    this.marker.setAttribute("x2", (1000 * step) / Math.max(d.total, 1));
  }

  waiting(step) {
    this.view.querySelector(".trn-heading").innerHTML = `<b>Step ${number(step)} of ${number(this.data.total)}</b> — fetching this part of the run…`;
  }

  chip(id) {
    const [label, colour] = this.data.labels[id];  // colour: its class, bpe-c0 ... bpe-c8
    return `<span class="bpe-chip ${colour}">${label}<small>${id}</small></span>`;
  }

  showMetrics(step, merge) {
    const d = this.data;
    const tokens = merge ? merge[4] : d.initialTokens;
    const change = step ? ` <small>${number((100 * (tokens - d.initialTokens)) / d.initialTokens, 1)}%</small>` : "";
    const values = [
      number(tokens) + change,
      number(d.corpusBytes / tokens, 2),
      number(d.corpusChars / tokens, 2),
      number(d.vocabSizes ? d.vocabSizes[step - d.start] : d.firstMergeId + step),
    ];
    this.view.querySelectorAll(".trn-metric b").forEach((cell, index) => (cell.innerHTML = values[index]));
  }

  showText(step, merge) {
    // Each stretch of text sits in a box of its own; a step redraws only the
    // stretches whose tokens changed (a merge touches a few words).
    if (!this.boxes) this.layOutText();
    this.data.stretches.forEach(([, , versions], index) => {
      let fragment = versions[0][1];
      for (const [fromStep, version] of versions) if (fromStep <= step) fragment = version;
      if (this.shown[index] !== fragment) {
        this.boxes[index].innerHTML = fragment.map((part) => this.data.fragments[part]).join("");
        this.shown[index] = fragment;
      }
    });
    this.text.querySelectorAll(".bpe-new").forEach((el) => el.classList.remove("bpe-new"));
    if (merge) this.text.querySelectorAll(`[data-id="${merge[2]}"]`).forEach((el) => el.classList.add("bpe-new"));
    this.view.querySelector(".trn-text-caption").innerHTML =
      `<b>Training text after ${number(step)} ${this.data.stepWord || "merges"}</b> (${this.data.textNote}) — this step's new token is outlined`;
  }

  layOutText() {
    const parts = [];
    let open = false;
    this.data.stretches.forEach(([rtl, mayBreak], index) => {
      if (mayBreak) parts.push("<wbr>");
      if (rtl && !open) parts.push('<span class="bpe-rtl" dir="rtl">');
      if (!rtl && open) parts.push("</span>");
      open = Boolean(rtl);
      parts.push(`<span class="trn-stretch" data-stretch="${index}"></span>`);
    });
    if (open) parts.push("</span>");
    this.text.innerHTML = parts.join("");
    this.boxes = [...this.text.querySelectorAll(".trn-stretch")];
    this.shown = [];
  }

  showPairs(step) {
    const ranking = this.data.pairs[step - this.data.start] || [];
    const which = this.data.pairsNone ? "" : step < this.data.total ? `before merge ${number(step + 1)}` : "after the last merge";
    this.view.querySelector(".trn-pairs-caption").innerHTML = `<b>Most frequent pairs</b> ${which} (${this.data.pairsNote})`;
    this.view.querySelector(".trn-pairs tbody").innerHTML = ranking.length
      ? ranking.map(([left, right, count], i) => `<tr><td>${i + 1}</td><td>${this.chip(left)} ${this.chip(right)}</td><td>${number(count)}</td></tr>`).join("")
      : `<tr><td colspan="3">${this.data.pairsNone || "No pair is left to merge."}</td></tr>`;
  }

  showVocabulary(step) {
    const d = this.data;
    const newest = [];
    if (d.madeIds) {
      // Picky BPE: a step may remove a token; the newest ones still there
      for (let s = step; s > Math.max(0, step - 80, d.start - 1); s--) {
        const made = d.madeIds[s - d.start];
        if (made !== null && !(d.removedBy[made] <= step)) newest.push(this.chip(made));
      }
    } else for (let s = step; s > Math.max(0, step - 80); s--) newest.push(this.chip(d.firstMergeId + s - 1));
    const learned = d.vocabSizes ? d.vocabSizes[step - d.start] - d.firstMergeId : step;
    this.view.querySelector(".trn-vocab-caption").innerHTML = `<b>Learned tokens</b> (${number(learned)}, newest first)`;
    this.view.querySelector(".trn-vocab").innerHTML = newest.join("") || "None yet.";
  }

  drawCurve() {
    const points = this.data.curve;
    const most = Math.max(...points.map((p) => p[1]));
    const least = Math.min(...points.map((p) => p[1]));
    const x = (step) => (1000 * step) / Math.max(this.data.total, 1);
    const y = (tokens) => 95 - (90 * (tokens - least)) / Math.max(most - least, 1);
    const svg = this.view.querySelector(".trn-curve");
    svg.querySelector("polyline").setAttribute("points", points.map(([s, t]) => `${x(s)},${y(t)}`).join(" "));
    this.marker = svg.querySelector("line");
  }

  card(target) {
    const token = target.closest && target.closest(".bpe-tok");
    if (token && !token.dataset.card && this.data.cards[token.dataset.id]) token.dataset.card = this.data.cards[token.dataset.id];
  }

  walk(event) {
    const tokens = [...this.text.querySelectorAll(".bpe-tok")];
    const at = tokens.indexOf(event.target);
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    (tokens[Math.min(Math.max(next, 0), tokens.length - 1)] || this.text).focus();
  }
}

const TRAINING_LAYOUT = `
<div class="trn-merge"><div class="trn-heading"></div><div class="trn-chips bpe-chips bpe-merge"></div></div>
<div class="trn-numbers">
  <div class="trn-metric">Corpus tokens<b></b></div>
  <div class="trn-metric">Bytes per token<b></b></div>
  <div class="trn-metric">Characters per token<b></b></div>
  <div class="trn-metric">Vocabulary<b></b></div>
  <svg class="trn-curve" viewBox="0 0 1000 100" preserveAspectRatio="none" role="img" aria-label="Corpus tokens after each merge">
    <polyline fill="none" stroke="#225588" stroke-width="2" vector-effect="non-scaling-stroke"></polyline>
    <line y1="0" y2="100" stroke="#111" stroke-width="2" vector-effect="non-scaling-stroke"></line>
  </svg>
</div>
<div class="trn-main">
  <div class="trn-text-column">
    <div class="trn-text-caption"></div>
    <div class="bpe-text trn-text" tabindex="0"></div>
  </div>
  <div class="trn-side">
    <div class="trn-pairs-caption"></div>
    <table class="trn-pairs"><thead><tr><th>#</th><th>pair</th><th>count</th></tr></thead><tbody></tbody></table>
    <div class="trn-vocab-caption"></div>
    <div class="bpe-chips bpe-vocab trn-vocab"></div>
  </div>
</div>`;

// Frames: one ready view per step (Encode replay's merges, each drawn by the
// server), and below them every step as a row, the current one marked.
class FramesView {
  constructor(root, data) {
    this.data = data;
    this.view = root.querySelector(".stp-view");
    this.view.innerHTML = `<div class="frm-heading"></div><div class="frm-body"></div><div class="frm-table">${data.table}</div>`;
  }

  show(step) {
    this.view.querySelector(".frm-heading").innerHTML = this.data.headings[step];
    this.view.querySelector(".frm-body").innerHTML = this.data.frames[step];
    for (const row of this.view.querySelectorAll(".frm-table [data-step]")) {
      row.classList.toggle("bpe-current", Number(row.dataset.step) === step);
    }
  }

  waiting() {} // every step is held
}

// A talk deck in the browser: one slide at a time in a frame, moved by the
// clicker's keys (Page Down, Page Up), → and ←, Home and End, or the buttons;
// "3 / 12" says where the talk is, and a speaker view (a window of its own,
// for the laptop's screen) shows the note and what comes next.
//
// A slide's own page keeps its keys (→ steps merges on Train once clicked
// into); Page Down and Page Up inside it come here by message (see
// bpe_core/drawing/deck.py, DECK_KEYS_JS). The address keeps the slide shown.
//
// The app mounts this module as a Streamlit component (pages/deck.py); a deck
// saved as a page mounts it with a few lines (bpe_core/drawing/standalone.js).

const decks = new WeakMap(); // mount element -> its Deck, kept across the server's reruns

export default function (component) {
  const { data, parentElement } = component;
  let deck = decks.get(parentElement);
  if (!deck) {
    deck = new Deck(parentElement);
    decks.set(parentElement, deck);
  }
  deck.load(data);
  return () => deck.detach();
}

const MOVES = { PageDown: "next", ArrowRight: "next", PageUp: "previous", ArrowLeft: "previous", Home: "first", End: "last" };

class Deck {
  constructor(root) {
    this.root = root;
    this.index = null;
    this.onKey = (event) => this.key(event);
    this.onMessage = (event) => this.message(event);
    this.fit = () => this.fitToWindow();
    this.settling = new ResizeObserver(this.fit); // the page above may still be laid out
  }

  load(data) {
    const slides = JSON.stringify(data.slides);
    if (this.slides === slides) return; // the same deck again: the slide shown stays
    this.slides = slides;
    this.data = data;
    const $ = (selector) => this.root.querySelector(selector);
    this.frame = $(".dk-frame");
    for (const button of this.root.querySelectorAll("[data-move]")) button.onclick = () => this.move(button.dataset.move);
    $(".dk-speaker-button").onclick = () => this.openSpeakerView();
    window.addEventListener("keydown", this.onKey, true); // before the page's own keys (Page Down leaves the page)
    window.addEventListener("message", this.onMessage);
    window.addEventListener("resize", this.fit);
    this.settling.observe(document.body);
    this.show(this.index === null ? data.slide : this.index);
  }

  detach() {
    window.removeEventListener("keydown", this.onKey, true);
    window.removeEventListener("message", this.onMessage);
    window.removeEventListener("resize", this.fit);
    this.settling.disconnect();
  }

  key(event, fromSpeakerView = false) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || !(event.key in MOVES)) return;
    const path = event.composedPath();
    if (!fromSpeakerView && path.some((el) => el.matches && el.matches("input, textarea, select, [contenteditable='true']"))) return;
    event.preventDefault();
    event.stopPropagation();
    this.move(MOVES[event.key]);
  }

  message(event) {
    // Only the slide's frame and the speaker view may move the deck.
    if (event.source !== this.frame.contentWindow && event.source !== this.speaker) return;
    const move = event.data && event.data.bpeDeck;
    if (move === "next" || move === "previous") this.move(move);
  }

  move(where) {
    const last = this.data.slides.length - 1;
    const targets = { first: 0, previous: this.index - 1, next: this.index + 1, last };
    this.show(targets[where]);
  }

  show(index) {
    const slides = this.data.slides;
    index = Math.min(Math.max(index, 0), slides.length - 1);
    const slide = slides[index];
    if (index !== this.index || slide.src !== this.src) { // another slide, or this one's link edited
      const first = this.index === null;
      this.index = index;
      this.src = slide.src;
      if (!slide.src) this.frame.removeAttribute("src");
      else if (first && window.requestIdleCallback) this.loadWhenDrawn(slide.src);
      else this.frame.src = slide.src;
    }
    const $ = (selector) => this.root.querySelector(selector);
    $(".dk").dataset.slide = String(index + 1);
    $(".dk-position").textContent = `${index + 1} / ${slides.length}`;
    $(".dk-title").textContent = slide.title;
    $(".dk-unplayable").hidden = Boolean(slide.src);
    $(".dk-unplayable").textContent = slide.src ? "" : `“${slide.link}” is a saved page: it plays when the deck is saved as a page too.`;
    this.frame.hidden = !slide.src;
    const url = new URL(window.location.href); // a copied address opens this slide
    index ? url.searchParams.set(this.data.param, index + 1) : url.searchParams.delete(this.data.param);
    window.history.replaceState(window.history.state, "", url);
    this.showInSpeakerView();
    this.fitToWindow();
  }

  // The first slide's page loads once the deck's own page has drawn: a frame of
  // the same site shares the browser's main thread, so loading both at once
  // would draw each later.
  loadWhenDrawn(src) {
    window.requestIdleCallback(() => { if (this.src === src && !this.frame.src) this.frame.src = src; }, { timeout: 1000 });
  }

  fitToWindow() {
    const top = this.frame.getBoundingClientRect().top + window.scrollY;
    this.frame.style.height = `${Math.max(window.innerHeight - top - 8, 240)}px`;
  }

  // ------------------------------------------------------- speaker view

  openSpeakerView() {
    const speaker = window.open("", "bpe-deck-speaker", "width=760,height=520");
    if (!speaker) {
      this.root.querySelector(".dk-title").textContent = "The browser blocked the speaker view's window: allow pop-ups here.";
      return;
    }
    this.speaker = speaker;
    speaker.document.title = "Speaker view";
    speaker.document.body.innerHTML = SPEAKER_HTML;
    speaker.document.addEventListener("keydown", (event) => this.key(event, true));
    for (const button of speaker.document.querySelectorAll("[data-move]")) button.onclick = () => this.move(button.dataset.move);
    this.showInSpeakerView();
  }

  showInSpeakerView() {
    const speaker = this.speaker;
    if (!speaker || speaker.closed) return;
    const slides = this.data.slides;
    const slide = slides[this.index];
    const next = slides[this.index + 1];
    const $ = (selector) => speaker.document.querySelector(selector);
    $(".sp-position").textContent = `${this.index + 1} / ${slides.length}`;
    $(".sp-title").textContent = slide.title || slide.link;
    $(".sp-note").textContent = slide.note || "(no note)";
    $(".sp-next").textContent = next ? `Next: ${next.title || next.link}` : "This is the last slide.";
  }
}

const SPEAKER_HTML = `
<style>
  body { font: 22px/1.4 system-ui, sans-serif; margin: 1.2em; color: #111; }
  .sp-position { font-size: 2.4em; font-weight: 700; font-variant-numeric: tabular-nums; }
  .sp-title { font-size: 1.3em; font-weight: 600; margin: 0.2em 0 0.6em; }
  .sp-note { white-space: pre-wrap; border-left: 4px solid #225588; padding-left: 0.7em; min-height: 3em; }
  .sp-next { color: #444; margin-top: 1em; }
  button { font: inherit; padding: 0.2em 0.8em; margin-right: 0.4em; }
</style>
<div><button type="button" data-move="previous">◀ Previous</button><button type="button" data-move="next">Next ▶</button></div>
<div class="sp-position"></div><div class="sp-title"></div><div class="sp-note"></div><div class="sp-next"></div>`;

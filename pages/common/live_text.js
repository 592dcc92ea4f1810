// A text box whose text reaches the page as it is typed: a short pause in
// typing (or Ctrl+Enter, or leaving the box) sends it, and the page's views
// follow. The box is never rewritten under the typist: a value from the
// server replaces what is typed only when the page changed the text itself
// (a quirk opened in Inspect, another page's text), never when it is the echo
// of something typed here. An echo can come late: on a busy server the run
// for an earlier pause may draw the box after a later pause was sent, and
// taking its text back would lose what was typed since.

const PAUSE_MS = 250;
const ECHOES_KEPT = 20; // how many of its last sends a box recognizes when they come back

const boxes = new WeakMap(); // mount element -> {last: the text last sent or set, sent: the last sends}

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const box = parentElement.querySelector("textarea");
  const label = parentElement.querySelector("label");
  label.textContent = data.label;
  box.style.height = `${data.height}px`;
  box.placeholder = data.placeholder || "";
  let state = boxes.get(parentElement);
  if (state === undefined) {
    state = { last: data.value, sent: [] };
    boxes.set(parentElement, state);
    box.value = data.value;
  } else if (data.value !== box.value && data.value !== state.last && !state.sent.includes(data.value)) {
    box.value = data.value; // the page's own text
    state.last = data.value;
    state.sent = [];
  }

  let pause;
  const send = () => {
    clearTimeout(pause);
    if (box.value === state.last) return;
    state.last = box.value;
    state.sent = [...state.sent.slice(1 - ECHOES_KEPT), box.value];
    setStateValue("text", box.value);
  };
  const typed = () => {
    clearTimeout(pause);
    pause = setTimeout(send, PAUSE_MS);
  };
  const keys = (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      send();
    }
  };
  // Assigned, not added: this function runs again whenever the page sends a
  // new value, and each run's handlers replace the last run's.
  box.oninput = typed;
  box.onkeydown = keys;
  box.onblur = send;
  return () => clearTimeout(pause);
}

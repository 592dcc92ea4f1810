// A text box whose text reaches the page as it is typed: a short pause in
// typing (or Ctrl+Enter, or leaving the box) sends it, and the page's views
// follow. The box is never rewritten under the typist: a value from the
// server replaces what is typed only when the page changed the text itself
// (a quirk opened in Inspect, another page's text).

const PAUSE_MS = 250;

const boxes = new WeakMap(); // mount element -> what this box last sent

export default function (component) {
  const { data, parentElement, setStateValue } = component;
  const box = parentElement.querySelector("textarea");
  const label = parentElement.querySelector("label");
  label.textContent = data.label;
  box.style.height = `${data.height}px`;
  box.placeholder = data.placeholder || "";
  const sent = boxes.get(parentElement);
  if (sent === undefined || (data.value !== sent && data.value !== box.value)) {
    box.value = data.value;
    boxes.set(parentElement, data.value);
  }

  let pause;
  const send = () => {
    clearTimeout(pause);
    if (box.value === boxes.get(parentElement)) return;
    boxes.set(parentElement, box.value);
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

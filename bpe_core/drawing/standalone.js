// A saved page's own script: presenter sizing, and the host of the step
// control (on a page with steps) or of a deck. The app's server hands them
// their data through Streamlit; here the page holds it (every step at once,
// so the control never waits for a span of steps and has no server to tell).

function presenter() {
  const button = document.querySelector(".sa-present");
  const set = (on) => {
    document.documentElement.classList.toggle("sa-presenting", on);
    button.setAttribute("aria-pressed", String(on));
    const url = new URL(window.location.href); // the address keeps it, as the app's ?present=true
    on ? url.searchParams.set("present", "true") : url.searchParams.delete("present");
    window.history.replaceState(window.history.state, "", url);
  };
  button.onclick = () => set(!document.documentElement.classList.contains("sa-presenting"));
  set(new URL(window.location.href).searchParams.get("present") === "true");
}

function hostStepControl(mount) {
  const settings = JSON.parse(document.getElementById("sa-settings").textContent);
  const view = document.getElementById("sa-view").textContent; // JSON text, as the app's server sends it
  // The address may ask for a step (and Play's speed), as the app's links do;
  // the control itself keeps the step within the run.
  const asked = new URL(window.location.href).searchParams;
  const step = asked.get(settings.param);
  if (step !== null && /^[0-9]{1,9}$/.test(step)) settings.step = Number(step);
  const speed = Number(asked.get(settings.speedParam));
  if (settings.speeds.includes(speed)) settings.speed = speed;
  const parentElement = document.querySelector(".sa-control");
  mount({ data: { ...settings, view }, parentElement, setStateValue: () => {} });
}

function hostDeck(mount) {
  const data = JSON.parse(document.getElementById("sa-settings").textContent);
  const asked = new URL(window.location.href).searchParams.get(data.param); // 1 for the first slide
  if (asked !== null && /^[0-9]{1,4}$/.test(asked)) data.slide = Number(asked) - 1;
  mount({ data, parentElement: document.querySelector(".sa-deck") });
}

presenter();
if (typeof mountStepControl === "function") hostStepControl(mountStepControl);
if (typeof mountDeck === "function") hostDeck(mountDeck);

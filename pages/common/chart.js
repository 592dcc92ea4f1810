// A plotly figure, drawn by a partial plotly.js (static/plotly/: the trace
// types the playground draws, about a third of the full library). Streamlit's
// own chart element loads the full plotly.js (4.7 MB) only once the chart
// arrives and evaluates it on every page load, a second of a busy main thread;
// this bundle is a static file the browser caches, its integrity checked
// (chart_bundle.js, put before this file by chart.py), loaded by the first
// chart that draws with it. A chart whose drawing the app ships (`preview`,
// SVG that this code drew when the app was built) shows it at once and loads
// plotly.js once the browser is idle.
//
// The figure comes as plotly.py's JSON: its text is drawn by plotly as text
// (labels and hover texts are escaped by the drawing code where plotly reads a
// little HTML), never inserted as markup here. Streamlit's chart look is
// applied as Streamlit's chart element applies it: its template's placeholder
// colours and its layout defaults, from the app's theme.

// ------------------------------------------------------------------ theme

const LIGHT = { grid: "#e6eaf1", text: "#808495", legend: "#31333f", green: "#158237", red: "#bd4043", blue: "#0054a3",
  faded: "rgba(49, 51, 63, 0.05)", mix: "rgba(248, 249, 251, 1)" };
const DARK = { grid: "#31333f", text: "#a3a8b8", legend: "#e6eaf1", green: "#21c354", red: "#ff6c6c", blue: "#60b4ff",
  faded: "rgba(250, 250, 250, 0.05)", mix: "rgba(26, 28, 36, 1)" };

function isDark(colour) {
  const probe = document.createElement("canvas").getContext("2d");
  probe.fillStyle = colour;
  const hex = probe.fillStyle; // normalised to #rrggbb (or rgba())
  const [r, g, b] = hex.startsWith("#")
    ? [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16))
    : hex.match(/\d+/g).map(Number);
  return 0.299 * r + 0.587 * g + 0.114 * b < 128;
}

/** The app's theme, from the CSS variables Streamlit gives a component. */
function appTheme(element) {
  const style = getComputedStyle(element);
  const read = (name, fallback) => style.getPropertyValue(`--st-${name}`).trim() || fallback;
  const background = read("background-color", "#ffffff");
  const shades = isDark(background) ? DARK : LIGHT;
  const list = (name) => read(name, "").split(",").map((colour) => colour.trim()).filter(Boolean);
  return {
    ...shades,
    background,
    heading: read("heading-color", read("text-color", "#31333f")),
    border: read("border-color", "rgba(49, 51, 63, 0.2)"),
    font: read("font", '"Source Sans", sans-serif'),
    headingFont: read("heading-font", read("font", '"Source Sans", sans-serif')),
    categorical: list("chart-categorical-colors"),
    sequential: list("chart-sequential-colors"),
    diverging: list("chart-diverging-colors"),
  };
}

/** plotly.py's "streamlit" template names its colours #000001..#000040; the app's theme gives them. */
function themedSpec(specJson, theme) {
  const named = {};
  theme.categorical.slice(0, 10).forEach((colour, i) => { named[i + 1] = colour; });
  theme.sequential.slice(0, 10).forEach((colour, i) => { named[i + 11] = colour; });
  theme.diverging.slice(0, 10).forEach((colour, i) => { named[i + 21] = colour; });
  Object.assign(named, { 32: theme.green, 33: theme.red, 34: theme.blue, 35: theme.grid, 36: theme.text,
    37: theme.legend, 38: theme.background, 39: theme.faded, 40: theme.mix });
  const themed = specJson.replace(/"#0000([0-4]\d)"/g, (found, number) => {
    const colour = named[Number(number)];
    return colour ? JSON.stringify(colour) : found;
  });
  return JSON.parse(themed);
}

function merge(base, extra) {
  for (const [name, value] of Object.entries(extra)) {
    const kept = base[name];
    if (kept && typeof kept === "object" && !Array.isArray(kept) && value && typeof value === "object") merge(kept, value);
    else if (kept === undefined) base[name] = value;
  }
  return base;
}

/** Streamlit's chart look, as its chart element sets it: under the figure's own layout, in its template. */
function streamlitLook(figure, theme) {
  const layout = (figure.layout ??= {});
  const template = (layout.template ??= {});
  const look = (template.layout ??= {});
  const font = (size, color = theme.text) => ({ color, size, family: theme.font });
  merge(look, {
    font: { ...font(12), weight: 400 },
    title: { font: { family: theme.headingFont, size: 16, color: theme.heading }, x: 0, xanchor: "left", pad: { l: 2 } },
    legend: { title: { font: font(12), side: "top" }, valign: "top", bordercolor: "rgba(0,0,0,0)", borderwidth: 0,
      font: { size: 12, color: theme.legend } },
    paper_bgcolor: theme.background,
    plot_bgcolor: theme.background,
    yaxis: { ticklabelposition: "outside", zerolinecolor: theme.grid, title: { font: font(14), standoff: 24 },
      tickcolor: theme.grid, tickfont: font(12), gridcolor: theme.grid, minor: { gridcolor: theme.grid }, automargin: true },
    xaxis: { zerolinecolor: theme.grid, gridcolor: theme.grid, showgrid: false, tickfont: font(12), tickcolor: theme.grid,
      title: { font: font(14), standoff: 20 }, minor: { gridcolor: theme.grid }, zeroline: false, automargin: true },
    margin: { pad: 8, r: 0, l: 0 },
    hoverlabel: { bgcolor: theme.background, bordercolor: theme.border, font: font(12) },
    coloraxis: { colorbar: { thickness: 16, xpad: 24, ticklabelposition: "outside", outlinecolor: "rgba(0,0,0,0)",
      outlinewidth: 8, len: 0.75, y: 0.5745, title: { font: font(14) }, tickfont: font(12) } },
  });
  const title = layout.title;
  if (typeof title === "string" && title) layout.title = { text: `<b>${title}</b>` };
  else if (title && typeof title.text === "string" && title.text) title.text = `<b>${title.text}</b>`;
  return figure;
}

// ------------------------------------------------------------------ clicks

/** What a click on points tells the page, in the shape st.plotly_chart's selection has. */
function selection(event) {
  const points = (event?.points ?? []).map((point) => {
    const told = { curve_number: point.curveNumber, point_number: point.pointNumber, point_index: point.pointIndex };
    for (const name of ["x", "y", "z", "lat", "lon", "location", "text", "hovertext", "customdata", "marker_color"]) {
      const value = name === "marker_color" ? point["marker.color"] : point[name];
      if (value !== undefined) told[name] = value;
    }
    return told;
  });
  return { points, point_indices: points.map((point) => point.point_index), box: [], lasso: [] };
}

// ------------------------------------------------------------------ the component

/** Calls `then` once Streamlit's script run has finished (the rest of the page has arrived). */
function afterTheRun(then) {
  const app = document.querySelector('[data-testid="stApp"]');
  const finished = () => !app || app.dataset.testScriptState !== "running";
  if (finished()) return then();
  const watching = new MutationObserver(() => {
    if (!finished()) return;
    watching.disconnect();
    then();
  });
  watching.observe(app, { attributes: true, attributeFilter: ["data-test-script-state"] });
}

/** Calls `then` once the browser is idle (after a short wait where it cannot say: Safari); a function cancels it. */
function whenIdle(then) {
  if (!window.requestIdleCallback) {
    const waiting = setTimeout(then, 200);
    return () => clearTimeout(waiting);
  }
  const waiting = requestIdleCallback(then, { timeout: 3000 });
  return () => cancelIdleCallback(waiting);
}

/** One chart element, across the script runs that send it data: Streamlit runs this module's
 * function again for each run's data, and runs only the last cleanup, as the chart leaves the page. */
class Chart {
  constructor(chart) {
    this.chart = chart;
    this.shown = null; // what is drawn, or being drawn: the data's text and the theme
    this.cancelIdle = null;
    this.stopped = false;
    // The column's width, followed as it changes (the sidebar, the window).
    this.width = chart.clientWidth;
    this.resized = new ResizeObserver(() => {
      if (chart.dataset.state !== "drawn" || chart.clientWidth === this.width || !chart.clientWidth) return;
      this.width = chart.clientWidth;
      window.Plotly.relayout(chart, { width: this.width });
    });
    this.resized.observe(chart);
  }

  show(component) {
    this.tell = component.setStateValue;
    const text = new TextDecoder().decode(component.data); // chart.py sends it as JSON bytes
    const theme = appTheme(this.chart);
    const shown = text + JSON.stringify(theme);
    if (shown === this.shown) return; // a rerun that changed nothing here: the chart stays as the visitor left it
    const first = this.shown === null;
    this.shown = shown;
    const data = (this.data = JSON.parse(text));
    const chart = this.chart;
    chart.style.height = `${data.height}px`; // the chart's place is kept while plotly.js loads
    this.cancelIdle?.();
    this.cancelIdle = null;
    if (first && data.preview && !isDark(theme.background)) {
      // The figure as this component drew it when the app was built (chart.py, `previews`): shown at
      // once, on the page's first view; plotly.js draws it again, to hover and click, once the page
      // has drawn and the browser is idle.
      chart.innerHTML = data.preview; // the app's own file, never a visitor's text
      const svg = chart.querySelector("svg");
      svg.setAttribute("width", "100%");
      svg.setAttribute("height", "100%");
      chart.dataset.state = "preview";
      afterTheRun(() => {
        if (this.data !== data || this.stopped) return;
        this.cancelIdle = whenIdle(() => { this.cancelIdle = null; this.load(data); });
      });
    } else {
      chart.dataset.state = "loading";
      this.load(data);
    }
  }

  load(data) {
    loadPlotly().then((Plotly) => this.draw(Plotly, data), (error) => this.failed(error));
  }

  draw(Plotly, data) {
    if (this.data !== data || this.stopped) return; // newer data came, or the chart has gone
    const chart = this.chart;
    const theme = appTheme(chart);
    const figure = streamlitLook(themedSpec(data.spec, theme), theme);
    const layout = figure.layout;
    layout.height = data.height;
    layout.width = chart.clientWidth || undefined;
    layout.autosize = false;
    if (data.selectable) {
      layout.clickmode ??= "event+select";
      layout.hovermode ??= "closest";
      layout.dragmode ??= "pan";
    }
    const config = { displaylogo: false, showSendToCloud: false, responsive: false,
      modeBarButtonsToRemove: ["lasso2d", "select2d", "sendChartToCloud"], ...data.config };
    if (chart.dataset.state === "preview") {
      Plotly.purge(chart); // plotly.js draws afresh where the shipped drawing is
      chart.replaceChildren();
    }
    Plotly.react(chart, figure.data, layout, config).then(() => {
      if (this.data !== data || this.stopped) return;
      chart.dataset.state = "drawn"; // for tests and benchmarks: a page is drawn once no chart is "loading"
      if (data.selectable) {
        chart.removeAllListeners?.("plotly_click");
        chart.on("plotly_click", (event) => this.tell("selection", selection(event)));
      }
    });
  }

  failed(error) {
    const chart = this.chart;
    if (chart.dataset.state === "preview") chart.title = String(error.message); // the drawing stays, without hover
    else {
      chart.textContent = String(error.message);
      chart.classList.add("bpe-chart-error");
    }
    chart.dataset.state = "failed";
  }

  stop() {
    this.stopped = true;
    this.cancelIdle?.();
    this.resized.disconnect();
  }
}

const charts = new WeakMap(); // chart element -> its Chart

export default function (component) {
  const element = component.parentElement.querySelector(".bpe-chart");
  let chart = charts.get(element);
  if (!chart) charts.set(element, (chart = new Chart(element)));
  chart.show(component);
  return () => {
    chart.stop();
    charts.delete(element);
  };
}

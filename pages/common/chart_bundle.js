// The partial plotly.js (static/plotly/), loaded once per page load: a
// static file the browser caches, its integrity checked. Shared by the chart
// component (chart.js), which loads it, and by the frame of a page without
// charts, which fetches it into the cache for the chart pages visited next
// (chart.py, `bundle_html`).

const BUNDLE_URL = "app/static/plotly/plotly-bpe.min.js";
const BUNDLE_INTEGRITY = "__BUNDLE_INTEGRITY__"; // filled in by chart.py from the file's SHA-256

function loadPlotly() {
  if (!window.bpePlotly) {
    window.bpePlotly = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = new URL(BUNDLE_URL, document.baseURI).href;
      script.integrity = BUNDLE_INTEGRITY;
      script.onload = () => resolve(window.Plotly);
      script.onerror = () => {
        window.bpePlotly = null; // let a later chart try again
        reject(new Error(`plotly.js could not be loaded from ${BUNDLE_URL}`));
      };
      document.head.appendChild(script);
    });
  }
  return window.bpePlotly;
}

/** A page without charts: fetched into the browser's cache while the network is idle, not run. */
function prefetchPlotly() {
  if (window.bpePlotly || document.querySelector("link[data-bpe-plotly]")) return;
  const link = document.createElement("link");
  link.rel = "prefetch";
  link.as = "script";
  link.href = new URL(BUNDLE_URL, document.baseURI).href;
  link.dataset.bpePlotly = "";
  document.head.appendChild(link);
}

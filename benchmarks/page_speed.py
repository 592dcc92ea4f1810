"""How fast the pages paint and a step responds, against a bare Streamlit app
measured in the same run, in headless Chromium (Debian's /usr/bin/chromium).

    python benchmarks/page_speed.py [--rounds 7]
    python benchmarks/page_speed.py --first-visits 5 --pages chat vocabulary --before ../main  # ... and other code
    python benchmarks/page_speed.py --first-visits 5 --visits-only --pages chat --query chat_right=gemma3

- fully drawn, first visit: from starting a fresh server to each page drawn
  (Streamlit's "script finished", its script state idle, no element still
  loading), the first request that server serves: a talk's first click on
  each page; each against a fresh bare app's first visit just after it (with
  --first-visits N); and the CPU seconds the server's process had used by
  then, which a busy machine does not change as much as the clock;
- fully drawn, second visit: the same from a page load, on a server that has
  served every page once and finished its warm-up, each in a fresh browser
  session, each load followed by a load of the bare app (its own time moves
  between runs, so each page is compared with bare loads of its moment);
  and the CPU seconds the browser's main thread spent on each load (script,
  style, layout, paint: what a visitor's laptop spends), against the bare app's;
- first paint: from a page load's start to its title (h1) in the page, for
  every page, each in a fresh browser session, against a bare app whose
  script is one st.title; median and worst of the rounds, as ratios;
- cold start: from starting the server process to the first page's title,
  ours (Home) against the bare app's;
- a step: from a key press on Train to "Merge N of M" changing, against a
  bare app's button click to its text changing (a Streamlit rerun); both
  timed by the page's own clock;
- Play: steps per second reached at 8 steps/s, by the page's clock.

`--before PATH` serves another checkout of the app (main's code, in a
worktree of its own) beside this one, for the first and second visits:
each round measures this checkout's page, the same page of the code before,
then the bare app, so that both are compared with bare loads of the same
moment.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.measure import load_average
from pages.common.names import PAGES
from tests.browser import CHROMIUM, CHROMIUM_ARGS, StreamlitServer, run, track_runs

BARE_APP = textwrap.dedent(
    """
    import streamlit as st

    st.title("Bare")
    if st.button("Count", key="count"):
        st.session_state.clicks = st.session_state.get("clicks", 0) + 1
    st.write(f"Clicked {st.session_state.get('clicks', 0)} times")
    """
)

# When the first h1 appears, by the page's clock (ms since the load started).
RECORD_TITLE = """
window.__title = null;
new MutationObserver((_, observer) => {
  if (document.querySelector("h1")) { window.__title = performance.now(); observer.disconnect(); }
}).observe(document, {childList: true, subtree: true});
"""

# The time from an action to a change of `element`'s text, by the page's clock.
TIME_CHANGE = """([element, action]) => new Promise(done => {
  const before = element.textContent;
  const observer = new MutationObserver(() => {
    if (element.textContent !== before) { observer.disconnect(); done(performance.now() - start); }
  });
  observer.observe(element, {childList: true, characterData: true, subtree: true});
  const start = performance.now();
  if (action === "key") document.dispatchEvent(new KeyboardEvent("keydown", {key: "ArrowRight", bubbles: true}));
  else element.ownerDocument.querySelector(action).click();
})"""


def title_time(browser, url: str) -> float:
    """Seconds from a fresh session's page load to its title, by the page's clock."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    page.add_init_script(RECORD_TITLE)
    page.goto(url)
    page.wait_for_function("window.__title !== null", timeout=120_000)
    seconds = page.evaluate("window.__title") / 1000
    context.close()
    return seconds


def drawn_time(browser, url: str, timeout: float = 300, cpu: list[float] | None = None) -> float:
    """Seconds from a fresh session's page load until the page is fully drawn;
    with `cpu`, the CPU seconds the page's main thread spent until then are
    added to it (`browser_cpu_seconds`)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = track_runs(context.new_page())
    page.set_default_navigation_timeout(timeout * 1000)  # the page's own load, too, may take a busy room's while
    session = context.new_cdp_session(page) if cpu is not None else None
    if session is not None:
        session.send("Performance.enable", {"timeDomain": "threadTicks"})
    started = time.perf_counter()
    run(page, lambda: page.goto(url), timeout=timeout)
    seconds = time.perf_counter() - started
    if session is not None:
        cpu.append(browser_cpu_seconds(session))
    context.close()
    return seconds


def browser_cpu_seconds(session) -> float:
    """The CPU seconds the page's main thread has spent on tasks (script,
    style, layout, paint) since Performance.enable, by Chromium's own count
    (its metric TaskDuration in thread time): the browser's work for the
    page, which a busy machine slows but does not add to, as a visitor's
    laptop would spend it."""
    metrics = {metric["name"]: metric["value"] for metric in session.send("Performance.getMetrics")["metrics"]}
    return metrics["TaskDuration"]


def first_visit(browser, app_dir: Path, path: str, cpu: list[float]) -> float:
    """Seconds from starting a server (of the app.py in `app_dir`) to the
    page at `path` fully drawn, the first page it serves; the CPU seconds
    the server's process had used by then are added to `cpu`."""
    server = StreamlitServer(app_dir=app_dir)  # returns once the server answers
    try:
        seconds = (time.perf_counter() - server.started) + drawn_time(browser, f"{server.url}/{path}")
        cpu.append(process_cpu_seconds(server.process.pid))
        return seconds
    finally:
        server.stop()


def process_cpu_seconds(pid: int) -> float:
    """The CPU seconds (user and system) a process has used, from Linux's
    /proc: the server's own work, which a busy machine slows but does not add to."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()  # from the third field, the state
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime and stime, fields 14 and 15


def cold_start(browser, app_dir: Path, path: str) -> float:
    """Seconds from starting a server to its first page's title."""
    server = StreamlitServer(app_dir=app_dir)
    try:
        return (time.perf_counter() - server.started) + title_time(browser, f"{server.url}/{path}")
    finally:
        server.stop()


def change_time(page, selector: str, action: str) -> float:
    return page.locator(selector).evaluate(
        "(element, action) => (" + TIME_CHANGE + ")([element, action])", action
    ) / 1000


def paired(ours, bare, rounds: int) -> tuple[list[float], list[float]]:
    """Our measure and the bare app's, one after the other, `rounds` times:
    the bare page's own time moves by a quarter between runs on a quiet
    machine, so each page is compared with bare loads made at the same time
    as its own."""
    pairs = [(ours(), bare()) for _ in range(rounds)]
    return [mine for mine, _ in pairs], [theirs for _, theirs in pairs]


def compared(measures: dict, bare, rounds: int) -> dict[str, tuple[list[float], list[float]]]:
    """Each of `measures` (a label -> a measure: this checkout's, the code
    before's) and then the bare app's, in turn, `rounds` times: each against
    the bare loads of its own rounds."""
    times: dict[str, list[float]] = {label: [] for label in measures}
    bare_times = []
    for _ in range(rounds):
        for label, measure in measures.items():
            times[label].append(measure())
        bare_times.append(bare())
    return {label: (mine, bare_times) for label, mine in times.items()}


def print_compared(title: str, results: dict[str, tuple[list[float], list[float]]]) -> None:
    for label, (ours, bare) in results.items():
        print(f"  {title:<17} {label + ' ' if len(results) > 1 else ''}" + summary(ours, bare)
              + f" (load average {load_average()})", flush=True)


def print_cpu(cpu: dict[str, list[float]]) -> None:
    """The browser's main-thread CPU per load, median, each against the bare app's."""
    bare = statistics.median(cpu["bare"])
    print(f"  {'':<17} browser main-thread CPU per load, median: " + ", ".join(
        f"{label} {statistics.median(seconds):.2f} s = {statistics.median(seconds) / bare:.2f}x"
        for label, seconds in cpu.items() if label != "bare") + f" the bare app's {bare:.2f} s", flush=True)


def summary(ours: list[float], bare: list[float]) -> str:
    return (f"median {statistics.median(ours):.3f} s vs {statistics.median(bare):.3f} s "
            f"= {statistics.median(ours) / statistics.median(bare):.2f}x; "
            f"worst {max(ours):.3f} s vs {max(bare):.3f} s = {max(ours) / max(bare):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--first-visits", type=int, default=0, metavar="N",
                        help="also each page's first visit on N fresh servers (a minute or two per round)")
    parser.add_argument("--visits-only", action="store_true",
                        help="only the first and second visits (no cold start, first paint, step or Play)")
    parser.add_argument("--before", type=Path, metavar="PATH",
                        help="another checkout of the app (the code before a change), measured beside it")
    parser.add_argument("--pages", nargs="+", metavar="PATH", choices=[page.url_path or "home" for page in PAGES],
                        help="only these pages (by address, Home as home); every page by default")
    parser.add_argument("--query", default="", metavar="KEY=VALUE&...",
                        help="a link's parameters for the first and second visits (chat_right=gemma3: Gemma 3 "
                             "beside Llama 3 on the Chat page)")
    args = parser.parse_args()
    rounds = args.rounds
    pages = [page for page in PAGES if args.pages is None or (page.url_path or "home") in args.pages]
    query = f"?{args.query}" if args.query else ""
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        bare = Path(folder)  # the bare app: its app.py alone, with Streamlit's default settings
        (bare / "app.py").write_text(BARE_APP)
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        checkouts = {"ours": ROOT, **({"before": args.before.resolve()} if args.before else {})}

        if not args.visits_only:
            starts = min(3, rounds)
            print(f"Cold start (server start to the first title), median of {starts}:")
            ours = [cold_start(browser, ROOT, "") for _ in range(starts)]
            theirs = [cold_start(browser, bare, "") for _ in range(starts)]
            print(f"  home vs bare app: {summary(ours, theirs)}")
        if args.first_visits:
            print("First visit, fully drawn (server start to the page drawn, the first it serves), "
                  f"{args.first_visits} rounds:")
            for page in pages:
                cpu: dict[str, list[float]] = {label: [] for label in [*checkouts, "bare"]}
                path = page.url_path + query
                measures = {label: lambda app_dir=app_dir, label=label, path=path, cpu=cpu: first_visit(
                    browser, app_dir, path, cpu[label]) for label, app_dir in checkouts.items()}
                print_compared(page.title, compared(measures, lambda cpu=cpu: first_visit(browser, bare, "", cpu["bare"]),
                                                    args.first_visits))
                bare_cpu = statistics.median(cpu["bare"])
                print(f"  {'':<17} server CPU by then, median: " + ", ".join(
                    f"{label} {statistics.median(cpu[label]):.2f} s = {statistics.median(cpu[label]) / bare_cpu:.2f}x"
                    for label in checkouts) + f" the bare app's {bare_cpu:.2f} s", flush=True)

        servers = {label: StreamlitServer(app_dir=app_dir) for label, app_dir in checkouts.items()}
        app = servers["ours"]
        bare_server = StreamlitServer(app_dir=bare)
        try:
            # Warm: every page's imports and shared caches, as on a server in use. Each page is
            # served to the end: a visit cut off at its title would leave the work that follows
            # (the Tax page's default experiments) to the first measured visit.
            for server in servers.values():
                for page in PAGES:
                    drawn_time(browser, f"{server.url}/{page.url_path}")
                server.wait_until_warmed()  # and what it warms at start, which it does meanwhile
            print(f"Second visit, fully drawn (load to the page drawn), {rounds} fresh sessions each, "
                  "each against the bare app's loads just after it:")
            for page in pages:
                cpu = {label: [] for label in [*servers, "bare"]}
                measures = {label: lambda server=server, label=label, path=page.url_path, cpu=cpu: drawn_time(
                    browser, f"{server.url}/{path}{query}", cpu=cpu[label]) for label, server in servers.items()}
                print_compared(page.title, compared(measures, lambda cpu=cpu: drawn_time(browser, bare_server.url,
                                                                                         cpu=cpu["bare"]), rounds))
                print_cpu(cpu)
            if args.visits_only:
                return
            print(f"First paint (load to title), {rounds} fresh sessions each, each against the bare app's:")
            for page in pages:
                url = f"{app.url}/{page.url_path}"
                print(f"  {page.title:<17} " + summary(*paired(lambda url=url: title_time(browser, url),
                                                               lambda: title_time(browser, bare_server.url), rounds)))

            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.goto(f"{app.url}/train")
            page.locator(".trn-heading").wait_for()
            steps = [change_time(page, ".stp-position", "key") for _ in range(30)]
            bare_page = browser.new_page()
            bare_page.goto(bare_server.url)
            bare_page.get_by_text("Clicked 0 times").wait_for()
            bare_page.locator(".st-key-count button").wait_for()
            reruns = [change_time(bare_page, '[data-testid="stMarkdownContainer"] >> nth=-1',
                                  '.st-key-count button') for _ in range(30)]
            print("A step (key press to 'Merge N of M' changed) vs a bare button rerun (click to text changed):")
            print(f"  {summary(steps, reruns)}")

            page.goto(f"{app.url}/train?train_speed=8")
            page.locator(".trn-heading").wait_for()
            page.locator(".stp").evaluate(
                "element => { window.__steps = []; new MutationObserver(() => window.__steps.push("
                "[performance.now(), Number(element.dataset.step)])).observe(element, {attributes: true}); }"
            )
            page.keyboard.press(" ")
            page.wait_for_function("window.__steps.length && window.__steps[window.__steps.length - 1][1] >= 80",
                                   timeout=60_000)
            page.keyboard.press(" ")
            (first_time, first_step), (last_time, last_step) = (lambda s: (s[0], s[-1]))(page.evaluate("window.__steps"))
            rate = (last_step - first_step) / ((last_time - first_time) / 1000)
            print(f"Play at 8 steps/s: {rate:.2f} steps/s ({rate / 8 - 1:+.1%})")
        finally:
            for server in servers.values():
                server.stop()
            bare_server.stop()
        browser.close()


if __name__ == "__main__":
    main()

"""BPE playground: the entry point, and the frame around every page.

Run with `streamlit run app.py`. Every page works offline on bundled text.
Streamlit reads this file twice over. Starting the server, it imports it
and finds `app`, an `st.App`: its lifespan begins the warm-up (work that
depends on no visitor, see `pages/common/warm_up.py`) and lets closed tabs'
sessions go once their time to live has passed (`closed_sessions.py`); its
middleware notes which page is asked for first (to make what that page
needs first) and lets go of a fragment's report from a page a tab has left
(`page_shown.py`); its routes serve the pages' HTML with the server's
address written in (`pages/common/page_html.py`). For every visit, it runs
it as the script of the page (as `__main__`): the frame, then the chosen
page inside it. The pages are listed in `pages/common/names.py`; how
a request reaches them is explained in `pages/common/navigation.py`.
"""

import streamlit as st

if __name__ == "__main__":  # a visit
    from pages.common.navigation import run_app

    run_app()
else:  # the server starting
    import contextlib

    from starlette.middleware import Middleware

    from pages.common.closed_sessions import let_closed_sessions_go
    from pages.common.page_html import page_routes
    from pages.common.page_shown import FragmentsOfThePageShown
    from pages.common.warm_up import FirstPageAsked, warm_up_in_background

    @contextlib.asynccontextmanager
    async def server_life(app):
        async with warm_up_in_background(app), let_closed_sessions_go(app):
            yield

    app = st.App(
        "app.py",
        lifespan=server_life,
        routes=page_routes(),
        middleware=[Middleware(FirstPageAsked), Middleware(FragmentsOfThePageShown)],
    )

"""BPE playground: the entry point, and the frame around every page.

Run with `streamlit run app.py`. Every page works offline on bundled text.
The pages are listed in `pages/common/names.py`; how a request reaches them
is explained in `pages/common/navigation.py`.
"""

from pages.common.navigation import run_app

run_app()

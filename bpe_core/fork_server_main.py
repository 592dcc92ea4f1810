"""Imported in the fork server only (see `worker_processes`): run the
caller's main script there, so that the worker processes forked from it
find it run and do not each run it again.

This is what `set_forkserver_preload(["__main__"])` promises, and Python's
default, but Python 3.11 does not do it (its fork server is handed a
"main_path" that the caller's data names "init_main_from_path"). It
matters for `streamlit run app.py`, whose main script is Streamlit's
command line: run again in every worker, it imported all of Streamlit,
0.6 s of CPU and 43 MB for each job.
"""

import os
from multiprocessing import process, spawn

from .worker_processes import MAIN_SCRIPT


def _run_main_script() -> None:
    path = os.environ.pop(MAIN_SCRIPT, None)
    if path is None:
        return
    process.current_process()._inheriting = True  # as multiprocessing's fork server does for its preload
    try:
        spawn.import_main_path(path)
    except Exception:  # noqa: BLE001 - each worker runs it then, as it would have anyway
        pass
    finally:
        del process.current_process()._inheriting


_run_main_script()

"""Imported in the fork server only (see `worker_processes`): the worker
processes it starts do not run their caller's main script again.

A process that multiprocessing starts first runs its caller's main module
again, so that functions defined there can be found in it. A worker here
runs the engine's own functions only, and under Streamlit the "main
module" is the script Streamlit ran last (it puts each run's script in
`sys.modules["__main__"]`): app.py, run again outside Streamlit, drew Home
in bare mode in every worker, 0.6 s of CPU before each job, beside the
server's own work. So a job is a function of an importable module, never
of a script.
"""

from multiprocessing import spawn

_prepare = spawn.prepare


def _prepare_without_main(data: dict) -> None:
    """A starting worker's preparation (see `multiprocessing.spawn`), but
    for running its caller's main module."""
    _prepare({key: value for key, value in data.items() if not key.startswith("init_main_from")})


spawn.prepare = _prepare_without_main

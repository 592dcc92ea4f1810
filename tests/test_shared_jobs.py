"""Identical requests share one job, and its failure; a cancelled job is run again for whoever still waits."""

import threading

from bpe_core.jobs.shared_jobs import SharedJobs


class Stopped(Exception):
    """A visitor's Cancel, as Streamlit raises it in their progress callback."""


class Job:
    """A job that says it is waiting in line, then holds until released."""

    def __init__(self, ending):
        self.ending, self.runs = ending, 0
        self.started, self.release = threading.Event(), threading.Event()

    def __call__(self, progress, waiting):
        self.runs += 1
        self.started.set()
        waiting(2)
        self.release.wait(30)
        progress(5, 10)
        return self.ending()


def in_a_thread(function) -> tuple[threading.Thread, list]:
    """Run `function` in a thread; its result, or the exception it raised, lands in the list."""
    outcome = []

    def run():
        try:
            outcome.append(function())
        except Exception as error:  # noqa: BLE001 - the test reads it
            outcome.append(error)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def owner_and_follower(jobs, job, owner_progress=None):
    """The job's owner, then a follower once the job runs; returns when the
    follower has heard the job's news (so it is waiting on this job), after
    releasing the job: (owner's outcome, follower's outcome, follower's news)."""
    owner, owned = in_a_thread(lambda: jobs.run("key", job, progress=owner_progress))
    assert job.started.wait(30)
    news, heard = [], threading.Event()

    def listen(*values):
        news.append(values)
        heard.set()

    follower, followed = in_a_thread(lambda: jobs.run("key", job, waiting=listen))
    assert heard.wait(30)
    job.release.set()
    owner.join(30), follower.join(30)
    return owned[0], followed[0], news


def test_requests_for_the_same_job_at_once_share_it():
    jobs, job = SharedJobs(), Job(lambda: "tokenizer")
    owned, followed, news = owner_and_follower(jobs, job)
    assert (owned, followed, job.runs) == ("tokenizer", "tokenizer", 1)
    assert news[0] == (2,)  # the follower hears the job's place in line
    assert jobs.run("key", lambda progress, waiting: "again") == "again"  # finished jobs are not kept


def test_a_jobs_verdict_is_every_waiters():
    def refuse():
        raise ValueError("vocabulary too large")

    job = Job(refuse)
    owned, followed, _ = owner_and_follower(SharedJobs(), job)
    assert isinstance(owned, ValueError) and followed is owned and job.runs == 1


def test_a_job_its_owner_cancelled_runs_again_for_the_next_waiter():
    def cancel(*progress):
        raise Stopped

    job = Job(lambda: "done")
    owned, followed, _ = owner_and_follower(SharedJobs(), job, owner_progress=cancel)
    assert isinstance(owned, Stopped) and followed == "done" and job.runs == 2


def test_a_job_that_fails_fails_once_for_every_waiter():
    """A failure that is not its owner's Cancel (a bug in the job, its
    worker killed) is every waiter's answer too: it is not run again once
    per waiter, each failing in turn."""
    def fail():
        raise RuntimeError("the worker process failed")

    jobs, job = SharedJobs(), Job(fail)
    owner, owned = in_a_thread(lambda: jobs.run("key", job))
    assert job.started.wait(30)
    followers = []
    for _ in range(4):
        heard = threading.Event()
        followers.append((heard, *in_a_thread(lambda heard=heard: jobs.run("key", job, waiting=lambda *news: heard.set()))))
    for heard, _, _ in followers:  # each is waiting on this job: it has heard its news
        assert heard.wait(30)
    job.release.set()
    for thread in [owner, *(thread for _, thread, _ in followers)]:
        thread.join(30)
    outcomes = [owned[0], *(outcome[0] for _, _, outcome in followers)]
    assert job.runs == 1
    assert all(isinstance(outcome, RuntimeError) for outcome in outcomes)

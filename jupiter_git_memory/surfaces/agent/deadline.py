"""The agent hooks' deadline, shared by the session/prompt hook (hook.py) and the edit hook (edit.py)."""

from __future__ import annotations


class Deadline(BaseException):
    """The hook's time is up. A BaseException, as KeyboardInterrupt is: it is raised wherever the hook happens
    to be (inside an index open, a model load), and no `except Exception` on the way may turn it into that
    step's failure ("Chroma could not be opened", "model unavailable"); only the hook's `run` catches it, and
    says so (dec-deadline-is-not-a-failure)."""


def on_alarm(signum, frame):
    raise Deadline()

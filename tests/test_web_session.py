"""Review-UI sessions: one token's logins can only evict that token's own sessions."""

from __future__ import annotations

import pytest

from jupiter_git_memory.surfaces.api.tokens import TokenStore
from jupiter_git_memory.surfaces.web.session import MAX_SESSIONS_PER_TOKEN, Sessions

pytestmark = pytest.mark.unit


def test_a_thousand_logins_with_one_token_evict_only_its_own_oldest_sessions(tmp_path):
    tokens = TokenStore(tmp_path)
    reviewer, other, script = (tokens.create(n, ["ws-1"]) for n in ("alice", "bob", "ci-bot"))
    sessions = Sessions(tokens)
    kept = [sessions.login(reviewer), sessions.login(other)]
    scripted = [sessions.login(script) for _ in range(1000)]
    for s in kept:  # before the fix one global cap of 1,000 evicted these
        got = sessions.get(s.sid)
        assert got is not None and got.sid == s.sid, s.token_name
    alive = [s for s in scripted if sessions.get(s.sid) is not None]
    assert alive == scripted[-MAX_SESSIONS_PER_TOKEN:]  # the newest ones, the oldest went first
    assert len(sessions._by_id) == MAX_SESSIONS_PER_TOKEN + 2
    more = [sessions.login(reviewer) for _ in range(MAX_SESSIONS_PER_TOKEN - 1)]
    assert all(sessions.get(s.sid) for s in [kept[0], *more])  # alice's own cap holds her first one too
    sessions.login(reviewer)
    assert sessions.get(kept[0].sid) is None and sessions.get(kept[1].sid) is not None

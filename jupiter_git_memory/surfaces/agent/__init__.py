"""Memory that reaches a coding agent without being asked: client setup (`jgm agent`) and the client hooks
(`jgm hook CLIENT EVENT`). See knowledge/decisions/dec-agent-session-brief.md and dec-agent-install-restores-bytes.md."""

"""jgm's entries in a client's text files: a managed block between marker lines (appended, replaced in place,
cut out again exactly), and Cline's hook scripts (one small executable file per event, jgm's whole)."""

from __future__ import annotations

import json
import tomllib

from .hook_events import EVENTS
from .launch import SERVER_NAME, Launch, hook_command, hook_marker, mcp_entry


def _block(start: str, end: str, body: str) -> str:
    return f"{start}\n{body.rstrip()}\n{end}\n"


def without_block(text: str, start: str, end: str) -> str:
    i = text.find(start + "\n")
    j = text.find(end + "\n", i)
    if i < 0 or j < 0:
        return text
    head, tail = text[:i], text[j + len(end) + 1 :]
    if head.endswith("\n\n") and not tail:
        head = head[:-1]  # the blank line install put before the block
    return head + tail


def with_block(text: str, start: str, end: str, body: str) -> str:
    bare = without_block(text, start, end)
    if bare == text:  # not there yet: append after a blank line
        sep = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
        return text + sep + _block(start, end, body)
    i = text.find(start + "\n")
    j = text.find(end + "\n", i) + len(end) + 1
    return text[:i] + _block(start, end, body) + text[j:]  # replaced in place


TOML_START, TOML_END = f"# >>> {SERVER_NAME} (jgm agent install) >>>", f"# <<< {SERVER_NAME} <<<"


def merge_codex_toml(text: str, launch: Launch) -> str:
    """`[mcp_servers.NAME]` in Codex's project `.codex/config.toml` (read in trusted projects), as a block."""
    try:
        doc = tomllib.loads(without_block(text, TOML_START, TOML_END))
    except tomllib.TOMLDecodeError as e:
        raise TypeError(f"invalid TOML: {e}") from None
    if SERVER_NAME in (doc.get("mcp_servers") or {}):
        raise TypeError(f"[mcp_servers.{SERVER_NAME}] is already defined outside jgm's block")
    entry = mcp_entry(launch)
    body = f"[mcp_servers.{SERVER_NAME}]\ncommand = {json.dumps(entry['command'])}\nargs = {json.dumps(entry['args'])}"
    return with_block(text, TOML_START, TOML_END, body)


def unmerge_codex_toml(text: str, original: str, launch: Launch) -> str:
    return without_block(text, TOML_START, TOML_END)


# -- what older versions wrote where a client had no hooks: kept so that uninstall still takes it out ---------
MD_START, MD_END = f"<!-- >>> {SERVER_NAME}: managed by `jgm agent install` >>> -->", f"<!-- <<< {SERVER_NAME} <<< -->"
CURSOR_RULE_HEAD = "---\ndescription: Project memory (jupiter-git-memory)\nalwaysApply: true\n---\n"


def refuse_retired(text: str, launch: Launch) -> str:
    raise TypeError("jgm no longer writes this file")  # never planned: install skips retired files


def unmerge_agents_md(text: str, original: str, launch: Launch) -> str:
    return without_block(text, MD_START, MD_END)


def unmerge_cursor_rule(text: str, original: str, launch: Launch) -> str:
    left = without_block(text, MD_START, MD_END)
    return "" if left.strip() == CURSOR_RULE_HEAD.strip() and not original else left


# -- Cline: `.clinerules/hooks/<Event>`, an executable file named for its event ---------------------------------
def cline_script(launch: Launch, event: str) -> str:
    return (
        "#!/bin/sh\n"
        f"# {SERVER_NAME}: written by `jgm agent install cline` (`jgm agent uninstall cline` removes it)\n"
        f"exec {hook_command(launch, 'cline', event)}\n"
    )


def merge_cline_script(text: str, launch: Launch, event: str) -> str:
    """The whole file is jgm's: Cline runs one script per event, so a script of the user's own is refused
    (jgm would replace it), never merged."""
    if text.strip() and hook_marker("cline") not in text:
        raise TypeError(
            f"a hook script of your own is there (Cline runs one per event): move it aside, or call "
            f"`{hook_command(launch, 'cline', event)}` from it yourself"
        )
    return cline_script(launch, event)


def unmerge_cline_script(text: str, original: str, launch: Launch) -> str:
    return "" if hook_marker("cline") in text else text


CLINE_EVENTS = EVENTS["cline"].names  # jgm event -> the script's file name

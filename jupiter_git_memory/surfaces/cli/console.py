"""The human-output console (rich). Imported on the first print, not with the CLI: `jgm --help` and
`--version` never print through it, and rich costs about as much to import as Typer's own help."""

from __future__ import annotations

from rich.console import Console

from ...records.text import show_hidden


class SafeConsole(Console):
    """Human output. Markup and emoji codes are off unless a call asks for markup (and escapes its data with
    `esc`); every string printed shows its hidden characters as escapes (records/text.py: terminal controls
    such as `\\x1b]0;…`, bidi overrides, zero-width characters), so a record's text can neither drive the
    reader's terminal nor reorder what it shows. JSON output escapes them instead (json.dumps)."""

    def __init__(self, **kwargs) -> None:
        self._given = kwargs
        super().__init__(emoji=False, highlight=False, soft_wrap=True, **kwargs)

    def reset(self) -> None:
        """Detect the terminal, colours and width again, as a new process would: the daemon runs a command
        for a caller whose streams and environment are not the ones it started with (daemon/forward.py)."""
        self.__init__(**self._given)

    def print(self, *objects, markup: bool = False, **kwargs) -> None:
        shown = (show_hidden(o.replace("\r\n", "\n")) if isinstance(o, str) else o for o in objects)
        super().print(*shown, markup=markup, **kwargs)

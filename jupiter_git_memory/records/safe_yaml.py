"""Load record frontmatter as bounded YAML. Pure.

Why not `yaml.safe_load`: it is safe against code execution, not against resource exhaustion or surprise.
Aliases expand a few hundred bytes into gigabytes (a merged PR could take down every teammate's hooks),
deep nesting overflows the recursion limit, a bad timestamp raises a bare ValueError (here it stays text,
noted for a warning), and `id: 0012`
becomes the integer 10. This loader refuses aliases and anchors, caps size, nesting depth and node count,
keeps ids and link targets as the literal text written, and turns every failure into a SafeYamlError
that carries the line. It also refuses the merge key: `<<: {id: 0012, title: yes}` sets keys no diff
shows as keys, with YAML 1.1 types (id 10, title True) that bypass the literal reading.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent, ScalarEvent
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

MAX_BYTES = 64 * 1024  # frontmatter text; the body may be larger (the whole file is capped separately)
MAX_DEPTH = 16  # nested collections
MAX_NODES = 5000  # scalars + collections
# Keys read as the literal text written: `id: 0012` is "0012", `supersedes: 1.50` is "1.50", `title: yes` is "yes".
LITERAL_KEYS = frozenset({"id", "supersedes", "superseded_by", "title", "kind", "status", "tags", "source", "scope"})
_STR = "tag:yaml.org,2002:str"
_MERGE = "tag:yaml.org,2002:merge"
_NULL = "tag:yaml.org,2002:null"
_SURROGATE = re.compile("[\ud800-\udfff]")


class SafeYamlError(yaml.MarkedYAMLError):
    """A frontmatter problem with its mark (0-based line within the YAML text) and the fix."""

    def __init__(self, problem: str, mark: Any, fix: str) -> None:
        super().__init__(problem=problem, problem_mark=mark)
        self.fix = fix

    @property
    def line(self) -> int | None:
        return self.problem_mark.line if self.problem_mark is not None else None


class _Loader(Reader, Scanner, Parser, Composer, SafeConstructor, Resolver):
    def __init__(self, stream: str):
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        self._depth = 0
        self._nodes = 0
        self.unreadable: list[tuple[int, str, str]] = []  # (0-based line, text, problem) of impossible dates

    def construct_timestamp(self, node: yaml.ScalarNode) -> Any:
        """A date that looks like one but is impossible (`2021-26-02`) stays the text written, noted: one bad
        date must not cost the whole record."""
        try:
            return SafeConstructor.construct_yaml_timestamp(self, node)
        except (ValueError, OverflowError) as e:
            self.unreadable.append((node.start_mark.line, str(node.value), str(e)))
            return str(node.value)

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]  # PyYAML stubs leave it untyped
        if isinstance(event, AliasEvent) or getattr(event, "anchor", None) is not None:
            raise SafeYamlError(
                "uses a YAML anchor or alias (`&name` / `*name`), which record frontmatter does not allow",
                event.start_mark,
                "write each value out in full",
            )
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise SafeYamlError(
                f"has more than {MAX_NODES} values",
                event.start_mark,
                "keep frontmatter to a few keys; move bulk data into the body or another file",
            )
        if isinstance(event, ScalarEvent):
            if _SURROGATE.search(event.value):
                raise SafeYamlError(
                    "contains a lone surrogate escape (e.g. `\\ud800`), which is not text",
                    event.start_mark,
                    "remove the `\\uD8xx`-`\\uDFxx` escape or write the character itself",
                )
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise SafeYamlError(
                f"is nested more than {MAX_DEPTH} levels deep",
                event.start_mark,
                "flatten the frontmatter; nested data belongs in the body",
            )
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        for key, _value in node.value:
            if key.tag == _MERGE:
                raise SafeYamlError(
                    "uses a YAML merge key (`<<`), which record frontmatter does not allow: the keys it merges "
                    "would not read as written (`<<: {id: 0012}` gives the id 10)",
                    key.start_mark,
                    'write each merged key on its own line (e.g. `id: 0012`); quote it (`"<<": …`) for a key '
                    "literally named <<",
                )
        super().flatten_mapping(node)

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except yaml.YAMLError:
            raise
        except Exception as e:  # e.g. `date: 2024-13-45` (ValueError), a 5,000-digit integer
            raise SafeYamlError(
                f"has a value that cannot be read ({type(e).__name__}: {e})",
                node.start_mark,
                "quote the value to keep it as text, or correct it",
            ) from None


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_timestamp)  # type: ignore[type-var]


def _keep_literal(root: yaml.Node | None) -> None:
    """Re-tag the scalars under LITERAL_KEYS as strings, so they are read as written (null stays null)."""
    if not isinstance(root, yaml.MappingNode):
        return
    for key, value in root.value:
        if not (isinstance(key, yaml.ScalarNode) and key.value in LITERAL_KEYS):
            continue
        items = value.value if isinstance(value, yaml.SequenceNode) else [value]
        for item in items:
            if isinstance(item, yaml.ScalarNode) and item.tag != _NULL:
                item.tag = _STR


def load_frontmatter(text: str, notes: list[tuple[int, str, str]] | None = None) -> Any:
    """The YAML document in `text` as Python data. Raises SafeYamlError or yaml.YAMLError (both marked).
    `notes` receives (0-based line, text, problem) of each impossible date, kept as its text."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_BYTES:
        raise SafeYamlError(
            f"is {size} bytes, over the {MAX_BYTES}-byte frontmatter limit",
            None,
            "keep frontmatter to a few keys; move bulk content into the body",
        )
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _keep_literal(node)
        data = loader.construct_document(node)
        if notes is not None:
            notes.extend(loader.unreadable)
        return data
    finally:
        loader.dispose()

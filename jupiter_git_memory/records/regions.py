"""The text a citation points at, and whether it changed: symbols, line ranges and whole files. Pure.

- A symbol (`path::name`, `path::Class.method`) is found with `ast` in Python files (functions, classes,
  module or class level assignments; decorators included); elsewhere by a regex fallback: a line that
  declares it (`def`, `class`, `function`, `fn`, `func` with or without a receiver, `struct`, `enum`,
  `trait`, `interface`, `type`, `module`, `impl`, after modifiers such as `export`, `pub`, `async`,
  `static`), ending where its braces close, or for a brace-less body at the next line indented no deeper.
- A region's text is compared line by line with each line's surrounding whitespace dropped and blank lines
  skipped, so re-indenting or re-wrapping blank lines is no change.
- A range is followed from the baseline to now through the diff of the two texts (as `git log -L` does):
  lines inserted or removed above it shift it; only a change inside it drifts it.
- A whole file's change is sized in *significant lines*: the lines of a line diff of both texts once blank
  lines, whitespace and import lines are dropped (a replaced line counts once). `file_drifted` says whether
  that size is at or above the threshold (docs/drift.md#what-drifts, dec-drift-granularity).
"""

from __future__ import annotations

import ast
import difflib
import functools
import re
from collections.abc import Sequence

MIN_LINES = 5  # a whole-file change of fewer significant lines does not drift (but in a small file, below)
SHARE = 0.1  # ... nor one under this share of the file's significant lines at the baseline
_PY = (".py", ".pyi")
_DECL = (
    r"^\s*(?:(?:export|default|pub(?:\([\w:]+\))?|public|private|protected|internal|static|async|abstract|final|"
    r"override|virtual|inline|extern|unsafe|const|open|sealed|data|suspend|local|def\s+self\.)\s+)*"
    r"(?:def|class|function\*?|fn|func(?:\s*\([^)]*\))?|struct|enum|trait|interface|type|module|impl|object|"
    r"record|protocol|extension|sub|proc|fun|let|var|const)\s+"
)
_IMPORT = re.compile(
    r"^\s*(?:import\b|from\s+\S+\s+import\b|#\s*include\b|use\s+[\w:{}, *]+;|using\s+[\w.]+;|require\b|"
    r"(?:const|let|var)\s+[\w{}, ]+=\s*require\(|package\s+[\w.]+;?$|extern\s+crate\b)"
)


def lines_of(text: str) -> list[str]:
    return text.replace("\r\n", "\n").split("\n")


def _norm(lines: Sequence[str]) -> tuple[str, ...]:
    return tuple(" ".join(ln.split()) for ln in lines if ln.strip())


@functools.lru_cache(maxsize=4096)
def _python_spans(text: str) -> dict[str, tuple[int, int]] | None:
    """Dotted name -> (first line, last line) of every definition and assignment, None when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    out: dict[str, tuple[int, int]] = {}

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            names: list[str] = []
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            decorators = getattr(node, "decorator_list", [])
            first = min([node.lineno, *(d.lineno for d in decorators)])
            for name in names:
                out.setdefault(prefix + name, (first, node.end_lineno or node.lineno))
            if isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")

    walk(tree.body, "")
    return out


def _regex_span(lines: list[str], name: str, lo: int = 0, hi: int | None = None) -> tuple[int, int] | None:
    """(first, last) 1-based lines of the first declaration of `name` within lines[lo:hi] (regex fallback)."""
    decl = re.compile(_DECL + r"(?:\([^)]*\)\s*)?\*?" + re.escape(name) + r"\b")
    hi = len(lines) if hi is None else hi
    for i in range(lo, hi):
        if decl.match(lines[i]):
            return i + 1, _block_end(lines, i, hi) + 1
    return None


def _block_end(lines: list[str], i: int, hi: int) -> int:
    """The last line (0-based) of the block declared on line `i`: where its braces close, or (no brace on the
    first lines) the last line before one indented no deeper than the declaration."""
    depth, opened = 0, False
    for j in range(i, hi):
        code = re.sub(r"(['\"]).*?\1", "", lines[j])
        depth += code.count("{") - code.count("}")
        opened = opened or "{" in code
        if opened and depth <= 0:
            return j
        if not opened and j > i + 1:
            break
    indent = len(lines[i]) - len(lines[i].lstrip())
    last = i
    for j in range(i + 1, hi):
        if not lines[j].strip():
            continue
        if len(lines[j]) - len(lines[j].lstrip()) <= indent:
            closing = lines[j].strip() in ("end", "}", "};", "end;", "fi", "done", "esac")
            return j if closing else last
        last = j
    return last


def symbol_span(text: str, path: str, name: str) -> tuple[int, int] | None:
    """(first, last) 1-based lines of symbol `name` (dotted for a member) in file `path`'s text, or None."""
    if path.endswith(_PY):
        spans = _python_spans(text)
        if spans is not None:
            return spans.get(name)
    lines = lines_of(text)
    lo, hi = 0, len(lines)
    span = None
    for part in name.split("."):
        span = _regex_span(lines, part, lo, hi)
        if span is None:
            return None
        lo, hi = span[0], span[1]  # the next part is declared inside this one
    return span


def region(text: str, start: int, end: int) -> tuple[str, ...]:
    """Lines `start`..`end` (1-based, inclusive) as compared: stripped, blank lines dropped."""
    return _norm(lines_of(text)[start - 1 : end])


def follow_range(old: str, new: str, start: int, end: int) -> tuple[bool, int, int]:
    """(changed, new start, new end): lines `start`..`end` of `old` followed into `new` through the diff of
    the two (whitespace ignored). Changed when a line inside was replaced or removed, or one was inserted
    between two of its lines; an edit above or below only shifts it."""
    a = [" ".join(ln.split()) for ln in lines_of(old)]
    b = [" ".join(ln.split()) for ln in lines_of(new)]
    lo, hi = start - 1, min(end, len(a))
    changed, new_lo, new_hi = False, None, None
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            s, e = max(i1, lo), min(i2, hi)
            if s < e:
                new_lo = j1 + (s - i1) if new_lo is None else new_lo
                new_hi = j1 + (e - i1)
            continue
        inside = (i1 < hi and i2 > lo) if i1 < i2 else lo < i1 < hi
        if inside and (any(x.strip() for x in a[i1:i2]) or any(x.strip() for x in b[j1:j2])):
            changed = True
    if new_lo is None or new_hi is None:
        return True, start, end
    return changed, new_lo + 1, new_hi


def find_block(text: str, block: tuple[str, ...]) -> tuple[int, int] | None:
    """(first, last) 1-based lines where the normalized `block` occurs in `text` (blank lines between its
    lines allowed), or None: where a cited range went when it moved."""
    if not block:
        return None
    lines = lines_of(text)
    keep = [(i, " ".join(ln.split())) for i, ln in enumerate(lines) if ln.strip()]
    vals = [v for _, v in keep]
    n = len(block)
    for k in range(len(vals) - n + 1):
        if vals[k] == block[0] and tuple(vals[k : k + n]) == block:
            return keep[k][0] + 1, keep[k + n - 1][0] + 1
    return None


def _import_lines(text: str) -> set[int]:
    """0-based lines that belong to import statements: an import-like line (_IMPORT), and the lines it
    continues onto (an open parenthesis or brace until it closes, a trailing backslash). Read line by line,
    not parsed: every seed after a commit asks it of every changed cited file, twice."""
    out: set[int] = set()
    lines = lines_of(text)
    i = 0
    while i < len(lines):
        if not _IMPORT.match(lines[i]):
            i += 1
            continue
        depth = 0
        while i < len(lines):
            out.add(i)
            line = lines[i]
            depth += line.count("(") + line.count("{") - line.count(")") - line.count("}")
            i += 1
            if depth <= 0 and not line.rstrip().endswith("\\"):
                break
    return out


@functools.lru_cache(maxsize=1024)
def significant(text: str, path: str) -> tuple[str, ...]:
    """The file's lines that count for a whole-file change: no blank or import lines, whitespace collapsed
    (kept per text: records citing one file share its baseline)."""
    skip = _import_lines(text)
    return tuple(" ".join(ln.split()) for i, ln in enumerate(lines_of(text)) if ln.strip() and i not in skip)


@functools.lru_cache(maxsize=1024)
def change_size(old: str | None, new: str | None, path: str) -> tuple[int, int]:
    """(significant lines changed, significant lines at the baseline) between two texts of one file; a file
    added or removed counts all its significant lines."""
    a = significant(old, path) if old is not None else ()
    b = significant(new, path) if new is not None else ()
    n = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            n += max(i2 - i1, j2 - j1)
    return n, len(a)


def file_drifted(changed: int, base: int) -> bool:
    """The size rule: a whole-file change drifts when it is at least MIN_LINES significant lines and at
    least SHARE of the file's significant lines at the baseline; a file of fewer than 2 × MIN_LINES such
    lines drifts when half of it changed (at least one line)."""
    return changed > 0 and changed >= min(max(MIN_LINES, SHARE * base), max(1.0, base / 2))

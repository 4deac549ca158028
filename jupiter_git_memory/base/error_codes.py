"""The error catalogue: every code the package can emit, its HTTP status, its CLI exit code and what it
means, said once (pure). Raise sites name an entry (`raise OperationError(E.MEMORY_NOT_FOUND, ...)`); the
docs' table (docs/errors.md, `.ci/error_reference.py`) and the API's OpenAPI error enum are generated from
it, and tests/test_error_codes.py fails on a code the source emits that is not here.

Adding a code is one line below: `NAME = _code("area/what", http_status, exit_code, "one-line meaning")`.
`exit_code` None: the code is never a CLI exit (HTTP-only). A raise site may still override the status or
exit code where a command's own contract says so (e.g. `jgm receipt show` exits 1 on an unknown receipt).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ErrorCode:
    """One catalogue entry. `family` entries stand for a code with a variable last part (`http/<status>`)."""

    code: str
    status: int
    exit_code: int | None
    meaning: str
    family: bool = False

    def __str__(self) -> str:
        return self.code


CATALOGUE: dict[str, ErrorCode] = {}


def _code(code: str, status: int, exit_code: int | None, meaning: str, family: bool = False) -> ErrorCode:
    if code in CATALOGUE:
        raise ValueError(f"error code {code!r} is in the catalogue twice")
    CATALOGUE[code] = entry = ErrorCode(code, status, exit_code, meaning, family)
    return entry


# fmt: off
# -- requests ------------------------------------------------------------------------------------------------
REQUEST_BAD_REQUEST = _code("request/bad-request", 400, 2, "The request or the command line is malformed; the message names the fix")
REQUEST_BAD_ID = _code("request/bad-id", 400, 2, "An id outside the record id pattern (so `../x` is refused)")
REQUEST_BAD_FILTER = _code("request/bad-filter", 400, 2, "An unknown kind, status or review state in a filter")
REQUEST_BAD_PAGE = _code("request/bad-page", 400, 2, "A page limit or offset out of range")
REQUEST_PATH_OUTSIDE_REPO = _code("request/path-outside-repo", 400, 2, "A path names a place outside the repository (the message names the path and the fix)")
REQUEST_BAD_STATUS = _code("request/bad-status", 400, 1, "A proposal's status is not `proposed` or `accepted`")
REQUEST_MISSING_REASON = _code("request/missing-reason", 400, 1, "A rejection without a reason (`--why`)")
REQUEST_TOO_LONG = _code("request/too-long", 400, 1, "A rejection reason over its length limit")
REQUEST_TOO_LARGE = _code("request/too-large", 413, None, "A request body over the size limit (256 KiB)")
REQUEST_UNSUPPORTED_MEDIA_TYPE = _code("request/unsupported-media-type", 415, None, "A body in a media type the route does not read")
REQUEST_BAD_HOST = _code("request/bad-host", 421, None, "The Host header is not 127.0.0.1, localhost, ::1, `--host` or an `--allow-host` name (DNS rebinding)")
REQUEST_INVALID = _code("request/invalid", 422, None, "The request failed validation; `details` names each field")
ROUTE_NOT_FOUND = _code("route/not-found", 404, None, "No such route or page")
ROUTE_METHOD_NOT_ALLOWED = _code("route/method-not-allowed", 405, None, "The route does not take this HTTP method")
HTTP_STATUS = _code("http/<status>", 400, None, "Any other HTTP error the web framework raises, by its status", family=True)
# -- auth, sessions and workspaces ---------------------------------------------------------------------------
AUTH_MISSING_TOKEN = _code("auth/missing-token", 401, None, "No bearer token was sent")
AUTH_INVALID_TOKEN = _code("auth/invalid-token", 401, None, "The bearer token is unknown or revoked")
AUTH_NO_SESSION = _code("auth/no-session", 403, None, "The review UI has no session (or it expired): log in again")
AUTH_TOKEN = _code("auth/token", 400, 2, "A token operation was refused (bad or taken name, unreadable token file)")
TOKEN_UNREADABLE = _code("token/unreadable", 400, 2, "`jgm token`: the token file cannot be read")
TOKEN_ERROR = _code("token/error", 400, 2, "`jgm token`: the token command failed (unknown name, bad grant)")
CSRF_CROSS_SITE = _code("csrf/cross-site", 403, None, "The review UI refused a cross-site request; nothing was changed")
CSRF_MISSING_TOKEN = _code("csrf/missing-token", 403, None, "The review UI's form token is missing or wrong; reload the page")
WORKSPACE_FORBIDDEN = _code("workspace/forbidden", 403, None, "The token is not granted this workspace")
WORKSPACE_NOT_FOUND = _code("workspace/not-found", 404, None, "This server does not serve that workspace")
# -- memory (records, recall, candidates) --------------------------------------------------------------------
MEMORY_NOT_FOUND = _code("memory/not-found", 404, 4, "No record, candidate or receipt with that id")
MEMORY_NO_WORKSPACE = _code("memory/no-workspace", 404, 4, "The path is in no Git work tree (recall answers `no-workspace`)")
MEMORY_NOT_SEEDED = _code("memory/not-seeded", 409, 5, "The store holds no records for the workspace: run `jgm seed`")
MEMORY_RETRIEVAL_FAILED = _code("memory/retrieval-failed", 503, 3, "Retrieval could not run; the answer is not \"no match\"")
REQUEST_BAD_TARGET = _code("request/bad-target", 400, 1, "A review action names its own candidate, or merges into a file-backed record")
MEMORY_CANDIDATE_FULL = _code("memory/candidate-full", 409, 1, "A duplicate's evidence would take the target candidate past its size limit; nothing changed")
MEMORY_FILE_BACKED = _code("memory/file-backed", 409, 4, "The record lives in a file: edit and commit it instead")
MEMORY_INVALID_STATE = _code("memory/invalid-state", 409, 1, "The candidate's review state does not allow the action")
MEMORY_NOT_OWNER = _code("memory/not-owner", 403, 1, "Only the agent that recorded a candidate (or a reviewer) can forget it")
MEMORY_UNAVAILABLE = _code("memory/unavailable", 503, 2, "The candidate service could not start (model or workspace unavailable)")
REVISION_NOT_FOUND = _code("revision/not-found", 404, 2, "`--at`/`--rev`/`at` names no commit")
REVISION_NO_MERGE_BASE = _code("revision/no-merge-base", 409, 2, "`jgm drift --base REV`: REV shares no history with the view's commit")
MODEL_UNAVAILABLE = _code("model/unavailable", 503, 2, "The embedding model cannot be loaded")
CHECK_UNRESOLVED_CITATION = _code("check/unresolved-citation", 422, None, "`jgm check` warning: a record cites a repository path, line or symbol that does not exist now and did not at the record's baseline (no drift: a wrong citation)")
CONFIG_INVALID = _code("config/invalid", 422, 2, "The repository's jgm.toml (or JGM_* environment) is invalid; the message names the key")
# -- candidates: a rejected observation (422, the body carries the full answer) ------------------------------
CANDIDATE_SECRET = _code("candidate/secret", 422, 1, "The text contains a secret; nothing was stored")
CANDIDATE_BAD_TEXT = _code("candidate/bad-text", 422, 1, "A field holds invalid Unicode or control characters")
CANDIDATE_UNKNOWN_KIND = _code("candidate/unknown-kind", 422, 1, "The kind cannot be requested")
CANDIDATE_MISSING_TITLE = _code("candidate/missing-title", 422, 1, "The title is empty")
CANDIDATE_BAD_TITLE = _code("candidate/bad-title", 422, 1, "The title is not one line within its length limit")
CANDIDATE_GENERIC_TITLE = _code("candidate/generic-title", 422, 1, "The title says nothing specific")
CANDIDATE_TOO_LONG = _code("candidate/too-long", 422, 1, "The body or a field is over its size limit")
CANDIDATE_TOO_SHORT = _code("candidate/too-short", 422, 1, "The body is too short to stand on its own")
CANDIDATE_PLACEHOLDER = _code("candidate/placeholder", 422, 1, "The text is a placeholder (TODO, n/a, ...)")
CANDIDATE_BAD_TAGS = _code("candidate/bad-tags", 422, 1, "Too many tags, or a tag that is not a single word")
CANDIDATE_BAD_SCOPE = _code("candidate/bad-scope", 422, 1, "The scope is not `project` or `transferable`")
CANDIDATE_BAD_FILES = _code("candidate/bad-files", 422, 1, "A `files` entry is not a repository-relative path")
CANDIDATE_BAD_SUPERSEDES = _code("candidate/bad-supersedes", 422, 1, "A `supersedes` entry is not a valid record id")
CANDIDATE_SUPERSEDE_TARGET = _code("candidate/supersede-target", 422, 1, "`supersedes` names no in-force record")
CANDIDATE_MISSING_RATIONALE = _code("candidate/missing-rationale", 422, 1, "A decision without its reason")
CANDIDATE_MISSING_EVIDENCE = _code("candidate/missing-evidence", 422, 1, "A fact or finding without evidence or a source")
CANDIDATE_RUN_KEY_REUSED = _code("candidate/run-key-reused", 422, 1, "The run key was used for other content (names the earlier candidate)")
# -- proposing a candidate as a record branch ----------------------------------------------------------------
PROPOSE_GIT_FAILED = _code("propose/git-failed", 409, 1, "A git command of the proposal failed (the message quotes it)")
PROPOSE_NO_BASE = _code("propose/no-base", 400, 1, "The base to branch from is not a commit")
PROPOSE_NO_ID = _code("propose/no-id", 500, 1, "No free record id was found; try again")
PROPOSE_IGNORED_PATH = _code("propose/ignored-path", 400, 1, "The record's path would be ignored by the knowledge settings")
PROPOSE_INVALID_RECORD = _code("propose/invalid-record", 500, 1, "The rendered record does not parse (a bug)")
# -- confirming a record against its cited code (`jgm drift confirm`) -----------------------------------------
CONFIRM_NOT_IN_FORCE = _code("confirm/not-in-force", 409, 1, "The record is retired or not in force (or a candidate): drift follows in-force records only")
CONFIRM_UNCITED = _code("confirm/uncited", 409, 1, "The record cites no repository path but its own file: there is no code to re-read it against")
CONFIRM_UNCOMMITTED = _code("confirm/uncommitted", 409, 1, "A cited file (with --branch: the record file) has uncommitted changes; commit or stash them first")
CONFIRM_NO_COMMIT = _code("confirm/no-commit", 409, 1, "The repository has no commit yet: a confirmation names one")
CONFIRM_UNWRITABLE = _code("confirm/unwritable", 409, 1, "The record file has no place for a `reviewed` line, or changed since it was indexed")
# -- the store and the index ---------------------------------------------------------------------------------
INDEX_BUSY = _code("index/busy", 409, 2, "Another writer holds the workspace lock; retry (Retry-After)")
INDEX_CATALOG_CORRUPT = _code("index/catalog-corrupt", 503, 2, "The SQLite catalog is corrupt; `jgm doctor` repairs it")
INDEX_CHROMA_UNAVAILABLE = _code("index/chroma-unavailable", 503, 2, "The vector store cannot be opened")
INDEX_CHROMA_AUTH = _code("index/chroma-auth", 401, 2, "The Chroma server refused the token (missing or wrong): set JGM_CHROMA_TOKEN or the store's chroma-token file")
INDEX_CHROMA_READ_ONLY = _code("index/chroma-read-only", 403, 2, "The Chroma server's token may read but not write: recall works, a seed needs a write token")
INDEX_IDENTITY_MISMATCH = _code("index/identity-mismatch", 409, 2, "The vectors were built by another embedder: reseed")
INDEX_SCHEMA_TOO_NEW = _code("index/schema-too-new", 409, 2, "The store was written by a newer jgm")
INDEX_SEED_INTERRUPTED = _code("index/seed-interrupted", 503, 130, "A seed was interrupted (Ctrl-C): what it kept is said; run `jgm seed` to finish")
INDEX_NEEDS_MIGRATION = _code("index/needs-migration", 409, 2, "The store needs a migration: run `jgm seed`")
STORE_READ_ONLY = _code("store/read-only", 503, 2, "The store cannot be written (read-only mount or no permission)")
STORE_DISK_FULL = _code("store/disk-full", 507, 2, "The store's disk is full; nothing was half-written")
GIT_TIMEOUT = _code("git/timeout", 504, 2, "A git or gh command of ours did not finish in time")
# -- local setup commands ------------------------------------------------------------------------------------
HOOKS_CONFLICT = _code("hooks/conflict", 409, 2, "Another tool's git hook or hooks folder is in the way; the message names the fix")
HOOKS_IO_ERROR = _code("hooks/io-error", 400, 2, "`jgm hooks`: a hook file cannot be read or written")
AGENT_BAD_CONFIG = _code("agent/bad-config", 422, 2, "`jgm agent`: the client's config file is not a JSON object (line named)")
AGENT_WRITE_FAILED = _code("agent/write-failed", 500, 2, "`jgm agent install` could not write a file; all it wrote was put back")
AGENT_UNKNOWN_CLIENT = _code("agent/unknown-client", 400, 2, "`jgm agent`: no such agent client")
AGENT_NO_SUCH_SCOPE = _code("agent/no-such-scope", 400, 2, "`jgm agent --scope`: not a scope, or one the client does not have")
# -- the rest ------------------------------------------------------------------------------------------------
JGM_ERROR = _code("jgm/error", 400, 2, "An error without a code of its own (a bug: report it)")
INTERNAL_ERROR = _code("internal/error", 500, None, "A bug; its traceback is in the store log")
# fmt: on


def entry(code: str) -> ErrorCode | None:
    """The catalogue entry of `code`, a family's for a code of one (`http/503`), else None."""
    if code in CATALOGUE:
        return CATALOGUE[code]
    family = code.rsplit("/", 1)[0] + "/<status>"
    found = CATALOGUE.get(family)
    return found if found is not None and found.family else None


def rejection(reason: str) -> ErrorCode:
    """The entry of a candidate rejected for `reason` (a check's reason code): `candidate/<reason>`. A reason
    with no entry still answers 422 (tests/test_error_codes.py fails on it first)."""
    code = f"candidate/{reason}"
    return CATALOGUE.get(code) or ErrorCode(code, 422, 1, "")


def openapi_schema() -> dict[str, object]:
    """The JSON schema of the `code` of an error body: one of the catalogue's codes (a family by pattern)."""
    codes = sorted(c for c, e in CATALOGUE.items() if not e.family)
    families = [{"pattern": "^" + c.replace("<status>", "[0-9]{3}") + "$"} for c, e in CATALOGUE.items() if e.family]
    return {"anyOf": [{"enum": codes}, *families], "description": "A stable error code: docs/errors.md lists them"}


def http_code(status: int) -> str:
    """The code of an HTTP error the web framework raised with `status` and we have no entry for."""
    return f"http/{status}"

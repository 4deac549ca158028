"""Issue 27, discovery: decision collections are found where teams keep them, with no config, and ordinary
docs stay out. Fixtures (tests/fixtures/wild) are small repositories we wrote, one per shape met in the wild."""

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from jupiter_git_memory.config import load_settings
from jupiter_git_memory.config.discover import MAX_DEPTH, discover, discovery_notes
from jupiter_git_memory.seed import sources
from jupiter_git_memory.seed.reading import read_knowledge

pytestmark = pytest.mark.unit

WILD = Path(__file__).parent / "fixtures" / "wild"


def read(repo: Path):
    """What `jgm seed` would index in `repo` (no config): settings and the lifecycle resolution."""
    settings = load_settings(repo)
    files, issues = sources.read_worktree(repo, settings)
    return settings, read_knowledge(files, {}, settings, reuse=False)


@pytest.mark.parametrize(
    "shape,roots,rule",
    [
        ("bullets", ("knowledge", "proposals"), "with a status marker"),
        ("stage", ("knowledge", "text"), "with a status marker"),
        ("section", ("knowledge", "docs/references/architecture"), "with a status marker"),  # three deep
        ("changelog", ("knowledge", "docs_src/design/adr"), "decision-record sections"),  # status only in a log
        ("nostatus", ("knowledge", "text"), "decision-record sections"),
        ("rootadr", ("knowledge", "."), "ADR files at the repository root"),
        ("folderreadme", ("knowledge", "rfcs"), "with a status marker"),
        ("statusfolders", ("knowledge", "accepted", "implemented", "withdrawn"), "with a status marker"),
        ("eip", ("knowledge", "EIPS"), "with a status marker"),
    ],
)
def test_each_shape_is_found_with_no_config_and_says_why(shape, roots, rule):
    settings = load_settings(WILD / shape)
    assert settings.roots == roots and not settings.roots_configured
    found = {c["root"]: c for c in settings.discovered["collections"]}
    assert set(found) == set(roots) - {"knowledge"}
    assert all(rule in c["rule"] and "decision records" in c["why"] for c in found.values())


# every record file of each shape; everything else there (READMEs, guides, changelogs, meeting notes,
# templates in any case, attachments of a record folder, vision docs) must stay out
RECORDS = {
    "bullets": [f"proposals/000{i}-" for i in range(1, 10)],
    "stage": ["text/0001-", "text/0002-", "text/0003-block", "text/0003-cli", "text/0004-"],
    "section": [f"docs/references/architecture/adr-10{i}-" for i in range(1, 9)]
    + ["docs/references/architecture/legacy/adr-001-"],
    "changelog": ["docs_src/design/adr/0001-", "docs_src/design/adr/0004-", "docs_src/design/adr/0005-"]
    + ["docs_src/design/adr/core/0006-", "docs_src/design/adr/devops/0007-release"],
    "nostatus": ["text/0001-", "text/0002-", "text/0003-", "text/0012-council.md", "text/0013-"]
    + ["text/metrics/0010-"],
    "rootadr": ["adr-001-", "adr-002-", "adr-003-"],
    "folderreadme": ["rfcs/0001-tenant-authorization/README.md", "rfcs/0002-oci-charts/README.md"]
    + ["rfcs/0003-plain-http/README.md"],
    "statusfolders": ["accepted/0010-", "accepted/0011-", "accepted/0012-", "implemented/0001-"]
    + ["implemented/0002-", "implemented/0003-", "withdrawn/0004-", "withdrawn/0005-", "withdrawn/0006-"],
    "eip": ["EIPS/eip-1.md", "EIPS/eip-20.md", "EIPS/eip-101.md", "EIPS/eip-150.md", "EIPS/eip-160.md"]
    + ["EIPS/eip-1046.md"],
}


@pytest.mark.parametrize("shape", sorted(RECORDS))
def test_every_decision_file_is_indexed_and_no_ordinary_doc(shape):
    _, k = read(WILD / shape)
    paths = sorted(r.path for r in k.resolution.records.values())
    assert len(paths) == len(RECORDS[shape]), paths
    for prefix in RECORDS[shape]:
        assert sum(1 for p in paths if p.startswith(prefix)) == 1, (prefix, paths)
    assert not [i for i in k.issues if i.severity == "error"]


def test_what_stays_out_says_why():
    _, k = read(WILD / "stage")
    skipped = {s["path"]: s["reason"] for s in k.collected.skipped}
    ignored = []
    settings = load_settings(WILD / "stage")
    sources.read_worktree(WILD / "stage", settings, ignored)
    assert {i["path"]: i["reason"] for i in ignored} == {"text/0000-TEMPLATE.md": "ignored: README, index or template"}
    _, k = read(WILD / "folderreadme")
    skipped = {s["path"]: s["reason"] for s in k.collected.skipped}
    assert (
        "attachment of the numbered record folder `0003-plain-http/`" in skipped["rfcs/0003-plain-http/threat-model.md"]
    )
    _, k = read(WILD / "nostatus")
    skipped = {s["path"]: s["reason"] for s in k.collected.skipped}
    assert set(skipped) == {"text/0012-council/motivation.md"}


def test_templates_are_ignored_in_any_case_and_by_a_placeholder_title(tmp_path):
    from jupiter_git_memory.records.formats import TEMPLATE, detect

    for name in ("0000-TEMPLATE.md", "0000-Template.md", "TEMPLATE.md", "rfc-template.md", "template-adr.md"):
        assert detect(f"text/{name}", "# Title\n\n## Status\n\nAccepted\n")[1] == TEMPLATE, name
    assert detect("rfcs/RFC-0000/README.md", "# RFC-NNNN Title\n\n**Status:** provisional\n")[0] is None
    assert detect("text/0014-project-templates.md", "# Project templates\n\n## Status\n\nAccepted\n")[0] == "nygard"
    assert detect("proposal-templates/0001-x.md", "# X\n\n* Status: **Accepted**\n")[1] == TEMPLATE


def test_ordinary_docs_by_name_are_never_records_unless_our_front_matter_says_so():
    from jupiter_git_memory.records.formats import ORDINARY, detect

    for name in ("CHANGELOG.md", "changes.md", "CONTRIBUTING.md", "Code_Of_Conduct.md", "SECURITY.md", "SUMMARY.md"):
        assert detect(f"docs/adr/{name}", "# X\n\n## Status\n\nAccepted\n") == (None, ORDINARY), name
    ours = "---\nid: security\nkind: fact\nstatus: verified\ntitle: S\n---\nbody\n"
    assert detect("knowledge/security.md", ours)[0] == "jgm"


def test_repository_root_adrs_are_read_without_the_folders_below(tmp_path):
    repo = tmp_path / "r"
    shutil.copytree(WILD / "rootadr", repo)
    (repo / "docs/guide/03-publish.md").write_text("# Publish\n\n## Status\n\nAccepted\n\n## Context\n\nx\n")
    settings, k = read(repo)
    assert settings.shallow_roots == (".",)
    assert sorted(r.path for r in k.resolution.records.values()) == [
        "adr-001-use-adrs.md",
        "adr-002-configuration.md",
        "adr-003-module-loading.md",
    ]
    assert {d["root"]: d["indexed"] for d in k.inventory} == {"knowledge": 0, ".": 3}


def test_roots_dot_in_the_config_reads_the_whole_repository(tmp_path):
    repo = tmp_path / "r"
    shutil.copytree(WILD / "rootadr", repo)
    (repo / "jgm.toml").write_text('roots = ["."]\n')
    settings, k = read(repo)
    assert settings.roots == (".",) and settings.shallow_roots == ()
    paths = {r.path for r in k.resolution.records.values()}
    assert {"adr-001-use-adrs.md", "adr-002-configuration.md", "adr-003-module-loading.md"} <= paths
    assert {d["root"]: d["indexed"] for d in k.inventory}["."] == len(paths) >= 3  # not a silent zero


def test_a_near_miss_is_named_with_a_roots_line_that_is_valid_toml():
    settings = load_settings(WILD / "nearmiss")
    assert settings.roots == ("knowledge",)
    (note,) = discovery_notes(settings)
    assert note.startswith("design looks like a decision collection (2 of 2 Markdown files")
    line = note.split("set in jgm.toml: ", 1)[1]
    assert tomllib.loads(line) == {"roots": ["knowledge", "design"]}


def test_configured_roots_get_no_discovery_and_no_notes(tmp_path):
    repo = tmp_path / "r"
    shutil.copytree(WILD / "nearmiss", repo)
    (repo / "knowledge").mkdir()
    (repo / "jgm.toml").write_text('roots = ["knowledge"]\n')
    settings = load_settings(repo)
    assert settings.discovered == {} and discovery_notes(settings) == []


def _write(repo: Path, rel: str, text: str) -> None:
    p = repo / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


ADR = "# {n}. Decision {n}\n\n## Status\n\nAccepted\n\n## Context\n\nc\n\n## Decision\n\nd\n"


def test_depth_limit_and_test_data_folders(tmp_path):
    deep = "/".join(f"l{i}" for i in range(MAX_DEPTH - 1))
    too_deep = "/".join(f"l{i}" for i in range(MAX_DEPTH + 1))
    for n in (1, 2, 3):
        _write(tmp_path, f"{deep}/adr/000{n}-x.md", ADR.format(n=n))
        _write(tmp_path, f"{too_deep}/adr/000{n}-x.md", ADR.format(n=n))
        _write(tmp_path, f"tests/fixtures/adr/000{n}-x.md", ADR.format(n=n))
    assert discover(tmp_path).roots == ("knowledge", f"{deep}/adr")


def test_numbered_guides_tutorials_and_dated_meeting_notes_are_not_collections(tmp_path):
    for i, t in enumerate(("install", "configure", "deploy", "upgrade"), 1):
        _write(tmp_path, f"docs/guide/0{i}-{t}.md", f"# {t}\n\n## Prerequisites\n\nx\n\n## Steps\n\ny\n")
        _write(tmp_path, f"docs/tutorial/{i}.{t}.md", f"# Part {i}\n\n## Summary\n\nx\n\n## Next steps\n\ny\n")
        _write(tmp_path, f"meetings/2024-0{i}-01.md", f"# Meeting {i}\n\n## Attendees\n\nA\n\n## Agenda\n\nB\n")
    d = discover(tmp_path)
    assert d.roots == ("knowledge",) and d.near_misses == []


def test_a_folder_of_collections_with_nothing_else_becomes_one_root(tmp_path):
    kep = "# KEP-{n}: X\n\n## Summary\n\ns\n\n## Motivation\n\nm\n\n## Proposal\n\np\n\n## Drawbacks\n\nd\n"
    for i, sig in enumerate(("sig-a", "sig-b", "sig-c"), 1):
        for n in (1, 2, 3):
            _write(tmp_path, f"keps/{sig}/{i}{n}-x/README.md", kep.format(n=n))
            _write(tmp_path, f"keps/{sig}/{i}{n}-x/images/diagram.md", "# Diagram\n\ntext\n")
    _write(tmp_path, "keps/sig-d/47-x/README.md", kep.format(n=47))  # one alone: a near miss, gathered too
    _write(tmp_path, "keps/README.md", "# KEPs\n")
    d = discover(tmp_path)
    assert d.roots == ("knowledge", "keps") and d.near_misses == []
    assert "3 collections below it" in d.collections[0]["why"]
    _write(tmp_path, "keps/howto/writing.md", "# How to write a KEP\n\nSteps.\n")  # an ordinary doc below
    assert discover(tmp_path).roots == ("knowledge", "keps/sig-a", "keps/sig-b", "keps/sig-c")


def test_inventory_and_check_json_say_how_each_root_was_found():
    from jupiter_git_memory.seed.checking import check_repo

    rep = check_repo(WILD / "section", load_settings(WILD / "section"))
    inv = {d["root"]: d for d in rep["inventory"]}
    assert inv["docs/references/architecture"]["found_by"].startswith("a folder of decision records")
    json.dumps(rep["inventory"])  # what `jgm check --json` prints


def test_records_without_status_get_one_note_per_root_with_the_line_that_maps_them():
    _, k = read(WILD / "nostatus")
    (note,) = [i for i in k.issues if "say no status" in i.message]
    assert (note.path, note.severity) == ("text", "warning") and "6 records" in note.message
    line = note.fix.split("under [status_map]: ", 1)[1]
    assert tomllib.loads(f"[status_map]\n{line}") == {"status_map": {"text/": "accepted"}}
    assert {d["root"]: d.get("no_status") for d in k.inventory} == {"knowledge": None, "text": 6}


def test_no_note_when_the_team_reads_records_without_status_as_accepted(tmp_path):
    repo = tmp_path / "r"
    shutil.copytree(WILD / "nostatus", repo)
    (repo / "jgm.toml").write_text('roots = ["text"]\nadr_missing_status = "accepted"\n')
    _, k = read(repo)
    assert {r.status for r in k.resolution.records.values()} == {"accepted"}
    assert not [i for i in k.issues if "say no status" in i.message]


def test_a_commit_is_read_like_the_worktree_for_a_shallow_root(repo):
    shutil.copytree(WILD / "rootadr", repo.path, dirs_exist_ok=True)
    repo.commit("root adrs")
    settings = load_settings(repo.path)
    tree, _ = sources.read_worktree(repo.path, settings)
    rev, _ = sources.read_rev(repo.path, "HEAD", settings)
    assert (
        sorted(f.path for f in rev)
        == sorted(f.path for f in tree)
        == [
            "adr-001-use-adrs.md",
            "adr-002-configuration.md",
            "adr-003-module-loading.md",
        ]
    )


def test_status_folders_without_numbers_are_found_and_read_by_their_folder():
    """Proposals filed under `accepted/<year>/` and `proposed/` with no number and no status line (the
    dotnet/designs shape): each status folder is a root, its titled files are records with the folder's
    status; the guide and template beside them, README and CONTRIBUTING stay out."""
    settings, k = read(WILD / "unnumbered")
    assert settings.roots == ("knowledge", "accepted", "proposed")
    found = {c["root"]: c for c in settings.discovered["collections"]}
    assert set(found) == {"accepted", "proposed"}
    assert "named by a status" in found["accepted"]["rule"] and "beside `proposed/`" in found["accepted"]["why"]
    records = {r.path: r for r in k.resolution.records.values()}
    assert sorted(records) == [
        "accepted/2024/cache-keys.md",
        "accepted/2024/retry-budget/retry-budget-telemetry.md",
        "accepted/2024/retry-budget/retry-budget.md",
        "accepted/2025/plugin-loading.md",
        "proposed/config-reload.md",
        "proposed/queue-sharding.md",
    ]
    status = {p: k.resolution.effective[r.id] for p, r in records.items()}
    assert status["accepted/2024/cache-keys.md"] == "accepted" and status["proposed/queue-sharding.md"] == "proposed"
    assert records["accepted/2025/plugin-loading.md"].id == "plugin-loading"
    assert not [i for i in k.issues if i.severity == "error"]


@pytest.mark.parametrize(
    "folders",
    [
        ("drafts", "review"),  # two status folders, both merely proposed: a docs tree's drafts, not verdicts
        ("accepted",),  # one status folder alone
    ],
)
def test_status_named_doc_folders_are_not_collections_without_a_verdict_beside_them(tmp_path, folders):
    repo = tmp_path / "r"
    for f in folders:
        for i, topic in enumerate(("install", "upgrade", "backup", "restore")):
            page = repo / "docs" / f / f"{topic}.md"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"# How to {topic}\n\n## Goals\n\nStep {i}.\n\n## Design\n\nRun the {topic} command.\n")
    settings = load_settings(repo)
    assert settings.roots == ("knowledge",) and not settings.discovered["collections"]

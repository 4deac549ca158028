"""Issue 34 part 6: ADR collections written in Chinese (Traditional and Simplified), in the adr-tools/Nygard
shape (`## 狀態` / `已接受`) and the MADR shapes (`* 状态：已被 [ADR-0004](…) 取代`, front matter), are found
with no config and every record gets its right status and supersession link. The fixtures are our own
(tests/fixtures/wild/zh_hant, zh_hans). Pure, no index."""

from pathlib import Path

import pytest

from jupiter_git_memory.config import load_settings
from jupiter_git_memory.records.formats import TEMPLATE, detect, read_record
from jupiter_git_memory.records.formats.evidence import decision_sections, examine, headings
from jupiter_git_memory.records.formats.status import read_status
from jupiter_git_memory.seed import sources
from jupiter_git_memory.seed.reading import read_knowledge

pytestmark = pytest.mark.unit

WILD = Path(__file__).parent / "fixtures" / "wild"


def read(repo: Path):
    settings = load_settings(repo)
    files, _issues = sources.read_worktree(repo, settings)
    return settings, read_knowledge(files, {}, settings, reuse=False)


@pytest.mark.parametrize(
    "shape,root,expected",
    [
        (
            "zh_hant",
            "docs/架構決策",
            {
                "ADR-0001": ("nygard", "accepted", "accepted", (), "記錄架構決策"),
                "ADR-0002": ("nygard", "superseded", "superseded", ("ADR-0005",), "訂單資料存放在自建 PostgreSQL"),
                "ADR-0003": ("nygard", "rejected", "rejected", (), "以 Kafka 傳遞訂單事件"),
                "ADR-0004": ("nygard", "proposed", "proposed", (), "導入服務網格"),
                "ADR-0005": ("nygard", "accepted", "accepted", (), "改用託管 PostgreSQL"),
                "ADR-0006": ("nygard", "deprecated", "deprecated", (), "前端以 jQuery 撰寫"),
            },
        ),
        (
            "zh_hans",
            "design/决策",
            {
                "ADR-0001": ("madr3", "accepted", "accepted", (), "使用 Markdown 记录架构决策"),
                "ADR-0002": ("madr2", "superseded", "superseded", ("ADR-0004",), "用 Redis 保存幂等键"),
                "ADR-0003": ("madr2", "accepted", "accepted", (), "回调签名使用 HMAC-SHA256"),
                "ADR-0004": ("madr2", "accepted", "accepted", (), "幂等键改存 PostgreSQL"),
                "ADR-0005": ("madr2", "proposed", "proposed", (), "对账改为实时流处理"),
                "ADR-0006": ("madr2", "rejected", "rejected", (), "支持货到付款"),
                "ADR-0007": ("madr2", "deprecated", "deprecated", (), "旧版 SOAP 接口"),
            },
        ),
    ],
)
def test_a_chinese_collection_is_found_and_every_record_gets_its_status_and_links(shape, root, expected):
    settings, k = read(WILD / shape)
    assert settings.roots == ("knowledge", root) and not settings.roots_configured
    res = k.resolution
    got = {rid: (r.format, r.status, res.effective[rid], r.superseded_by, r.title) for rid, r in res.records.items()}
    assert got == expected
    assert not [i for i in k.issues if i.severity == "error"]
    assert not [r for r in res.records.values() if "status_unmapped" in r.metadata]
    if shape == "zh_hant":  # the link is written on both sides; the replacement says `取代 [ADR-0002]`
        assert res.records["ADR-0005"].supersedes == ("ADR-0002",)
        assert res.superseded_by["ADR-0002"] == ["ADR-0005"]
        assert res.records["ADR-0002"].metadata["status_as_written"].startswith("已被 [ADR-0005]")
        assert res.records["ADR-0001"].date == "2023-03-01"  # `日期：`
    else:
        assert res.superseded_by["ADR-0002"] == ["ADR-0004"]
        assert res.records["ADR-0003"].metadata["decision-makers"] == "王伟"  # `* 决策者：`


@pytest.mark.parametrize(
    "written,status,links",
    [
        ("已接受", "accepted", {}),
        ("已採納", "accepted", {}),
        ("已采纳", "accepted", {}),
        ("已批准", "accepted", {}),
        ("已通過", "accepted", {}),
        ("已通过", "accepted", {}),
        ("已實施", "accepted", {}),
        ("已实施", "accepted", {}),
        ("已接受（2024-01-15）。", "accepted", {}),
        ("已接受並已實施", "accepted", {}),  # no space between words: the longest known start counts
        ("提議", "proposed", {}),
        ("提议", "proposed", {}),
        ("提議中", "proposed", {}),
        ("草稿", "proposed", {}),
        ("討論中", "proposed", {}),
        ("讨论中", "proposed", {}),
        ("已否決", "rejected", {}),
        ("已否决", "rejected", {}),
        ("已拒絕", "rejected", {}),
        ("已拒绝", "rejected", {}),
        ("已撤回", "rejected", {}),
        ("已廢棄", "deprecated", {}),
        ("已废弃", "deprecated", {}),
        ("已棄用", "deprecated", {}),
        ("已弃用", "deprecated", {}),
        ("已取代", "superseded", {}),
        ("已被取代", "superseded", {}),
        ("已被 [ADR-0005](0005-x.md) 取代", "superseded", {"superseded_by": ["ADR-0005"]}),
        ("被 ADR-9 所取代", "superseded", {"superseded_by": ["ADR-0009"]}),
        ("由 [RFC-12](0012-y.md) 替代", "superseded", {"superseded_by": ["ADR-0012"]}),
        ("已被取代，見 ADR-0004", "superseded", {"superseded_by": ["ADR-0004"]}),
        ("已被ADR-0007取代", "superseded", {"superseded_by": ["ADR-0007"]}),
        ("已接受，後來已被 [ADR-8](0008-z.md) 取代", "superseded", {"superseded_by": ["ADR-0008"]}),
        ("已废弃，改用 [ADR-0007](0007-x.md)", "deprecated", {"superseded_by": ["ADR-0007"]}),
        ("已採納。後來已棄用", "deprecated", {}),  # a retiring word anywhere wins, as in English
        # active voice: this record replaced another one, it is not retired
        ("已接受，取代 [ADR-0002](0002-y.md)", "accepted", {"supersedes": ["ADR-0002"]}),
        ("已接受，已取代 ADR-3", "accepted", {"supersedes": ["ADR-0003"]}),
        # "理由" and "替代方案" hold 由 and 替代 and retire nothing
        ("已接受，理由見 ADR-3 的替代方案", "accepted", {}),
    ],
)
def test_chinese_status_words_and_link_phrases(written, status, links):
    got = read_status([(5, written)], "docs/adr/0001-a.md", {})
    assert (got.status, got.links, got.unknown) == (status, links, None)


def test_an_unknown_chinese_word_is_never_in_force_and_names_its_key():
    r = read_record("docs/adr/0001-a.md", "# 1. 甲\n\n## 狀態\n\n已凍結\n".encode()).outcome.record
    assert (r.status, r.metadata["status_unmapped"]) == ("proposed", "已凍結")


def test_chinese_status_places_sections_and_templates():
    nygard_line = "# 1. 甲\n\n狀態：已接受\n\n## 背景\n\nx\n"
    assert detect("docs/adr/0001-a.md", nygard_line) == ("nygard", "a `Status:` line")
    assert detect("docs/adr/0001-a.md", "# 1. 甲\n\n## 状态\n\n已采纳\n")[0] == "nygard"
    assert detect("docs/adr/0001-a.md", "# 甲\n\n* 狀態: 已接受\n")[0] == "madr2"
    heads = list(headings(["# 標題", "## 背景與問題陳述", "## 考慮的選項", "## 決策結果", "## 後果"]))
    assert decision_sections(heads)[0] == ("背景", "考慮的選項", "決策結果")
    guide = list(headings(["# 前端指南", "## 狀態管理", "## 背景資料", "## 結果頁面", "## 後果"]))
    assert decision_sections(guide) == (("後果",), ())  # state management, background data: a guide's words
    for name in ("0000-模板.md", "模板.md", "adr-范本.md"):
        assert detect(f"docs/adr/{name}", "# 甲\n\n## 狀態\n\n已接受\n")[1] == TEMPLATE, name
    titled = read_record("docs/adr/0012-a.md", "# 12、採用 gRPC\n\n## 狀態\n\n已接受\n".encode()).outcome.record
    assert titled.title == "採用 gRPC"


def test_unnumbered_chinese_file_names_get_distinct_stable_ids_and_links_resolve():
    from jupiter_git_memory.lifecycle.resolve import resolve

    old = read_record(
        "docs/adr/使用自建資料庫.md", "# 使用自建資料庫\n\n## 狀態\n\n已被 [新決策](改用託管資料庫.md) 取代\n".encode()
    )
    new = read_record("docs/adr/改用託管資料庫.md", "# 改用託管資料庫\n\n## 狀態\n\n已接受\n".encode())
    a, b = old.outcome.record, new.outcome.record
    assert a.id != b.id and a.id.startswith("adr-") and b.id.startswith("adr-")
    assert read_record("docs/adr/使用自建資料庫.md", b"# x\n\n## Status\n\nAccepted\n").outcome.record.id == a.id
    res = resolve([a, b])
    assert res.records[a.id].superseded_by == (b.id,) and res.effective[a.id] == "superseded"
    assert not res.issues


def test_a_dated_status_log_counts_its_last_entry_and_a_vocabulary_line_says_nothing():
    """The shape of a Chinese ADR tool: `## 状态` holds the list of words, then dated entries, oldest first."""
    log = "列表：提议/通过/完成/已弃用/已取代\n\n2023-04-02 提议\n\n2023-04-09 通过\n2023/05/01 完成\n"
    text = f"# 3. 缓存层使用 Redis\n\n日期: 2023/04/02\n\n## 状态\n\n{log}\n## 上下文\n\nc\n\n## 决策\n\nd\n\n## 结果\n\ne\n"
    r = read_record("docs/adr/0003-缓存层使用-redis.md", text.encode()).outcome.record
    assert (r.status, r.metadata["status_as_written"], r.lines["status"]) == ("accepted", "2023/05/01 完成", 12)
    assert "last dated entry" in r.metadata["status_rule"]
    retired = text.replace("2023/05/01 完成", "2023-06-01 已弃用")
    assert read_record("docs/adr/0003-x.md", retired.encode()).outcome.record.status == "deprecated"
    only_list = text.replace(log, "列表：提议/通过/完成/已弃用/已取代\n")
    r = read_record("docs/adr/0003-x.md", only_list.encode()).outcome.record
    assert r.status == "proposed" and "status_unmapped" not in r.metadata  # no status: the missing-status rule
    english = read_status([(3, "2020-01-02 Proposed"), (4, "2020-03-04 Accepted")], "docs/adr/0001-a.md", {})
    assert english.status == "accepted"
    assert read_status([(3, "Proposed | Accepted | Rejected")], "docs/adr/0001-a.md", {}).status is None
    assert read_status([(3, "Accepted | Implemented")], "docs/adr/0001-a.md", {}).status == "accepted"
    assert examine("docs/adr/0003-x.md", text).structured  # 上下文, 决策 (and 状态) are a decision's sections


def test_a_chinese_change_log_says_the_status_when_nothing_else_does():
    text = "# 4. 甲\n\n## 背景\n\nb\n\n## 變更記錄\n\n- 2023-01-02 提議\n- 2023-02-03 已接受\n\n## 決策\n\nd\n"
    r = read_record("docs/adr/0004-甲.md", text.encode()).outcome.record
    assert (r.status, r.metadata["status_source"]) == ("accepted", "a change-log entry")

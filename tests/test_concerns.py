"""The concern splitter on goals written freely (recall/concerns.py, issue 34 part 7). Pure: no model.
Measured on the task eval's `free` tasks: bench/README.md (task recall)."""

from __future__ import annotations

import pytest

from jupiter_git_memory.recall.concerns import MAX_CONCERNS, content_words, split_concerns

pytestmark = pytest.mark.unit


def test_additive_words_and_discourse_fillers():
    assert split_concerns("fix how we round tax and also make sure invoice numbers never skip") == [
        "fix how we round tax",
        "invoice numbers never skip",
    ]
    assert split_concerns("clean up the webhook sender and while you are at it check the signature header") == [
        "clean up the webhook sender",
        "check the signature header",
    ]
    # "plus" announces another item: one content word is enough for it to stand
    assert split_concerns("add a created_at column to shipments plus the migration for it") == [
        "add a created_at column to shipments",
        "the migration for it",
    ]
    assert split_concerns("switch the labels to pdf btw the customs form gets rejected") == [
        "switch the labels to pdf",
        "the customs form gets rejected",
    ]


def test_inline_lists_brackets_dashes_and_slashes():
    assert split_concerns(
        "todo for the api: 1) keys hashed 2) cursor paging on /shipments 3) no personal data in logs"
    ) == [
        "todo for the api",
        "keys hashed",
        "cursor paging on /shipments",
        "no personal data in logs",
    ]
    assert split_concerns("update the DHL adapter (the sandbox keeps throttling us) - does DHL cap piece weight?") == [
        "update the DHL adapter",
        "the sandbox keeps throttling us",
        "does DHL cap piece weight",
    ]
    assert split_concerns("deadlocks under load / sql built by string formatting") == [
        "deadlocks under load",
        "sql built by string formatting",
    ]
    assert split_concerns("- fix the cache\n- 2. round VAT\n3) sign webhooks") == [
        "fix the cache",
        "round VAT",
        "sign webhooks",
    ]


def test_a_question_implying_a_second_concern_is_its_own_concern():
    # one content word is enough for a sentence ("customs"); a clause needs two
    assert split_concerns("can you get label printing working for Canada? what do they need for customs") == [
        "can you get label printing working for Canada",
        "what do they need for customs",
    ]


def test_small_pieces_go_back_with_the_words_that_separated_them():
    # never "flip the flag rebuilding it": that would ask the opposite
    assert split_concerns("make the image smaller and let me flip the beta flag without rebuilding it") == [
        "make the image smaller",
        "let me flip the beta flag without rebuilding it",
    ]
    assert split_concerns("keep record(s) in git") == []  # a bracket inside a word splits nothing
    assert split_concerns("Thanks! Fix the flaky test") == []  # a sentence with no content word joins the next


def test_content_words_and_the_bound():
    assert content_words("HTTP 429 in 2 s and also 12 x") == ["http", "429"]
    assert len(split_concerns(", also ".join(f"topic number {i}" for i in range(9)))) == MAX_CONCERNS


def test_chinese_goals_split_at_their_punctuation_and_connectives():
    # full-width commas, with the connective after them part of the separator, and the discourse words dropped
    assert split_concerns("把資料庫的密碼換掉，另外確認備份保留幾天，順便看一下登入多久會過期") == [
        "把資料庫的密碼換掉",
        "備份保留幾天",
        "登入多久會過期",
    ]
    # questions end sentences, full-width or ASCII glued to Chinese; 以及 and 并且 split without a comma
    assert split_concerns("新版本先放多少流量？出问题会自动回退吗?数据库迁移要注意什么") == [
        "新版本先放多少流量",
        "出问题会自动回退吗",
        "数据库迁移要注意什么",
    ]
    assert split_concerns("幫支付 API 加上冪等檢查以及處理支付寶的重複通知") == [
        "幫支付 API 加上冪等檢查",
        "處理支付寶的重複通知",
    ]
    assert split_concerns("待辦：1. 折價券能不能疊加 2. 配送時段的容量怎麼算") == [
        "待辦",
        "折價券能不能疊加",
        "配送時段的容量怎麼算",
    ]
    assert split_concerns("部署到台灣區的叢集，並確認應用日誌保留多久") == ["部署到台灣區的叢集", "應用日誌保留多久"]
    # a decimal after Chinese is a number, not a list item
    assert split_concerns("把服務升級到3.11版本並打開新的快取功能") == []
    assert split_concerns("把服務升級到3.11版，另外快取保留2.5天") == ["把服務升級到3.11版", "快取保留2.5天"]


def test_small_chinese_pieces_stay_with_their_neighbour():
    # an enumeration of short names is one concern; a clause under two topic words goes back with its comma
    assert split_concerns("台灣站的金流要支援信用卡、ATM、超商代碼") == []
    assert split_concerns("短信验证码用的是哪家供应商、多久过期") == []
    assert split_concerns("这周轮到我值班，值班是怎么排的") == []
    # words that also start a noun stay where no verb follows them (請假: leave; 最後一筆: the last one)
    assert split_concerns("請假流程要改；另外最後一筆訂單的狀態不對") == ["請假流程要改", "最後一筆訂單的狀態不對"]
    assert split_concerns("請確認備份保留幾天；最後把快取清掉") == ["備份保留幾天", "把快取清掉"]
    # 并 starts a word here (并发: concurrency), not a connective: nothing is dropped from it
    assert split_concerns("接口的并发连接数太多了；另外 Redis 的内存也快满了") == [
        "接口的并发连接数太多了",
        "Redis 的内存也快满了",
    ]

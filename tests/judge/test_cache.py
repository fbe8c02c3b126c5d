"""Cache keys and modes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge.cache import JudgeCache, cache_key, canonical_json
from judge.errors import CacheMissError


def test_key_is_canonical() -> None:
    a = cache_key(backend="openai", model="m", params={"temperature": 0, "seed": 1},
                  messages=[{"role": "user", "content": "职位"}])
    b = cache_key(messages=[{"content": "职位", "role": "user"}],
                  params={"seed": 1, "temperature": 0}, model="m", backend="openai")
    assert a == b and len(a) == 64
    assert cache_key(backend="openai", model="m2") != cache_key(backend="openai", model="m")
    assert canonical_json({"b": 1, "a": "é"}) == '{"a":"é","b":1}'


@pytest.mark.parametrize("secret", ["api_key", "Authorization", "headers", "x-api-key"])
def test_credentials_never_enter_a_key(secret: str) -> None:
    with pytest.raises(ValueError, match="credential"):
        cache_key(backend="openai", params={secret: "sk-test"})
    assert cache_key(params={"max_tokens": 10})  # not a credential


def test_modes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    rw = JudgeCache(tmp_path / "c", "read-write")
    assert rw.get("k") is None
    assert rw.set("k", {"raw": "x"}) is True
    assert rw.get("k") == {"raw": "x"}
    assert rw.stats()["entries"] == 1
    rw.close()
    ro = JudgeCache(tmp_path / "c", "read-only")
    assert ro.get("k") == {"raw": "x"}
    assert ro.set("k2", 1) is False and ro.get("k2") is None
    ro.close()
    off = JudgeCache(tmp_path / "c", "off")
    assert off.get("k") is None and off.set("k", 2) is False
    only = JudgeCache(tmp_path / "c", "cache-only")
    assert only.get("k") == {"raw": "x"}
    with pytest.raises(CacheMissError, match="cache-only"):
        only.get("missing")
    only.close()
    assert JudgeCache(tmp_path / "c").clear() == 1
    with pytest.raises(ValueError, match="cache mode"):
        JudgeCache(tmp_path / "c", "sometimes")


def test_default_dir_env(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SIMJUDGE_CACHE_DIR", str(tmp_path / "env"))
    assert JudgeCache().directory == tmp_path / "env"


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=60))
def test_key_template_gives_cache_keys_digest(text: str) -> None:
    """An embedding judge's per-string key (judge.cache.KeyTemplate) is cache_key's digest for
    any string: quotes, backslashes, control characters, CJK, surrogates' neighbours."""
    from judge.cache import KeyTemplate, cache_key

    parts = {"backend": "local", "model": "m", "package": "p", "package_version": "0.2.1",
             "kind": "embedding"}
    assert KeyTemplate("text", **parts).key(text) == cache_key(**parts, text=text)
    # the varying part need not sort last
    assert KeyTemplate("a", **parts).key(text) == cache_key(**parts, a=text)


def test_key_template_refuses_credential_parts() -> None:
    from judge.cache import KeyTemplate

    with pytest.raises(ValueError, match="api_key"):
        KeyTemplate("text", api_key="sk-x")

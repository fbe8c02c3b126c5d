"""``simjudge export RUN OUT.tar.gz --with-cache``: the bundle replays the run exactly with
``--cache-mode cache-only`` and no server; a cache missing an entry is refused before anything
is written."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tarfile
from pathlib import Path

import diskcache
import pytest
from typer.testing import CliRunner

from judge.cli import app
from judge.record.store import load_run
from judge.runs.export import replay_command, used_cache_keys
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

runner = CliRunner()
ITEMS = [{"id": "1", "pred": ["apple", "dog"], "truth": ["Apfel", "Hund", "Katze"]},
         {"id": "2", "pred": ["eagle"], "truth": ["Esel", "Adler"]}]


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-written")


def _rows(path: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, FakeOpenAIServer]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "d.jsonl").write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    monkeypatch.chdir(work)
    srv = FakeOpenAIServer(FakeServerConfig(position_bias=0.3))
    srv.__enter__()
    args = ["eval", "d.jsonl", "--judge", "openai:fake", "--base-url", srv.base_url, "--out",
            "run", "--cache-dir", "c", "--probe", "swap=1", "--bootstrap", "50"]
    monkeypatch.setattr(sys, "argv", ["simjudge", *args])  # config.json records the argv
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return work, srv


def test_bundle_replays_exactly_with_no_server(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    work, srv = _run(tmp_path, monkeypatch)
    calls = len(srv.log)
    srv.__exit__(None, None, None)  # the server is gone: a replay cannot call it
    # 3 items' pairs: 2×3 + 1×2 = 8 pairs judged, then each swapped (swap=1): 16 calls, all
    # with distinct keys (the swapped prompt differs)
    assert calls == 16
    record = load_run(work / "run")
    assert len(used_cache_keys(record)) == 16
    res = runner.invoke(app, ["export", "run", "bundle.tar.gz", "--with-cache"])
    assert res.exit_code == 0, res.output
    assert "16 cache entries" in res.output
    with tarfile.open(work / "bundle.tar.gz") as tar:
        names = tar.getnames()
        tar.extractall(tmp_path / "elsewhere", filter="data")
    assert {"bundle/MANIFEST.json", "bundle/input/data.jsonl", "bundle/run/config.json",
            "bundle/cache/index.json", "bundle/prompts/entity_similarity/v1.jinja",
            "bundle/prompts/versions.lock"} <= set(names)
    blob = b"".join((tmp_path / "elsewhere" / n).read_bytes() for n in names
                    if (tmp_path / "elsewhere" / n).is_file())
    assert b"sk-test-never-written" not in blob  # no API key anywhere in the bundle
    shutil.rmtree(work)  # the original run, cache and data are gone
    bundle = tmp_path / "elsewhere" / "bundle"
    manifest = json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["cache_entries"] == 16
    replay = manifest["replay"]
    assert replay[:3] == ["simjudge", "eval", "input/data.jsonl"]
    assert replay[-6:] == ["--cache-dir", "cache", "--cache-mode", "cache-only", "--out",
                           "replay"]
    monkeypatch.chdir(bundle)
    res = runner.invoke(app, replay[1:])
    assert res.exit_code == 0, res.output
    a = json.loads((bundle / "run" / "summary.json").read_text(encoding="utf-8"))
    b = json.loads((bundle / "replay" / "summary.json").read_text(encoding="utf-8"))
    assert b["judge_calls"] == 0 and b["cache_hits"] == 16
    assert b["metrics"] == a["metrics"] and b["probes"] == a["probes"]
    assert b["bootstrap"] == a["bootstrap"]

    def key(v: dict) -> tuple:  # type: ignore[type-arg]
        return (v.get("item_id"), v["pred"], v["truth"])

    va = sorted(_rows(bundle / "run" / "verdicts.jsonl"), key=key)
    vb = sorted(_rows(bundle / "replay" / "verdicts.jsonl"), key=key)
    assert [(key(v), v["score"], v["rationale"], v["cache_key"]) for v in va] == \
        [(key(v), v["score"], v["rationale"], v["cache_key"]) for v in vb]


def test_missing_entries_are_refused_and_nothing_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work, srv = _run(tmp_path, monkeypatch)
    srv.__exit__(None, None, None)
    res = runner.invoke(app, ["export", "run", "b.tar.gz", "--with-cache", "--cache-dir",
                              str(tmp_path / "empty")])
    assert res.exit_code == 2 and "no cache at" in res.output
    record = load_run(work / "run")
    first = used_cache_keys(record)[0]
    with diskcache.Cache(str(work / "c")) as dc:  # lose one entry the run used
        assert dc.delete(first)
    res = runner.invoke(app, ["export", "run", "b.tar.gz", "--with-cache"])
    assert res.exit_code == 2
    assert "1 of the 16 cache entries the run used are not in" in res.output
    assert first in res.output
    assert not list(work.glob("b.tar.gz*"))  # neither the bundle nor a partial file
    # without the cache the bundle is written; its replay would call the judges again
    (work / "d.jsonl").write_text("changed\n", encoding="utf-8")
    res = runner.invoke(app, ["export", "run", "b.tar.gz"])
    assert res.exit_code == 0, res.output
    assert "input data not included: d.jsonl: changed since the run" in res.output
    with tarfile.open(work / "b.tar.gz") as tar:
        assert not [n for n in tar.getnames() if "/cache/" in n or "/input/" in n]
    res = runner.invoke(app, ["export", "run", "b.zip"])
    assert res.exit_code == 2 and ".tar.gz" in res.output
    res = runner.invoke(app, ["export", "run", "no/such/folder/b.tar.gz"])
    assert res.exit_code == 2 and "no folder no/such/folder" in " ".join(res.output.split())
    (work / "ro").mkdir()
    (work / "ro").chmod(0o500)  # a folder the bundle cannot be written to
    try:
        res = runner.invoke(app, ["export", "run", "ro/b.tar.gz"])
    finally:
        (work / "ro").chmod(0o700)
    if os.geteuid() != 0:  # root writes anyway
        assert res.exit_code == 1 and "Permission denied" in res.output
        assert not list((work / "ro").iterdir())


def test_replay_command_rewrites_paths_and_cache_flags() -> None:
    cmd = ["simjudge", "eval", "data/in.jsonl", "--judge", "local", "--out", "r",
           "--cache-dir=/x/c", "--cache-mode", "read-only", "--functions=fns.json", "--tau",
           "0.6"]
    assert replay_command(cmd, {"data": "input/data.jsonl", "functions": "input/functions.json"},
                          {"data": "data/in.jsonl", "functions": "fns.json"}) == [
        "simjudge", "eval", "input/data.jsonl", "--judge", "local",
        "--functions=input/functions.json", "--tau", "0.6", "--cache-dir", "cache",
        "--cache-mode", "cache-only", "--out", "replay"]
    assert replay_command(["simjudge", "eval", "a", "--out", "r"], {}, {}, False) == [
        "simjudge", "eval", "a", "--out", "replay"]  # without the cache: a normal rerun


def _probed_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run with --probe swap and --repeats 2 through a fake server (noisy, order-biased),
    exported with its cache and unpacked elsewhere; the server and the original are gone."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "d.jsonl").write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    monkeypatch.chdir(work)
    with FakeOpenAIServer(FakeServerConfig(position_bias=0.3, noise=0.2)) as srv:
        args = ["eval", "d.jsonl", "--judge", "openai:fake", "--base-url", srv.base_url,
                "--out", "run", "--cache-dir", "c", "--probe", "swap", "--repeats", "2",
                "--bootstrap", "50"]
        monkeypatch.setattr(sys, "argv", ["simjudge", *args])
        res = runner.invoke(app, args)
        assert res.exit_code == 0, res.output
        calls = len(srv.log)
    # 8 pairs × 2 samples = 16 calls, then the sampled swapped pairs × 2 samples each
    swapped = _rows(work / "run" / "swap_probe.jsonl")
    assert calls == 16 + 2 * len(swapped)
    assert all(r["swapped_cache_key"] == "" and len(r["swapped_member_cache_keys"]) == 2
               for r in swapped)  # the repeats' vote has no key; its two samples do
    res = runner.invoke(app, ["export", "run", "bundle.tar.gz", "--with-cache"])
    assert res.exit_code == 0, res.output
    assert f"{calls} cache entries" in res.output  # before: 16, the swapped samples missing
    with tarfile.open(work / "bundle.tar.gz") as tar:
        tar.extractall(tmp_path / "elsewhere", filter="data")
    # the run as written before swap rows recorded their member keys: refused, nothing written
    (work / "run" / "swap_probe.jsonl").write_text("".join(
        json.dumps({k: v for k, v in r.items() if k != "swapped_member_cache_keys"}) + "\n"
        for r in swapped), encoding="utf-8")
    res = runner.invoke(app, ["export", "run", "old.tar.gz", "--with-cache"])
    assert res.exit_code == 2
    assert f"{len(swapped)} swap-probe rows" in res.output
    assert "swapped_member_cache_keys" in res.output
    assert not list(work.glob("old.tar.gz*"))
    shutil.rmtree(work)
    return tmp_path / "elsewhere" / "bundle"


def _replay(bundle: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    manifest = json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))
    monkeypatch.chdir(bundle)
    res = runner.invoke(app, manifest["replay"][1:])
    return res.exit_code, " ".join(res.output.split())


def test_probed_repeated_run_replays_from_its_bundle(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = _probed_run(tmp_path, monkeypatch)
    manifest = json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))
    assert manifest["cache"]["format"] == "simjudge-json-cache/1"
    sums = manifest["cache"]["sha256"]
    assert len(sums) == manifest["cache_entries"]
    for key, sha in sums.items():  # one JSON file per entry, its sha256 in the manifest
        data = (bundle / "cache" / "entries" / f"{key}.json").read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha
        assert isinstance(json.loads(data), dict)
    assert not (bundle / "cache" / "cache.db").exists()  # no pickle store
    code, text = _replay(bundle, monkeypatch)
    assert code == 0, text  # before: "cache-only mode: no cached answer for key …"
    a = json.loads((bundle / "run" / "summary.json").read_text(encoding="utf-8"))
    b = json.loads((bundle / "replay" / "summary.json").read_text(encoding="utf-8"))
    assert b["judge_calls"] == 0 and b["cache_hits"] == len(sums)
    assert b["metrics"] == a["metrics"] and b["probes"] == a["probes"]
    assert b["bootstrap"] == a["bootstrap"]


def _entry_of(bundle: Path) -> tuple[str, Path]:
    """A cache entry of the bundle whose score is above 0 (changing it changes the metrics)."""
    for p in sorted((bundle / "cache" / "entries").glob("*.json")):
        if '\\"score\\": 0.0' not in p.read_text(encoding="utf-8"):
            return p.stem, p
    raise AssertionError("no scored entry")


def _resum(bundle: Path, key: str, data: bytes, index: bool = True,
           manifest: bool = True) -> None:
    """Write ``data`` as the entry ``key`` and list its sha256 in the index and/or manifest
    (what a careful tamperer does)."""
    (bundle / "cache" / "entries" / f"{key}.json").write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    for name, do in (("cache/index.json", index), ("MANIFEST.json", manifest)):
        if do:
            doc = json.loads((bundle / name).read_text(encoding="utf-8"))
            (doc["cache"] if name == "MANIFEST.json" else doc)["sha256"][key] = sha
            (bundle / name).write_text(json.dumps(doc), encoding="utf-8")


def test_a_tampered_cache_entry_stops_the_replay(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    bundle = _probed_run(tmp_path, monkeypatch)
    key, path = _entry_of(bundle)
    value = json.loads(path.read_text(encoding="utf-8"))
    value["texts"] = [json.dumps({"score": 0.0, "rationale": "tampered"})]
    tampered = json.dumps(value, sort_keys=True).encode()
    path.write_bytes(tampered)
    # before: the replay used it and reported other metrics (micro F1 0.0225 vs 0.0000 on
    # held-out data); now it stops, exit 2, naming the entry, and writes nothing
    code, text = _replay(bundle, monkeypatch)
    assert code == 2, text
    assert key in text and "sha256" in text and "tampered" in text
    assert not (bundle / "replay").exists()
    _resum(bundle, key, tampered, manifest=False)  # the index edited too: the manifest differs
    code, text = _replay(bundle, monkeypatch)
    assert code == 2 and key in text and "MANIFEST.json disagree" in text
    assert not (bundle / "replay").exists()


class _Payload:
    """Unpickling this creates ``path``: proof that a pickle was loaded."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple:  # type: ignore[type-arg]
        return (open, (self.path, "w"))


def test_a_pickle_in_a_bundle_is_refused_never_loaded(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import pickle

    bundle = _probed_run(tmp_path, monkeypatch)
    marker = tmp_path / "code-ran"
    key, _ = _entry_of(bundle)
    # an entry file holding a pickle, with its sha256 listed everywhere: still refused, as it
    # is not JSON, and never unpickled
    _resum(bundle, key, pickle.dumps(_Payload(marker)))
    code, text = _replay(bundle, monkeypatch)
    assert code == 2 and key in text and "not a JSON cache value" in text, text
    assert not marker.exists() and not (bundle / "replay").exists()
    # a bundle whose cache/ is a diskcache database (as exports wrote before): its values are
    # pickles, so it is refused before any is read
    shutil.rmtree(bundle / "cache")
    with diskcache.Cache(str(bundle / "cache")) as dc:
        dc.set(key, _Payload(marker))
    assert not marker.exists()  # pickled, not run
    code, text = _replay(bundle, monkeypatch)
    assert code == 2 and "pickles" in text and "Export the run again" in text, text
    assert not marker.exists() and not (bundle / "replay").exists()


def test_json_cache_values_round_trip_bytes(tmp_path: Path) -> None:
    # the local encoder's entries hold float32 bytes: a JSON bundle carries them as base64
    from judge.cache import JudgeCache
    from judge.jsoncache import BYTES_TAG, dumps_value, loads_value, write_cache_dir

    value = {"embedding_f32": b"\x00\x01\xfe\xff", "dim": 1, "texts": ["开灯"], "t": (1, 2)}
    assert loads_value(dumps_value(value)) == {**value, "t": [1, 2]}
    assert json.loads(dumps_value(value))["embedding_f32"] == {BYTES_TAG: "AAH+/w=="}
    for bad in ({"x": float("nan")}, {"x": {1, 2}}, {1: "a"}, {BYTES_TAG: "AA=="}):
        with pytest.raises(ValueError):
            dumps_value(bad)
    with pytest.raises(ValueError):
        loads_value(b'{"x": NaN}')
    key = "a" * 64
    write_cache_dir(tmp_path / "c", {key: value})
    cache = JudgeCache(tmp_path / "c", "cache-only")
    assert cache.get(key) == {**value, "t": [1, 2]}
    assert cache.stats()["entries"] == 1
    from judge.errors import CacheMissError, InputError

    with pytest.raises(CacheMissError):
        cache.get("b" * 64)
    with pytest.raises(InputError, match="read-only"):
        JudgeCache(tmp_path / "c", "read-write").get(key)


def test_local_judge_bundle_replays_its_vectors(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # the local encoder caches float32 bytes: they go into the bundle as JSON (base64) and the
    # replay reads them back to the same scores
    from tests.conftest import EXAMPLES

    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(EXAMPLES / "glossary_en_zh.jsonl", work / "g.jsonl")
    monkeypatch.chdir(work)
    args = ["eval", "g.jsonl", "--judge", "local", "--out", "run", "--cache-dir", "c",
            "--bootstrap", "0"]
    monkeypatch.setattr(sys, "argv", ["simjudge", *args])
    assert runner.invoke(app, args).exit_code == 0
    res = runner.invoke(app, ["export", "run", "b.tar.gz", "--with-cache"])
    assert res.exit_code == 0, res.output
    with tarfile.open(work / "b.tar.gz") as tar:
        tar.extractall(tmp_path / "x", filter="data")
    shutil.rmtree(work)
    bundle = tmp_path / "x" / "b"
    entry = next((bundle / "cache" / "entries").glob("*.json"))
    assert "embedding_f32" in json.loads(entry.read_text(encoding="utf-8"))
    code, text = _replay(bundle, monkeypatch)
    assert code == 0, text
    a = json.loads((bundle / "run" / "summary.json").read_text(encoding="utf-8"))
    b = json.loads((bundle / "replay" / "summary.json").read_text(encoding="utf-8"))
    assert b["judge_calls"] == 0 and b["metrics"] == a["metrics"]

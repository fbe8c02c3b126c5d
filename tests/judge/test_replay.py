"""Replaying someone else's bundle is safe (issue 36, items 1, 2 and 5): no code from a pickle
runs, ``cache-only`` never calls a judge whatever the cache holds, and ``simjudge replay`` says
"identical" for an untampered bundle and names what differs — with no judge call — for each
kind of tampering.

Every test keeps the fake judge server that answered the original run alive during the replay
and asserts it received 0 requests: the bundle's command names that server (``--base-url``), so
a call would reach it, with the replaying user's key."""

from __future__ import annotations

import hashlib
import json
import shutil
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path

import diskcache
import pytest

from tests.clirun import CliResult
from tests.fake_openai import FakeOpenAIServer, FakeServerConfig

ITEMS = [{"id": "1", "pred": ["apple", "dog"], "truth": ["Apfel", "Hund", "Katze"]},
         {"id": "2", "pred": ["eagle"], "truth": ["Esel", "Adler"]},
         {"id": "3", "pred": ["cat"], "truth": ["Katze"]}]
KEY = "sk-test-replayer-own-key-0123456789"
Cli = Callable[..., CliResult]


class _Payload:
    """Unpickling this creates ``path``: proof that a pickle was loaded."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple:  # type: ignore[type-arg]
        return (open, (self.path, "w"))


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(FakeServerConfig(position_bias=0.3)) as srv:
        yield srv


def _bundle(tmp_path: Path, srv: FakeOpenAIServer, cli: Cli) -> Path:
    """A run of 3 items (9 pairs: 6 + 2 + 1) through the fake server, exported with its cache and
    unpacked elsewhere; the server's log is then cleared."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "d.jsonl").write_text("".join(json.dumps(i) + "\n" for i in ITEMS), encoding="utf-8")
    res = cli("eval", "d.jsonl", "--judge", "openai:fake", "--base-url", srv.base_url, "--out",
              "run", "--cache-dir", "c", "--bootstrap", "20", cwd=work)
    assert res.returncode == 0, res.output
    assert len(srv.log) == 9
    res = cli("export", "run", "b.tar.gz", "--with-cache", cwd=work)
    assert res.returncode == 0, res.output
    with tarfile.open(work / "b.tar.gz") as tar:
        tar.extractall(tmp_path / "elsewhere", filter="data")
    shutil.rmtree(work / "c")
    srv.log.clear()
    return tmp_path / "elsewhere" / "b"


def _replay(cli: Cli, bundle: Path, *more: str) -> tuple[int, str]:
    res = cli("replay", bundle, *more, env={"OPENAI_API_KEY": KEY}, columns=400)
    return res.returncode, " ".join(res.output.split())


def _rehash(bundle: Path, *rels: str) -> None:
    """List the current sha256 of ``rels`` in MANIFEST.json (and in the cache index for cache
    entries): what a careful tamperer does."""
    manifest = json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))
    index = json.loads((bundle / "cache" / "index.json").read_text(encoding="utf-8"))
    for rel in rels:
        sha = hashlib.sha256((bundle / rel).read_bytes()).hexdigest()
        if rel.startswith("cache/entries/"):
            key = Path(rel).stem
            index["sha256"][key] = manifest["cache"]["sha256"][key] = sha
        manifest["sha256"][rel] = sha
    (bundle / "cache" / "index.json").write_text(json.dumps(index), encoding="utf-8")
    manifest["sha256"]["cache/index.json"] = hashlib.sha256(
        (bundle / "cache" / "index.json").read_bytes()).hexdigest()
    (bundle / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")


def _edit_rows(path: Path, edit: Callable[[dict], None], n: int = 1) -> None:  # type: ignore[type-arg]
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    for r in rows[:n]:
        edit(r)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def test_untampered_bundle_replays_identical_with_no_call(
        tmp_path: Path, server: FakeOpenAIServer, cli: Cli) -> None:
    bundle = _bundle(tmp_path, server, cli)
    code, text = _replay(cli, bundle)
    assert code == 0, text
    assert "identical to the bundled run (summary.json, items.jsonl (3 rows), " \
           "verdicts.jsonl (9 rows))" in text and "no judge was called" in text
    assert server.log == []
    summary = json.loads((bundle / "replay" / "summary.json").read_text(encoding="utf-8"))
    assert summary["judge_calls"] == 0 and summary["cache_hits"] == 9
    # the .tar.gz itself replays the same way, into NAME-replay beside the current folder
    code, text = _replay(cli, tmp_path / "work" / "b.tar.gz", "--out", str(tmp_path / "r2"))
    assert code == 0 and "identical" in text, text
    # a second replay next to the first: the first's output is not part of the bundle
    code, text = _replay(cli, bundle, "--out", str(tmp_path / "r3"))
    assert code == 0 and "identical" in text, text
    assert server.log == []


@pytest.mark.parametrize("variant", ["score", "verdict", "outcome", "summary"])
def test_a_consistently_rehashed_run_file_edit_is_named(
        tmp_path: Path, server: FakeOpenAIServer, cli: Cli, variant: str) -> None:
    bundle = _bundle(tmp_path, server, cli)
    rel = "run/summary.json" if variant == "summary" else "run/verdicts.jsonl"
    if variant == "summary":
        doc = json.loads((bundle / rel).read_text(encoding="utf-8"))
        doc["metrics"]["micro_f1"] = 0.99
        (bundle / rel).write_text(json.dumps(doc), encoding="utf-8")
    else:
        field, value = {"score": ("score", 0.123), "verdict": ("rationale", "forged"),
                        "outcome": ("outcome", "refused")}[variant]
        _edit_rows(bundle / rel, lambda r: r.__setitem__(field, value))
    # edited without updating the manifest: refused before anything runs, the file named
    code, text = _replay(cli, bundle)
    assert code == 2 and f"sha256 differs from MANIFEST.json (edited after the export): {rel}" \
        in text, text
    assert not (bundle / "replay").exists()
    _rehash(bundle, rel)  # listed consistently: the replay runs and names what differs
    code, text = _replay(cli, bundle)
    assert code == 1 and "DIFFERS from the bundled run" in text, text
    expect = {"score": "score 0.123 in the bundle, 0.6 in the replay",
              "verdict": 'rationale "forged" in the bundle, "fake judge: a/A" in the replay',
              "outcome": 'outcome "refused" in the bundle, "ok" in the replay',
              "summary": "summary.json: metrics.micro_f1 0.99 in the bundle, 0.0 in the "
                         "replay"}[variant]
    assert expect in text, text
    assert server.log == []


def test_a_deleted_input_item_is_caught(tmp_path: Path, server: FakeOpenAIServer,
                                        cli: Cli) -> None:
    bundle = _bundle(tmp_path, server, cli)
    data = bundle / "input" / "data.jsonl"
    data.write_text("".join(data.read_text(encoding="utf-8").splitlines(True)[:2]),
                    encoding="utf-8")
    _rehash(bundle, "input/data.jsonl")  # the manifest agrees; the run's config.json does not
    code, text = _replay(cli, bundle)
    assert code == 2 and "the input input/data.jsonl differs from the one the run read" in text
    # config.json edited and listed too: the replay has one item fewer, and says so
    cfg = json.loads((bundle / "run" / "config.json").read_text(encoding="utf-8"))
    cfg["data"]["sha256"] = hashlib.sha256(data.read_bytes()).hexdigest()
    (bundle / "run" / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    _rehash(bundle, "run/config.json")
    code, text = _replay(cli, bundle)
    assert code == 1 and "summary.json: n_items 3 in the bundle, 2 in the replay" in text, text
    assert 'items.jsonl: 1 row(s) of the bundled run not in the replay' in text
    assert 'id="3" pred=["cat"] truth=["Katze"]: only in the bundled run' in text
    assert server.log == []


def test_a_rehashed_cache_entry_changes_the_replay_and_is_named(
        tmp_path: Path, server: FakeOpenAIServer, cli: Cli) -> None:
    bundle = _bundle(tmp_path, server, cli)
    entry = next(p for p in sorted((bundle / "cache" / "entries").glob("*.json"))
                 if '\\"score\\": 0.6' in p.read_text(encoding="utf-8"))
    value = json.loads(entry.read_text(encoding="utf-8"))
    value["texts"] = [json.dumps({"score": 0.05, "rationale": "tampered"})]
    entry.write_text(json.dumps(value, sort_keys=True), encoding="utf-8")
    _rehash(bundle, f"cache/entries/{entry.name}")
    code, text = _replay(cli, bundle)
    assert code == 1 and "score 0.6 in the bundle, 0.05 in the replay" in text, text
    assert server.log == []


@pytest.mark.parametrize("how", ["removed", "renamed", "forged"])
def test_a_pickled_cache_never_runs_code(tmp_path: Path, server: FakeOpenAIServer, cli: Cli,
                                         how: str) -> None:
    bundle = _bundle(tmp_path, server, cli)
    marker = tmp_path / "code-ran"
    keys = [p.stem for p in (bundle / "cache" / "entries").glob("*.json")]
    shutil.rmtree(bundle / "cache")
    with diskcache.Cache(str(bundle / "cache")) as dc:  # the run's keys, each a payload
        for k in keys:
            dc.set(k, _Payload(marker))
    manifest = json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))
    if how == "removed":
        (bundle / "MANIFEST.json").unlink()
    elif how == "renamed":
        manifest["replay_was"] = manifest.pop("replay")
        (bundle / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")
    else:  # forged: every file present listed with its sha256
        manifest["sha256"] = {p.relative_to(bundle).as_posix():
                              hashlib.sha256(p.read_bytes()).hexdigest()
                              for p in bundle.rglob("*") if p.is_file()
                              and p.name != "MANIFEST.json"}
        (bundle / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")
    code, text = _replay(cli, bundle)
    assert code == 2, text
    assert {"removed": "not a simjudge bundle: no MANIFEST.json",
            "renamed": "field 'replay': expected the command",
            "forged": "the bundle's cache/ is not a JSON cache"}[how] in text, text
    # the bundle's own command, run by hand: the diskcache is read without unpickling code
    res = cli(*manifest.get("replay", manifest.get("replay_was"))[1:], cwd=bundle,
              env={"OPENAI_API_KEY": KEY})
    text = " ".join(res.output.split())
    assert res.returncode == 2, text
    if how == "forged":  # a manifest that names a replay: its diskcache is refused unread
        assert "whose values are pickles" in text, text
    else:  # no manifest to go by: read, each value decoded as plain data only
        assert "is not plain data, so it was not loaded" in text and "names io.open" in text
    assert not marker.exists() and server.log == []
    assert not (bundle / "replay").exists()


@pytest.mark.parametrize("value", [0, "garbage", {"x": 1}, {"texts": []}, {"texts": [3]}])
def test_cache_only_never_calls_the_judge_whatever_an_entry_holds(
        tmp_path: Path, server: FakeOpenAIServer, cli: Cli, value: object) -> None:
    bundle = _bundle(tmp_path, server, cli)
    keys = [p.stem for p in (bundle / "cache" / "entries").glob("*.json")]
    own = tmp_path / "own-cache"  # a diskcache (the user's own kind) holding non-answers
    with diskcache.Cache(str(own)) as dc:
        for k in keys:
            dc.set(k, value)
    manifest = json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))
    args = [a if a != "cache" else str(own) for a in manifest["replay"][1:]]
    res = cli(*args, cwd=bundle, env={"OPENAI_API_KEY": KEY})
    text = " ".join(res.output.split())
    assert res.returncode == 2 and "is not a stored answer of judge openai:fake" in text, text
    assert "no judge was called" in text and server.log == []
    # the same entries as the bundle's JSON cache, re-hashed consistently: the replay stops
    for k in keys:
        (bundle / "cache" / "entries" / f"{k}.json").write_text(
            json.dumps(value, sort_keys=True, separators=(",", ":")), encoding="utf-8")
    _rehash(bundle, *(f"cache/entries/{k}.json" for k in keys))
    code, text = _replay(cli, bundle)
    assert code == 2 and "is not a stored answer" in text, text
    assert server.log == []


def test_an_added_file_or_symlink_is_refused(tmp_path: Path, server: FakeOpenAIServer,
                                             cli: Cli) -> None:
    bundle = _bundle(tmp_path, server, cli)
    with diskcache.Cache(str(bundle / "cache")) as dc:  # a pickle store beside the JSON cache
        dc.set("k", _Payload(tmp_path / "code-ran"))
    code, text = _replay(cli, bundle)
    assert code == 2 and "files not listed in MANIFEST.json" in text and "cache/cache.db" in text
    (bundle / "cache" / "cache.db").unlink()
    (bundle / "input" / "more.jsonl").symlink_to("/etc/hostname")
    code, text = _replay(cli, bundle)
    assert code == 2 and "symlinks" in text and "input/more.jsonl" in text, text
    (bundle / "input" / "more.jsonl").unlink()
    manifest = json.loads((bundle / "MANIFEST.json").read_text(encoding="utf-8"))
    manifest["replay"][2] = "/etc/passwd"  # the command pointed outside the bundle
    (bundle / "MANIFEST.json").write_text(json.dumps(manifest), encoding="utf-8")
    code, text = _replay(cli, bundle)
    assert code == 2 and "'/etc/passwd', outside the bundle" in text, text
    assert not (tmp_path / "code-ran").exists() and server.log == []

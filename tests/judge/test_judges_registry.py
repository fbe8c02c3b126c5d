"""The judge registry: one table drives spec parsing, the errors, the help text and the judges
file (no network: remote judges are only built, never called)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from judge.errors import InputError
from judge.judges.base import Judge
from judge.judges.judgesfile import load_judges_file
from judge.judges.options import JudgeOptions
from judge.judges.registry import REGISTRY, SPECS, parse_judge_spec, spec_help

ALL_SPECS = ("local, lexical, table:PATH, openai:MODEL, vllm:MODEL, sglang:MODEL, "
             "langchain:PROVIDER:MODEL, openai-embedding:MODEL")
"""The spec list, written out by hand from the table's eight rows."""


@pytest.fixture(autouse=True)
def _dummy_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # langchain's openai provider wants a key to build its client; nothing is ever sent
    monkeypatch.setenv("OPENAI_API_KEY", "sk-simjudge-registry-dummy-0123456789abcdef")


def _arg(name: str, tmp_path: Path) -> str | None:
    """A valid argument for each backend that takes one."""
    if name == "table":
        path = tmp_path / "scores.jsonl"
        path.write_text('{"pred": "a", "truth": "b", "score": 0.5}\n', encoding="utf-8")
        return str(path)
    return {"openai": "some-model", "vllm": "some-model", "sglang": "some-model",
            "langchain": "openai:some-model",
            "openai-embedding": "some-embedder"}.get(name)


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_registry_entry_builds(name: str, tmp_path: Path) -> None:
    backend = REGISTRY[name]
    arg = _arg(name, tmp_path)
    assert (arg is not None) == backend.needs_model
    spec = backend.spec(arg)
    opts = JudgeOptions(base_url="http://127.0.0.1:9/v1")  # a closed port: never contacted
    judge = parse_judge_spec(spec, opts)
    assert isinstance(judge, Judge)  # item_scoped and aclose included
    assert judge.id == spec and judge.describe()["backend"] == name
    assert judge.item_scoped is False
    renamed = parse_judge_spec(spec, dataclasses.replace(opts, judge_id="mine"))
    assert renamed.id == "mine"


def test_specs_and_help_come_from_the_table() -> None:
    assert ", ".join(SPECS) == ALL_SPECS
    assert spec_help() == ALL_SPECS
    lines = spec_help(detailed=True).splitlines()
    assert len(lines) == len(REGISTRY) == 8
    for spec, line in zip(SPECS, lines, strict=True):
        assert line.startswith(f"{spec}: ") and len(line) > len(spec) + 10


def test_cli_judge_help_is_the_registry_text() -> None:
    from judge.cli.options import JudgeSpecs

    help_text = JudgeSpecs.__metadata__[0].help
    assert f"({ALL_SPECS})" in help_text


def test_every_declared_option_is_a_judge_option() -> None:
    fields = {f.name for f in dataclasses.fields(JudgeOptions)}
    for backend in REGISTRY.values():
        assert backend.options and set(backend.options) <= fields, backend.name
    assert "threads" in REGISTRY["local"].options
    assert "threads" not in REGISTRY["openai"].options


@pytest.mark.parametrize("spec", ["bogus", "bogus:thing", "local:x", "local:", "lexical:y", ""])
def test_unknown_spec_lists_every_spec_of_the_table(spec: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_judge_spec(spec)
    assert exc.value.message == f"unknown judge spec {spec!r}; expected one of: {ALL_SPECS}"
    assert exc.value.field == "judge"


@pytest.mark.parametrize(("spec", "message"), [
    ("openai", "judge spec 'openai' needs a model name, e.g. openai:MODEL"),
    ("openai:", "judge spec 'openai:' needs a model name, e.g. openai:MODEL"),
    ("openai-embedding:", "judge spec 'openai-embedding:' needs a model name, e.g. "
                          "openai-embedding:MODEL"),
    ("table:", "judge spec 'table:' needs a file path, e.g. table:PATH"),
    ("langchain:", "judge spec 'langchain:' needs a provider and a model name, e.g. "
                   "langchain:PROVIDER:MODEL"),
    ("langchain:openai", "judge spec 'langchain:openai': expected langchain:PROVIDER:MODEL"),
    ("langchain:openai:", "judge spec 'langchain:openai:': expected langchain:PROVIDER:MODEL"),
    ("langchain::m", "judge spec 'langchain::m': expected langchain:PROVIDER:MODEL"),
])
def test_missing_or_malformed_argument(spec: str, message: str) -> None:
    with pytest.raises(InputError) as exc:
        parse_judge_spec(spec)
    assert exc.value.message == message and exc.value.field == "judge"


def test_a_model_name_may_contain_colons() -> None:
    judge = parse_judge_spec("openai:qwen2.5:7b", JudgeOptions(base_url="http://127.0.0.1:9/v1"))
    assert judge.describe()["model"] == "qwen2.5:7b"
    lc = parse_judge_spec("langchain:openai:org:model", JudgeOptions(
        base_url="http://127.0.0.1:9/v1"))
    assert lc.describe()["model"] == "org:model"
    assert lc.describe()["provider_model"] == "openai:org:model"


def test_backend_spec_builds_and_checks() -> None:
    assert REGISTRY["openai"].spec("m") == "openai:m"
    assert REGISTRY["local"].spec() == "local"
    assert REGISTRY["langchain"].syntax == "langchain:PROVIDER:MODEL"
    with pytest.raises(InputError, match="unknown judge spec 'local:x'"):
        REGISTRY["local"].spec("x")
    with pytest.raises(InputError, match="needs a model name"):
        REGISTRY["openai"].spec()


def test_judges_file_backends_are_the_registry(tmp_path: Path) -> None:
    path = tmp_path / "judges.toml"
    path.write_text('[[judges]]\nid = "a"\nbackend = "gpt"\n', encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_judges_file(path)
    assert exc.value.message == ("unknown backend 'gpt'; expected one of: local, lexical, table, "
                                 "openai, vllm, sglang, langchain, openai-embedding")
    assert (exc.value.line, exc.value.field) == (3, "judges[1].backend")
    # a malformed langchain model is caught when the file is read, at the model's line
    path.write_text('[[judges]]\nid = "a"\nbackend = "langchain"\nmodel = "openai"\n',
                    encoding="utf-8")
    with pytest.raises(InputError) as exc:
        load_judges_file(path)
    assert exc.value.message == "judge spec 'langchain:openai': expected langchain:PROVIDER:MODEL"
    assert (exc.value.line, exc.value.field) == (4, "judges[1].model")
    path.write_text('[[judges]]\nid = "q"\nbackend = "openai"\nmodel = "qwen"\n'
                    '[[judges]]\nid = "l"\nbackend = "local"\n', encoding="utf-8")
    declared = load_judges_file(path)
    assert {k: spec for k, (spec, _) in declared.items()} == {"q": "openai:qwen", "l": "local"}

"""simjudge's BFCL checking against the official checker, on the whole result archive, in one
process: CPU time per item of decoding and of checking for each, their ratio and totals, and
whether the verdicts agree (with each other and with the official score files).

The official side is gorilla commit de8307b4's own code, imported from ``--gorilla`` (the
``berkeley-function-call-leaderboard`` folder of a checkout of that commit):

* decoding: each model's handler class from ``model_handler/handler_map.py`` and its
  ``decode_ast``; checking: ``eval_checker/checker.py`` ``ast_checker`` and
  ``eval_runner_helper.py`` ``is_function_calling_format_output`` / ``is_empty_output``, in
  the order of checks of ``eval_runner.py`` ``single_ast_file_runner`` and
  ``single_relevance_file_runner`` (the loops are restated here without building and writing
  their score-file entries; the functions they call are the official ones);
* ``handler_map.py`` imports every handler module, and some import a provider SDK at module
  level (``anthropic``, ``cohere``, ``mistralai``). Any of those not installed is replaced in
  ``sys.modules`` by an empty module holding the names imported from it; no ``decode_ast``
  uses them. Handlers are created without running their ``__init__`` (which builds API
  clients): ``BaseHandler.__init__`` alone sets ``model_name`` (the model as
  ``eval_runner.py`` passes it, ``_`` read as ``/``), the only attribute a ``decode_ast``
  reads. Nothing that decides a verdict is replaced;
* ``checker.py`` reads ``./rest-eval-response_v5.jsonl`` when imported: it is imported with
  ``eval_checker/`` as the working directory;
* the Java/JavaScript decoders need tree-sitter 0.21.3 (``Parser.set_language``), as gorilla's
  ``requirements.txt`` pins it, with tree-sitter-java 0.21.0 and tree-sitter-javascript
  0.21.4; simjudge runs on the same versions in the same process.

simjudge's side: :func:`judge.tasks.bfclcheck.decode_result`, then
:func:`judge.tasks.bfclcheck.verdict_of` under ``--fc-matching official``; with
``--with-optimal`` the optimal matching's verdict too where ``simjudge eval`` computes it
(multi-call items that official matching fails: a correct official verdict is a perfect
matching of valid pairs, so it is correct under optimal matching too).

Timing: ``time.process_time`` around the decoding of every item of the archive, then around
the checking of every decoded item, each side in turn (the other side's decodings freed and
garbage collected first); ``--repeat`` rounds (default 3), the minimum kept. Reading the files
is not timed.

Usage (with tree-sitter 0.21.3 installed)::

    python benchmarks/bench_bfcl_vs_official.py --archive BFCL-Result/2024-08-11 \\
        --data gorilla/berkeley-function-call-leaderboard/data \\
        --gorilla gorilla/berkeley-function-call-leaderboard [--models M …] [--repeat 3]

Exit status 1 when a verdict differs; without the three folders the script says it is skipped.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import importlib
import json
import os
import sys
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from judge.tasks.bfclcheck import (
    AST_CATEGORIES,
    SINGLE_CALL,
    decode_result,
    verdict_of,
)
from judge.tasks.bfclmodels import bfcl_model

SDK_NAMES = {"anthropic": ["Anthropic"], "anthropic.types": ["TextBlock", "ToolUseBlock"],
             "cohere": ["Client"], "mistralai": [], "mistralai.client": ["MistralClient"],
             "mistralai.models": [], "mistralai.models.chat_completion": ["ChatMessage"]}
"""Provider SDK modules ``handler_map.py`` imports at module level, and the names taken."""
LANGUAGE = {"java": "Java", "javascript": "JavaScript"}


@dataclasses.dataclass
class Case:
    """One item: the model folder, category, id, raw result, schemas as in the question file
    (``function``), possible answer as in its file, and the official score file's verdict."""

    model: str
    category: str
    item_id: str
    raw: Any
    function: Any
    answer: Any
    official_file: bool


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The JSON object on each non-empty line of ``path``."""
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_cases(archive: Path, data: Path, models: list[str]) -> list[Case]:
    """Every item of ``models`` in every AST category, in question-file order."""
    pre = "gorilla_openfunctions_v1_test_"
    questions = {c: read_jsonl(data / f"{pre}{c}.json") for c in AST_CATEGORIES}
    answers = {c: {a["id"]: a["ground_truth"] for a in read_jsonl(
        data / "possible_answer" / f"{pre}{c}.json")} for c in AST_CATEGORIES if c != "relevance"}
    cases = []
    for model in models:
        for c in AST_CATEGORIES:
            by_id = {r["id"]: r["result"] for r in read_jsonl(
                archive / "result" / model / f"{pre}{c}_result.json")}
            failed = {int(r["id"]) for r in read_jsonl(
                archive / "score" / model / f"{c}_score.json")[1:]}
            for pos, q in enumerate(questions[c], start=1):
                cases.append(Case(model, c, q["id"], by_id[q["id"]], q["function"],
                                  answers.get(c, {}).get(q["id"], {}), pos not in failed))
    return cases


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    """``path`` as the working directory inside the block."""
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def stub_missing_sdks() -> list[str]:
    """Make gorilla's ``handler_map`` importable without the provider SDKs it imports but no
    decoder calls: for each SDK of :data:`SDK_NAMES` that is not installed, put a module in
    ``sys.modules`` whose imported names are empty classes (only client constructors use them,
    and the benchmark never builds a client). Returns the names of the modules put in place."""
    stubbed = []
    for name, attrs in SDK_NAMES.items():
        try:
            importlib.import_module(name)
            continue
        except ImportError:
            pass
        module = types.ModuleType(name)
        for attr in attrs:
            setattr(module, attr, type(attr, (), {}))
        sys.modules[name] = module
        stubbed.append(name)
    return stubbed


@dataclasses.dataclass
class Official:
    """The official code's entry points (see the module docstring)."""

    handler: Callable[[str], Any]
    ast_checker: Callable[..., dict[str, Any]]
    is_call_list: Callable[[Any], bool]
    is_empty: Callable[[Any], Any]
    stubbed: list[str]
    import_seconds: float


def load_official(gorilla: Path) -> Official:
    """Import the official checker and handlers from ``gorilla`` (the leaderboard folder)."""
    started = time.process_time()
    sys.path[:0] = [str(gorilla), str(gorilla / "eval_checker")]
    stubbed = stub_missing_sdks()
    with working_directory(gorilla / "eval_checker"):
        checker = importlib.import_module("checker")
        helper = importlib.import_module("eval_runner_helper")
    handler_map = importlib.import_module("model_handler.handler_map").handler_map
    base = importlib.import_module("model_handler.handler").BaseHandler
    seconds = time.process_time() - started

    def handler(folder: str) -> Any:
        cls = handler_map[folder.replace("_", "/")]  # as eval_runner.py names the model
        h = cls.__new__(cls)
        base.__init__(h, folder.replace("_", "/"))
        return h

    return Official(handler, checker.ast_checker, helper.is_function_calling_format_output,
                    helper.is_empty_output, stubbed, seconds)


_FAILED = object()
"""An official decoding that raised (its handler's exception)."""


def official_decode(official: Official, cases: list[Case]) -> tuple[list[Any], float]:
    """Each case's ``decode_ast`` result (or :data:`_FAILED`), and the CPU seconds taken."""
    handlers = {m: official.handler(m) for m in {c.model for c in cases}}
    out: list[Any] = []
    started = time.process_time()
    for c in cases:
        try:
            out.append(handlers[c.model].decode_ast(c.raw, LANGUAGE.get(c.category, "Python")))
        except Exception:  # the official runner catches every exception
            out.append(_FAILED)
    return out, time.process_time() - started


def official_check(official: Official, cases: list[Case], decoded: list[Any]
                   ) -> tuple[list[bool], float]:
    """Each case's official verdict from its decoding, and the CPU seconds taken."""
    out = []
    started = time.process_time()
    for c, d in zip(cases, decoded, strict=True):
        if c.category == "relevance":
            out.append(d is _FAILED or bool(official.is_empty(d)))
        elif d is _FAILED or not official.is_call_list(d):
            out.append(False)
        else:
            out.append(bool(official.ast_checker(c.function, d, c.answer,
                                                 LANGUAGE.get(c.category, "Python"),
                                                 c.category, c.model)["valid"]))
    return out, time.process_time() - started


def simjudge_decode(cases: list[Case]) -> tuple[list[Any], float]:
    """Each case decoded by simjudge, and the CPU seconds taken."""
    models = {m: bfcl_model(m) for m in {c.model for c in cases}}
    started = time.process_time()
    out = [decode_result(c.raw, c.category, models[c.model]) for c in cases]
    return out, time.process_time() - started


def simjudge_check(cases: list[Case], decoded: list[Any], with_optimal: bool
                   ) -> tuple[list[bool], float]:
    """Each case's simjudge verdict (``official`` matching; with ``with_optimal`` also
    ``optimal`` where ``simjudge eval`` computes it: multi-call items that official matching
    fails), and the CPU seconds taken."""
    models = {m: bfcl_model(m) for m in {c.model for c in cases}}
    schemas = [c.function if isinstance(c.function, list) else [c.function] for c in cases]
    out = []
    started = time.process_time()
    for c, d, s in zip(cases, decoded, schemas, strict=True):
        v = verdict_of(d, c.category, c.answer, s, models[c.model])
        if (with_optimal and not v.correct and c.category not in SINGLE_CALL
                and c.category != "relevance"):  # as eval: a correct official verdict is
            verdict_of(d, c.category, c.answer, s, models[c.model], "optimal")  # optimal too
        out.append(v.correct)
    return out, time.process_time() - started


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; see the module docstring."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--archive", type=Path, default=os.environ.get("BFCL_ARCHIVE"))
    ap.add_argument("--data", type=Path, default=os.environ.get("BFCL_DATA"))
    ap.add_argument("--gorilla", type=Path, default=os.environ.get("BFCL_GORILLA"))
    ap.add_argument("--models", nargs="*", help="model folders (default: all)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the minimum is kept")
    ap.add_argument("--with-optimal", action="store_true",
                    help="simjudge also computes the optimal matching's verdict (as eval does)")
    args = ap.parse_args(argv)
    if not (args.archive and args.data and args.gorilla and (args.archive / "result").is_dir()
            and (args.gorilla / "eval_checker").is_dir()):
        print("skipped: give --archive, --data and --gorilla")
        return 0
    archive, data, gorilla = (p.resolve() for p in (args.archive, args.data, args.gorilla))
    models = args.models or sorted(p.name for p in (archive / "result").iterdir() if p.is_dir())
    cases = load_cases(archive, data, models)
    official = load_official(gorilla)
    # warm both sides once (tree-sitter parsers, lazy imports such as scipy)
    official_check(official, cases[:50], official_decode(official, cases[:50])[0])
    simjudge_check(cases[:50], simjudge_decode(cases[:50])[0], args.with_optimal)
    best = {k: float("inf") for k in ("o_dec", "o_chk", "s_dec", "s_chk")}
    verdicts: dict[str, list[bool]] = {}
    for _ in range(args.repeat):
        # each side starts with the other's decodings freed and a full collection done, so
        # that neither pays for garbage-collecting the other's objects
        gc.collect()
        o_decoded, t = official_decode(official, cases)
        best["o_dec"] = min(best["o_dec"], t)
        verdicts["official"], t = official_check(official, cases, o_decoded)
        best["o_chk"] = min(best["o_chk"], t)
        del o_decoded
        gc.collect()
        s_decoded, t = simjudge_decode(cases)
        best["s_dec"] = min(best["s_dec"], t)
        verdicts["simjudge"], t = simjudge_check(cases, s_decoded, args.with_optimal)
        best["s_chk"] = min(best["s_chk"], t)
        del s_decoded
    n = len(cases)
    files = [c.official_file for c in cases]
    agree = {"simjudge = official checker": sum(
                 a == b for a, b in zip(verdicts["simjudge"], verdicts["official"], strict=True)),
             "official checker = score files": sum(
                 a == b for a, b in zip(verdicts["official"], files, strict=True)),
             "simjudge = score files": sum(
                 a == b for a, b in zip(verdicts["simjudge"], files, strict=True))}
    print(f"{len(models)} models, {n} items; min of {args.repeat} rounds; CPU time "
          f"(process_time). Official SDK stubs: {', '.join(official.stubbed) or 'none'}; "
          f"official imports {official.import_seconds:.2f} s")
    print(f"\n{'':12}{'decode µs/item':>16}{'check µs/item':>15}{'total µs/item':>15}"
          f"{'total s':>9}")
    for label, d, c in (("official", best["o_dec"], best["o_chk"]),
                        ("simjudge", best["s_dec"], best["s_chk"])):
        print(f"{label:12}{1e6 * d / n:16.1f}{1e6 * c / n:15.1f}{1e6 * (d + c) / n:15.1f}"
              f"{d + c:9.2f}")
    ratio = [best["s_dec"] / best["o_dec"], best["s_chk"] / best["o_chk"],
             (best["s_dec"] + best["s_chk"]) / (best["o_dec"] + best["o_chk"])]
    print(f"{'simjudge ÷ official':20}{ratio[0]:8.2f}{ratio[1]:15.2f}{ratio[2]:15.2f}")
    print()
    for k, v in agree.items():
        print(f"{k:32} {v:6d} / {n} items")
    diffs = [c for c, a, b in zip(cases, verdicts["simjudge"], verdicts["official"],
                                  strict=True) if a != b]
    for c in diffs[:20]:
        print(f"  differs: {c.model} {c.item_id}")
    return 1 if diffs or agree["simjudge = score files"] != n else 0


if __name__ == "__main__":
    sys.exit(main())

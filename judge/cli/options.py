"""The judge options of the command line, defined once and taken by ``eval`` and ``calibrate``
alike (the same judges, endpoints, scorers, limits and cache), and turned into judges here.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from judge.cachemodes import CACHE_MODES
from judge.judges.registry import spec_help

JudgeSpecs = Annotated[list[str] | None, typer.Option(
    "--judge", help=f"Judge spec ({spec_help()}) or an id from --judges; repeat for "
    "several.")]
JudgesFile = Annotated[Path | None, typer.Option(
    "--judges", help="TOML file of judges; --judge then names one of its ids.")]
BaseUrl = Annotated[str | None, typer.Option(
    help="OpenAI-compatible endpoint for openai:/vllm:/sglang:/openai-embedding: judges; "
    "several replicas comma-separated (chat judges: balanced, with failover).")]
ApiKeyEnv = Annotated[str, typer.Option(help="Environment variable holding the API key.")]
ScorerOpt = Annotated[str, typer.Option(
    "--scorer", help="Prompt scorer: entity_similarity@v1 (one call per pair) or "
    "entity_similarity_batch@v1 (one call per string of the smaller side, up to --max-batch "
    "items).")]
ScoreMode = Annotated[str, typer.Option(
    "--score-mode", help="verbal: the score the judge writes; logprob: openai: judges answer one "
    "grade digit 0-9 (entity_similarity_grade@v1) and the score is the expectation of the "
    "grade distribution from the token logprobs / 9 (a reply without logprobs falls back to "
    "the sampled grade, counted in the summary).")]
Concurrency = Annotated[int, typer.Option(help="Judge calls in flight.")]
MaxBatch = Annotated[int, typer.Option(help="Most items per request with the batch scorer.")]
Rpm = Annotated[int | None, typer.Option(help="Requests per minute limit.")]
Tpm = Annotated[int | None, typer.Option(help="Tokens per minute limit.")]
Temperature = Annotated[float, typer.Option(help="Decoding temperature.")]
DecodingSeed = Annotated[int | None, typer.Option(
    help="Decoding seed sent to LLM judges, if the server honours it.")]
MaxTokens = Annotated[int | None, typer.Option(help="Completion token limit.")]
Samples = Annotated[int, typer.Option(help="Completions per call (n); the score is their mean.")]
Timeout = Annotated[float, typer.Option(help="Per-request timeout in seconds.")]
MaxRetries = Annotated[int, typer.Option(help="Retries with backoff for 429/5xx/timeouts.")]
StopAfter = Annotated[int, typer.Option(
    help="Stop a remote judge after this many consecutive calls fail with the same fatal error "
    "(HTTP 401/403/404, connection refused, DNS failure); its remaining pairs are recorded as "
    "not attempted. 0 = never.")]
Threads = Annotated[int | None, typer.Option(
    help="local judge: BLAS threads (default automatic: 2 on an idle machine, 1 when the other "
    "cores are busy).")]
OppositeGuard = Annotated[bool, typer.Option(
    "--opposite-guard/--no-opposite-guard",
    help="local judge: cap short pairs that differ by an opposite term (User Login/User Logout, "
    "开灯/关灯) at 0.2, said in the rationale (method usem3-cosine@v2); off = the calibrated "
    "cosine alone (usem3-cosine@v1).")]
Prices = Annotated[Path | None, typer.Option(
    help="TOML price table (USD per 1M tokens) replacing the dated default.")]
Http = Annotated[str, typer.Option(
    help="openai: HTTP transport: auto (aiohttp when installed), aiohttp or httpx.")]
StructuredField = Annotated[str, typer.Option(
    help="vllm: judges: the structured-output request field: auto (by each server's GET "
    "/version: structured_outputs from vLLM 0.10.2, guided_json before, response_format "
    "json_schema when unknown), structured_outputs, guided_json or response_format.")]
StructuredMethod = Annotated[str | None, typer.Option(
    help="langchain: judges: with_structured_output method (json_schema, function_calling, "
    "json_mode).")]
Context = Annotated[str, typer.Option(
    help="Task context for prompt judges (part of their prompts, so of a calibration's "
         "identity).")]
CacheDir = Annotated[Path | None, typer.Option(
    help="Cache directory (default $SIMJUDGE_CACHE_DIR or ~/.cache/simjudge).")]
CacheMode = Annotated[str, typer.Option(help=f"One of: {', '.join(CACHE_MODES)}.")]


def judge_options(*, base_url: str | None, api_key_env: str, scorer: str, concurrency: int,
                  max_batch: int, rpm: int | None, tpm: int | None, temperature: float,
                  decoding_seed: int | None, max_tokens: int | None, samples: int,
                  timeout: float, max_retries: int, stop_after: int, threads: int | None,
                  prices: Path | None, http: str, structured_method: str | None,
                  score_mode: str = "verbal", opposite_guard: bool = True,
                  structured_field: str = "auto") -> Any:
    """The :class:`judge.judges.options.JudgeOptions` of the command-line judge flags (each checked;
    the first bad one raises :class:`InputError` naming its flag)."""
    from judge.judges.options import JudgeOptions
    from judge.prices import load_prices

    params: dict[str, Any] = {"temperature": temperature}
    for k, v in (("seed", decoding_seed), ("max_tokens", max_tokens)):
        if v is not None:
            params[k] = v
    if samples != 1:
        params["n"] = samples
    return JudgeOptions(base_url=base_url, api_key_env=api_key_env, scorer=scorer,
                        params=params, concurrency=concurrency, max_batch=max_batch, rpm=rpm,
                        tpm=tpm, timeout_s=timeout, max_retries=max_retries,
                        prices=load_prices(prices), method=structured_method, http=http,
                        stop_after=stop_after, threads=threads,
                        score_mode=score_mode,  # type: ignore[arg-type]  # checked by it
                        opposite_guard=opposite_guard, structured_field=structured_field)


JUDGE_FLAGS: dict[str, tuple[Any, Any]] = {
    "base_url": (BaseUrl, None), "api_key_env": (ApiKeyEnv, "OPENAI_API_KEY"),
    "scorer": (ScorerOpt, "entity_similarity@v1"), "score_mode": (ScoreMode, "verbal"),
    "concurrency": (Concurrency, 16),
    "max_batch": (MaxBatch, 20), "rpm": (Rpm, None), "tpm": (Tpm, None),
    "temperature": (Temperature, 0.0), "decoding_seed": (DecodingSeed, None),
    "max_tokens": (MaxTokens, None), "samples": (Samples, 1), "timeout": (Timeout, 60.0),
    "max_retries": (MaxRetries, 2), "stop_after": (StopAfter, 8), "threads": (Threads, None),
    "opposite_guard": (OppositeGuard, True), "prices": (Prices, None), "http": (Http, "auto"),
    "structured_method": (StructuredMethod, None), "structured_field": (StructuredField, "auto"),
}
"""The judge flags shared by ``eval`` and ``calibrate``: parameter name → (annotated type,
default). :func:`with_judge_flags` adds them to a command; :func:`judge_options` reads them."""


def with_judge_flags(command: Callable[..., None]) -> Callable[..., None]:
    """Give a typer command every judge flag of :data:`JUDGE_FLAGS` (one definition for
    ``eval`` and ``calibrate``, so the two cannot drift apart).

    The command declares a last parameter ``judge_flags: dict[str, Any]``; typer sees the
    individual flags instead (``--base-url``, ``--scorer``…), and the command receives them
    collected in that dict, ready for :func:`judge_options`.
    """
    return with_flag_group(command, "judge_flags", JUDGE_FLAGS, lambda flags, _: flags)


def with_flag_group(command: Callable[..., None], param: str,
                    flags: Mapping[str, tuple[Any, Any]],
                    collect: Callable[[dict[str, Any], dict[str, Any]], Any],
                    ) -> Callable[..., None]:
    """Give a typer command the individual flags of ``flags`` (parameter name → (annotated
    type, default)) in place of its parameter ``param``, which receives
    ``collect(the flags' values, the command's other arguments)``.

    Used by :func:`with_judge_flags` and :func:`judge.cli.canaryopts.with_canary_flags`.
    """
    sig = inspect.signature(command, eval_str=True)
    own = [p for p in sig.parameters.values() if p.name != param]
    extra = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                               annotation=annotation)
             for name, (annotation, default) in flags.items()]

    @functools.wraps(command)
    def wrapper(**kwargs: Any) -> None:
        values = {name: kwargs.pop(name) for name in flags}
        command(**kwargs, **{param: collect(values, kwargs)})

    wrapper.__signature__ = sig.replace(parameters=[*own, *extra])  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in [*own, *extra]}
    del wrapper.__wrapped__  # typer must read the signature above, not the command's
    return wrapper

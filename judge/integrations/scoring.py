"""Judging one item at a time with simjudge for a framework's per-sample scorer
(:mod:`judge.integrations.inspect`): the task, judge, parameters and cache built once
(:class:`ItemJudging`), and a model's answer read as a list of items (:func:`parse_items`).
Nothing here imports a framework."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from judge.items import Item
from judge.judges.options import JudgeOptions
from judge.judges.panel import Vote

_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)]|\(\d+\))\s+")
_FENCE = re.compile(r"^```[A-Za-z]*\s*\n(.*?)\n?```\s*$", re.DOTALL)


def unfence(text: str) -> str:
    """``text`` stripped, or the inside of the fenced block (```json … ```) it is."""
    m = _FENCE.match(text.strip())
    return m.group(1) if m else text.strip()


def parse_items(text: str, how: Literal["auto", "json", "lines"] = "auto") -> list[str]:
    """A model's answer as a list of item strings.

    Args:
        text: the answer (``state.output.completion``); a fenced block (```json …```) is
            read inside its fence.
        how: ``json`` — a JSON array (non-string elements as JSON text); ``lines`` — one item
            per non-empty line, a leading bullet (``-``, ``*``, ``•``) or number (``1.``,
            ``2)``) dropped; ``auto`` — ``json`` when the text is a JSON array, else
            ``lines``.

    Returns:
        The items, in order, stripped (empty ones dropped).

    Raises:
        ValueError: ``how="json"`` and the text is not a JSON array.
    """
    body = unfence(text)
    if how in ("json", "auto") and body.startswith("["):
        try:
            value = json.loads(body)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, list):
            return [s for s in (v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
                                for v in value) if s.strip()]
    if how == "json":
        raise ValueError(f"expected a JSON array of items, got {body[:80]!r}")
    return [s for s in (_BULLET.sub("", line).strip() for line in body.splitlines()) if s]


class ItemJudging:
    """A framework scorer's simjudge side: the task, its judge (built, and checked, on first
    use — inside the framework's event loop), parameters and judge-call cache;
    :meth:`item_row` judges and scores one item.

    Args:
        task: the task name (``selection``, ``function-call``…).
        settings: the judge and scoring settings made by :func:`settings`.
    """

    def __init__(self, task: str, settings: Mapping[str, Any]) -> None:
        self.task_name = task
        self.settings = dict(settings)
        self._built: tuple[Any, Any, Any, Any] | None = None
        self._lock: asyncio.Lock | None = None

    def _build(self) -> tuple[Any, Any, Any, Any]:
        from judge.cache import JudgeCache
        from judge.pipeline.checks import check_cache_mode
        from judge.pipeline.config import EvalConfig
        from judge.pipeline.run import build_judge
        from judge.tasks.base import Params
        from judge.tasks.options import task_options
        from judge.tasks.registry import get_task, option_owners, options_model

        s = self.settings
        task = get_task(self.task_name)
        check_cache_mode(s["cache_mode"])
        options = task_options(options_model(task.name), s["task_options"], task.name,
                               option_owners())
        config = EvalConfig(
            task=task.name, judges=list(s["judges"]), task_options=s["task_options"],
            judges_file=Path(s["judges_file"]) if s["judges_file"] else None,
            judge_options=s["judge_options"], vote=s["vote"], quorum=s["quorum"],
            tau=s["tau"], tau_from=Path(s["tau_from"]) if s["tau_from"] else None,
            context=s["context"], zero_division=s["zero_division"])
        judge, tau, _ = build_judge(config, task, options)
        task.check_judge(judge)
        params = Params(tau=tau, zero_division=s["zero_division"], context=s["context"],
                        options=options)
        cache = JudgeCache(s["cache_dir"], s["cache_mode"])
        return task, judge, params, cache

    async def item_row(self, record: dict[str, Any], pred: Any = None
                       ) -> tuple[Any, list[Any]]:
        """``(row, verdicts)``: the task's typed item row for one record (the fields of
        :meth:`judge.tasks.base.Task.from_dicts`; ``pred``, when given, replaces the item's
        prediction after reading) and the verdict rows of its judging."""
        from dataclasses import replace

        from judge.judges.base import JudgeContext

        if self._built is None:
            self._built = self._build()
        if self._lock is None:
            self._lock = asyncio.Lock()
        task, judge, params, cache = self._built
        items: list[Item] = task.from_dicts([record], max_chars=self.settings["max_chars"])
        if pred is not None:
            items = [replace(items[0], pred=pred)]
        async with self._lock:
            ctx = JudgeContext(cache=cache, context=params.context)
            judged = await task.judge(items, judge, ctx, params)
        rows, _ = task.score(items, judged, params)
        return rows[0], list(judged.rows())


def settings(judge: str | Sequence[str] | None, tau: float, vote: Vote, quorum: int,
             judges_file: str | None, tau_from: str | None, context: str,
             zero_division: float, cache_dir: str | None, cache_mode: str, max_chars: int,
             judge_options: JudgeOptions | None,
             task_options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settings :class:`ItemJudging` builds from, named as :func:`judge.evaluate` names
    them (a single judge spec becomes a list of one)."""
    judges = [] if judge is None else [judge] if isinstance(judge, str) else list(judge)
    return {"judges": judges, "tau": tau, "vote": vote, "quorum": quorum,
            "judges_file": judges_file, "tau_from": tau_from, "context": context,
            "zero_division": zero_division, "cache_dir": cache_dir, "cache_mode": cache_mode,
            "max_chars": max_chars, "judge_options": judge_options,
            "task_options": dict(task_options or {})}

"""The help panels of ``simjudge eval --help``: its ~90 options grouped by what they are about
(rich's help panels), instead of one list of several hundred lines.

The panels are assigned here, by parameter name, after the judge and task flags were added
(:mod:`judge.cli.options`, :mod:`judge.cli.taskflags`), on copies of the options' typer
metadata — so ``calibrate`` and ``leaderboard``, which share the judge flags, are unchanged.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, get_args, get_origin

from typer.models import OptionInfo

EVAL_PANELS: dict[str, tuple[str, ...]] = {
    "Data": ("task", "pred_field", "truth_field", "id_field", "gold", "where", "limit",
             "max_chars"),
    "Judges": ("judge", "judges_file", "vote", "quorum", "probe", "repeats", "context",
               "scorer", "score_mode", "temperature", "decoding_seed", "samples",
               "opposite_guard", "threads"),
    "Threshold & calibration": ("tau", "tau_from", "allow_stale_calibration"),
    "LLM calls & budget": ("dry_run", "max_usd", "base_url", "api_key_env", "concurrency",
                           "max_batch", "rpm", "tpm", "max_tokens", "timeout", "max_retries",
                           "stop_after", "prices", "http", "structured_field",
                           "structured_method"),
    "Batch API": ("batch_api", "batch_max_requests", "batch_max_bytes", "batch_queue_tokens",
                  "cancel_stale"),
    "Cache": ("cache_dir", "cache_mode"),
    "Output": ("out_dir", "overwrite", "quiet", "json_out", "bootstrap", "seed"),
}
"""Panel title → the ``eval`` parameters shown in it, in this order of panels. Every option not
named here is a task's own option (:mod:`judge.cli.taskflags`), shown in "Task options"."""
TASK_PANEL = "Task options"


def with_panels(panels: Mapping[str, Sequence[str]], rest: str
                ) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A decorator that puts each option of a typer command in its help panel.

    Args:
        panels: panel title → parameter names (:data:`EVAL_PANELS`).
        rest: the panel of every option not named in ``panels``.

    Returns:
        The decorator: it sets ``rich_help_panel`` on a copy of each option's
        :class:`typer.models.OptionInfo` in the command's signature (the one typer reads) and
        orders the options by panel (typer shows the panels in the order it meets them);
        arguments keep typer's "Arguments" panel and come first.

    Raises:
        ValueError: (at import) ``panels`` names a parameter the command does not have.
    """
    where = {name: title for title, names in panels.items() for name in names}

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        sig = inspect.signature(command)
        unknown = set(where) - set(sig.parameters)
        if unknown:
            raise ValueError(f"help panels name unknown parameters: {sorted(unknown)}")
        params = []
        for p in sig.parameters.values():
            ann = p.annotation
            if get_origin(ann) is Annotated:
                tp, *meta = get_args(ann)
                meta = [_in_panel(m, where.get(p.name, rest)) for m in meta]
                ann = Annotated[tuple([tp, *meta])]
            # keyword-only (typer passes keywords), so that they can be put in panel order
            params.append(p.replace(annotation=ann, kind=inspect.Parameter.KEYWORD_ONLY))
        order = {title: k for k, title in enumerate([*panels, rest])}
        params.sort(key=lambda p: (p.default is not inspect.Parameter.empty,  # arguments first
                                   order[where.get(p.name, rest)]))
        command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params}
        return command

    return decorate


def _in_panel(meta: Any, title: str) -> Any:
    """A copy of an option's typer metadata in panel ``title`` (anything else unchanged)."""
    if not isinstance(meta, OptionInfo):
        return meta
    info = copy.copy(meta)
    info.rich_help_panel = title
    return info

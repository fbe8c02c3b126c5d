"""Notebook interop: a run's item and verdict rows as typed pandas DataFrames, and a pandas
DataFrame or HF ``datasets.Dataset`` as the input records of :func:`judge.evaluate`.

pandas (and ``datasets``) are optional: ``pip install "simjudge[notebook]"``. Nothing here
imports them at module level, and importing :mod:`judge` never imports them; a table given as
input is recognised by the class of an already imported ``pandas``/``datasets`` module (whoever
holds a DataFrame has imported pandas).

Column types come from the row models (:mod:`judge.record.itemrows`,
:class:`~judge.record.rows.VerdictRow`): a count is ``int64`` (``Int64`` when some row lacks
it), a metric or score ``float64`` (NaN when missing: a failed verdict's score), a flag
``bool`` (``boolean`` when some row lacks it), a text ``string``; fields a model does not name
are typed from their values. Only scalar fields become columns: lists and objects (matches,
score matrices, calls) stay on the typed rows (``result.rows``, ``record.items``).
"""

from __future__ import annotations

import datetime as _dt
import math
import sys
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from judge.errors import InputError

EXTRA = "notebook"
"""The optional dependency group that brings pandas and datasets (``simjudge[notebook]``)."""
_SCALAR = (bool, int, float, str)
Kind = typing.Literal["bool", "int", "float", "str"]


def require_pandas(what: str) -> Any:
    """The ``pandas`` module.

    Args:
        what: the feature that needs it, for the message (``EvalResult.to_pandas()``).

    Raises:
        ImportError: pandas is not installed; the message names the extra to install.
    """
    try:
        import pandas
    except ImportError:
        raise ImportError(f"{what} needs pandas, which simjudge installs only with its "
                          f"'{EXTRA}' extra: pip install \"simjudge[{EXTRA}]\"") from None
    return pandas


def _kind(annotation: Any) -> Kind | None:
    """The scalar kind of a field annotation (None inside ``X | None`` ignored), or None for a
    non-scalar field (lists, objects)."""
    args = [a for a in _flatten(annotation) if a is not type(None)]
    if not args:
        return None
    if all(a is bool for a in args):
        return "bool"
    if all(a is int for a in args):
        return "int"
    if all(a in (int, float) for a in args):
        return "float"
    if all(a is str or (isinstance(a, str)) for a in args):
        return "str"
    return None


def _flatten(annotation: Any) -> list[Any]:
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return [x for a in typing.get_args(annotation) for x in _flatten(a)]
    if origin is typing.Literal:
        return list(typing.get_args(annotation))
    if origin is not None:  # list[...], dict[...]
        return [origin]
    return [annotation]


def _value_kind(values: Iterable[Any]) -> Kind | None:
    """The kind of a column from its values (None values ignored); None when any is not a
    scalar or they mix texts with numbers."""
    kinds = set()
    for v in values:
        if v is None:
            continue
        if not isinstance(v, _SCALAR):
            return None
        kinds.add("bool" if isinstance(v, bool) else "int" if isinstance(v, int)
                  else "float" if isinstance(v, float) else "str")
    if not kinds:
        return None
    if len(kinds) == 1:
        return kinds.pop()  # type: ignore[return-value]
    return "float" if kinds <= {"int", "float"} else None


def _model_kinds(model: type[BaseModel]) -> dict[str, Kind | None]:
    """JSON name → scalar kind of each named field of ``model``."""
    return {(f.alias or n): _kind(f.annotation) for n, f in model.model_fields.items()}


def frame(rows: Sequence[Mapping[str, Any]], model: type[BaseModel] | None,
          first: Sequence[str] = (), what: str = "to_pandas()") -> Any:
    """A DataFrame of the scalar fields of ``rows`` (dicts by JSON name), typed by ``model``.

    Args:
        rows: one dict per row (``ItemRow.to_row()``, a verdict row).
        model: the row model whose annotations give the column types (None: from the values).
        first: columns to put first, in this order (when present).
        what: the feature, for the message when pandas is missing.

    Returns:
        ``pandas.DataFrame`` with one row per input row, columns in the rows' field order.

    Raises:
        ImportError: pandas is not installed (the ``notebook`` extra named).
    """
    pd = require_pandas(what)
    named = _model_kinds(model) if model is not None else {}
    order: dict[str, None] = dict.fromkeys(c for c in first)
    for r in rows:
        order.update(dict.fromkeys(r))
    columns: dict[str, Any] = {}
    for name in order:
        values = [r.get(name) for r in rows]
        kind = named.get(name) if name in named else _value_kind(values)
        if kind is None or (name not in named and not any(v is not None for v in values)):
            continue
        if kind == "str" and any(not isinstance(v, str) and v is not None for v in values):
            continue
        missing = any(v is None for v in values) or any(name not in r for r in rows)
        if kind == "float":
            columns[name] = pd.array([math.nan if v is None else float(v) for v in values],
                                     dtype="float64")
        elif kind == "int":
            columns[name] = pd.array(values, dtype="Int64" if missing else "int64")
        elif kind == "bool":
            columns[name] = pd.array(values, dtype="boolean" if missing else "bool")
        else:
            columns[name] = pd.array(values, dtype="string")
    return pd.DataFrame(columns, index=pd.RangeIndex(len(rows)))


# ---------------------------------------------------------------------------------- input
def _clean(value: Any) -> Any:
    """A table cell as a JSON value: numpy scalars and arrays as Python numbers and lists,
    dates as ISO 8601 text; anything else as it is."""
    if isinstance(value, (str, bool, int, float)) or value is None:
        return value
    if isinstance(value, Mapping):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, (_dt.datetime, _dt.date)):
        return value.isoformat()
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars
    if callable(tolist):
        return _clean(tolist())
    return value


def _missing(value: Any) -> bool:
    """pandas' markers of an absent cell: NaN (float), ``pd.NA``, ``NaT``."""
    if isinstance(value, float):
        return math.isnan(value)
    return type(value).__name__ in ("NAType", "NaTType")


def table_records(items: Any) -> list[dict[str, Any]] | None:
    """The records of a pandas DataFrame or a ``datasets.Dataset`` / ``IterableDataset``, one
    dict per row in order (None when ``items`` is neither).

    DataFrame cells that pandas marks as absent (NaN, ``pd.NA``, ``NaT`` — what a frame built
    from dicts holds where a dict lacked the field) are left out of their record, as a JSONL
    record without the field; numpy values become Python numbers and lists. The index is not
    read (name an id column with ``id_fields``).

    Raises:
        InputError: a ``datasets.DatasetDict`` (several splits: pass one), or a DataFrame whose
            column names are not unique strings.
    """
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(items, pd.DataFrame):
        names = list(items.columns)
        if not all(isinstance(c, str) for c in names) or len(set(names)) != len(names):
            raise InputError("DataFrame columns must be unique strings (field names), got "
                             f"{names[:10]!r}", field="items")
        return [{k: _clean(v) for k, v in row.items() if not _missing(v)}
                for row in items.to_dict(orient="records")]
    ds = sys.modules.get("datasets")
    if ds is not None:
        if _is(items, ds, "DatasetDict", "IterableDatasetDict"):
            splits = ", ".join(str(k) for k in items)
            raise InputError(f"a DatasetDict holds several splits ({splits}): pass one, e.g. "
                             "ds['test']", field="items")
        if _is(items, ds, "Dataset", "IterableDataset"):
            return [{str(k): _clean(v) for k, v in row.items()} for row in items]
    return None


def _is(obj: Any, module: Any, *names: str) -> bool:
    """Whether ``obj`` is an instance of one of the classes ``names`` of ``module`` (an
    unrelated module of that name has none of them)."""
    classes = tuple(c for n in names if isinstance(c := getattr(module, n, None), type))
    return bool(classes) and isinstance(obj, classes)

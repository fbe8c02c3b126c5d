"""Options of ``--task multilabel`` (:attr:`judge.tasks.multilabel.MultilabelTask.Options`) and
the reading of its label space; standard library only, read by the command line without
importing the task (:mod:`judge.tasks.options`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judge.errors import InputError


@dataclass(frozen=True)
class MultilabelOptions:
    """Options of ``--task multilabel``.

    Attributes:
        labels: the label space. On the command line a file (UTF-8, one label a line) or a
            comma-separated list ``a,b,c``; from Python also a sequence of strings. Once the
            items are read (:func:`label_space`) it is the tuple of labels the run scores, in
            the given order: the given space, or by default every label the items use, sorted.
            A label of the space that no item uses still counts in the per-class averages
            (C-P, C-R, macro and weighted F1, Hamming loss); a label an item uses outside the
            space is left out of every measure, as scikit-learn does with ``labels=``
            (``MultiLabelBinarizer(classes=…)`` ignores unknown classes, and
            ``precision_recall_fscore_support(labels=…)`` scores only the labels given).
    """

    labels: str | tuple[str, ...] | None = field(default=None, metadata={
        "role": "labels",  # a file given here is an input of the run (config.json, export)
        "help": "multilabel: the label space, a file (one label a line) or a,b,c; labels no "
                "item uses still count in the per-class averages, labels outside it are left "
                "out (scikit-learn's labels=). Default: the labels the items use."})


def _checked(labels: Sequence[str], where: str) -> tuple[str, ...]:
    """``labels`` as a tuple: non-empty strings without surrounding space, each once.

    Raises:
        InputError: no label, an empty label, or a label given twice (``where`` names the
            place: the flag's element or the file's line).
    """
    seen: dict[str, int] = {}
    for k, lab in enumerate(labels, 1):
        if not isinstance(lab, str) or not lab:
            raise InputError(f"{where} {k}: expected a label (a non-empty string), got "
                             f"{lab!r}", field="labels")
        if lab in seen:
            raise InputError(f"{where} {k}: label {lab!r} is given twice (first as element "
                             f"{seen[lab]})", field="labels")
        seen[lab] = k
    if not seen:
        raise InputError("--labels: no label given", field="labels")
    return tuple(seen)


def read_labels(value: str | Sequence[str]) -> tuple[str, ...]:
    """The label space ``--labels`` names.

    Args:
        value: the path of an existing UTF-8 file holding one label a line (surrounding
            whitespace stripped, blank lines skipped); else a comma-separated list (``a,b,c``,
            each label stripped; a label holding a comma needs the file); or, from Python, a
            sequence of labels.

    Returns:
        The labels in the given order.

    Raises:
        InputError: (field ``labels``) a file that cannot be read or is not UTF-8, a value
            without a comma that names no file (a typo in a path must not become a one-label
            space), an empty label, a label given twice (file and line, or the element,
            named), or no label at all.

    Examples:
        >>> read_labels("billing, shipping,account")
        ('billing', 'shipping', 'account')
    """
    if not isinstance(value, str):
        return _checked(list(value), "--labels: element")
    path = Path(value)
    if path.is_file():
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"--labels: cannot read {path}: {exc}", field="labels") from None
        numbered = [(n, s.strip()) for n, s in enumerate(lines, 1) if s.strip()]
        if not numbered:
            raise InputError(f"--labels: {path} holds no label", field="labels")
        seen: dict[str, int] = {}
        for n, lab in numbered:
            if lab in seen:
                raise InputError(f"--labels: {path}:{n}: label {lab!r} is given twice (first "
                                 f"on line {seen[lab]})", field="labels")
            seen[lab] = n
        return tuple(seen)
    if "," not in value or path.exists():
        raise InputError(f"--labels: no such file {value!r} (give a file of one label a line "
                         "or a comma-separated list a,b,c)", field="labels")
    return _checked([s.strip() for s in value.split(",")], "--labels: element")


def label_space(given: str | Sequence[str] | None,
                used: Iterable[Sequence[str]]) -> tuple[str, ...]:
    """The label space a run scores: ``given`` read by :func:`read_labels`, or (None) every
    label of ``used`` (the items' label lists), sorted.

    Raises:
        InputError: see :func:`read_labels`.
    """
    if given is not None:
        return read_labels(given)
    return tuple(sorted({lab for labels in used for lab in labels}))

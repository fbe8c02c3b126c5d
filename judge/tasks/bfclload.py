"""BFCL inputs: a result file or a whole result folder, its questions and possible answers, and
the model whose decoder reads it.

A result folder as BFCL writes it (``result/MODEL/gorilla_openfunctions_v1_test_CATEGORY_result
.json``) is read category by category: each AST category's result file is joined on ``id`` with
the question file of that category in ``--functions`` (BFCL's ``data`` folder) and, except for
``relevance``, its possible-answer file in ``--gold`` (default: ``possible_answer/`` inside the
``--functions`` folder). The executable and REST categories need the functions run live: their
files are skipped and named in the run's notes.

The model is ``--bfcl-model`` or, when not given, the result folder's name (for a single file,
its folder's name) if BFCL knows it (:func:`judge.tasks.bfclmodels.bfcl_model`); otherwise the
``generic`` decoder reads the results (:func:`judge.tasks.bfcldecoders.decode_generic`).
"""

from __future__ import annotations

from pathlib import Path

from judge.errors import InputError
from judge.tasks.bfclcheck import AST_CATEGORIES
from judge.tasks.bfclmodels import bfcl_model

GENERIC = "generic"
"""The decoder family used when the model is neither given nor detected."""


def category_of_file(path: Path) -> str:
    """BFCL's category of a data or result file name (``…_test_CATEGORY[_result].json``, as
    ``eval_runner_helper.extract_after_test`` reads it); "" for other names."""
    name = path.name
    if "_test_" not in name:
        return ""
    return name.split("_test_", 1)[1].split("_result")[0].split(".json")[0]


def _by_category(folder: Path) -> dict[str, Path]:
    return {category_of_file(p): p for p in sorted(folder.glob("*.json"))
            if category_of_file(p)}


def detect_model(data: Path, given: str | None) -> str:
    """The model name for ``data``: ``given`` when set, else the result folder's name when
    BFCL knows it, else :data:`GENERIC`.

    Raises:
        InputError: ``given`` is not a model BFCL knows nor a decoder family (field
            ``bfcl-model``).
    """
    if given is not None:
        try:
            bfcl_model(given)
        except KeyError as exc:
            raise InputError(str(exc.args[0]), field="bfcl-model") from None
        return given
    folder = data if data.is_dir() else data.parent
    try:
        bfcl_model(folder.name)
    except KeyError:
        return GENERIC
    return folder.name


def bfcl_files(data: Path, gold: Path | None, functions: Path | None
               ) -> tuple[list[tuple[Path, Path | None, Path]], list[str]]:
    """``([(result file, possible-answer file or None, question file)], notes)``.

    ``data`` a file: one triple with ``gold`` and ``functions`` as files (``gold`` may be None
    when every result is a relevance item). ``data`` a folder: one triple per AST category it
    holds; ``functions`` must be BFCL's data folder and ``gold`` (default
    ``functions/possible_answer``) its possible-answer folder; the notes name the skipped
    executable/REST files.

    Raises:
        InputError: ``--functions`` missing, a folder where a file is expected or the other
            way round, or a category whose question or possible-answer file is missing.
    """
    if functions is None:
        raise InputError("--format bfcl needs --functions: the question file (or, for a result "
                         "folder, BFCL's data folder)", field="functions")
    if not data.is_dir():
        if functions.is_dir() or (gold is not None and gold.is_dir()):
            raise InputError("a single result file needs --functions and --gold as files; give "
                             "the result folder to read folders", field="functions")
        return [(data, gold, functions)], []
    if not functions.is_dir():
        raise InputError(f"a result folder ({data}) needs --functions BFCL_DATA_FOLDER, got the "
                         f"file {functions}", field="functions")
    answers = gold if gold is not None else functions / "possible_answer"
    if not answers.is_dir():
        raise InputError(f"a result folder needs --gold POSSIBLE_ANSWER_FOLDER ({answers} is "
                         "not a folder)", field="gold")
    results, questions, golds = _by_category(data), _by_category(functions), _by_category(answers)
    triples, notes = [], []
    for cat, path in results.items():
        if cat not in AST_CATEGORIES:
            notes.append(f"{path.name}: category {cat} is not scored (executable and REST "
                         "categories run the functions live; out of scope)")
            continue
        if cat not in questions:
            raise InputError(f"no question file for category {cat} in {functions}",
                             path, field="functions")
        if cat != "relevance" and cat not in golds:
            raise InputError(f"no possible-answer file for category {cat} in {answers}",
                             path, field="gold")
        triples.append((path, golds.get(cat) if cat != "relevance" else None, questions[cat]))
    if not triples:
        raise InputError(f"no BFCL result file of an AST category ({', '.join(AST_CATEGORIES)})"
                         f" in {data}", data, field="data")
    return triples, notes

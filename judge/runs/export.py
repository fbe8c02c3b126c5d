"""``simjudge export RUN --with-cache OUT.tar.gz``: a run, the cache entries it used, its input
files and its prompt templates in one archive, so that ``simjudge eval … --cache-mode
cache-only`` on another machine reproduces the run with no judge call.

Archive layout (one top folder, the bundle's name)::

    NAME/run/…             the run directory (config.json, summary.json, *.jsonl, report.html)
    NAME/cache/…           a JSON cache directory (:mod:`judge.jsoncache`: ``index.json`` and
                           ``entries/<key>.json``) holding exactly the entries the run used
    NAME/input/…           the run's input files (data, --functions, --gold, --labels,
                           --tau-from) whose sha256 still matches config.json
    NAME/prompts/…         the templates of the scorers its verdicts name, and versions.lock
    NAME/MANIFEST.json     what is inside, sha256 of every file, ``cache``: the format and the
                           sha256 of every cache entry, and ``replay``: the run's own command
                           with its paths pointed into the bundle and ``--cache-dir cache
                           --cache-mode cache-only --out replay``

The entries a run used are the ``cache_key`` of every verdict (an embedding judge's
``KEY(pred)+KEY(truth)`` gives both; a panel's or ``--repeats``' member calls are verdicts of
their own) and every swap-probe row's ``swapped_cache_key`` and ``swapped_member_cache_keys``.
A run whose swap probe went through a panel or ``--repeats`` but did not record its member
keys (written before they were) is refused: its bundle could not replay.

The entries are JSON, never pickles: the replay (:class:`judge.cache.JudgeCache` on a JSON
cache directory) checks every entry's sha256 against the index and this manifest before using
any, so a tampered entry stops the replay instead of changing its numbers, and loading an
untrusted bundle runs no code. Cache values hold raw answers and usage only — never an API key
(:func:`judge.cache.cache_key` refuses credential-like parts) — so the bundle holds none either.
"""

from __future__ import annotations

import io
import json
import re
import tarfile
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judge.cache import JudgeCache
from judge.errors import InputError
from judge.io import file_sha256
from judge.jsoncache import FORMAT, is_json_cache, write_cache_dir
from judge.record.runrecord import RunRecord
from judge.tasks.inputs import ROLES, locate_input, resolve, run_bases

_KEY = re.compile(r"^[0-9a-f]{64}$")
_DROP_FLAGS = ("--out", "--cache-dir", "--cache-mode")


@dataclass
class ExportResult:
    """What :func:`export_run` wrote.

    Attributes:
        path: the archive.
        entries: cache entries copied (>= 0).
        inputs: input files copied, by role (``data``, ``functions``, ``gold``, ``labels``,
            ``tau_from``).
        inputs_missing: roles whose file was absent or changed since the run (not copied).
        templates: template files copied (paths relative to ``prompts/``).
        replay: the command that replays the run from the unpacked bundle's folder.
        cache_sha256: cache key → sha256 of its JSON entry file in the bundle.
    """

    path: Path
    entries: int
    inputs: dict[str, str] = field(default_factory=dict)
    inputs_missing: dict[str, str] = field(default_factory=dict)
    templates: list[str] = field(default_factory=list)
    replay: list[str] = field(default_factory=list)
    cache_sha256: dict[str, str] = field(default_factory=dict)


def used_cache_keys(record: RunRecord) -> list[str]:
    """The cache keys a run used, sorted: every verdict's ``cache_key`` (``A+B`` split) and
    every ``swap_probe.jsonl`` row's ``swapped_cache_key`` and ``swapped_member_cache_keys``;
    anything that is not a sha256 hex key (a table judge's, a run's without keys) is skipped."""
    found: set[str] = set()
    raw = [v.get("cache_key") for v in record.verdict_rows()]
    for r in record.extra.get("swap_probe.jsonl", []):
        raw += [r.get("swapped_cache_key"), *(r.get("swapped_member_cache_keys") or [])]
    for k in raw:
        for part in str(k or "").split("+"):
            if _KEY.match(part):
                found.add(part)
    return sorted(found)


def unrecorded_swaps(record: RunRecord) -> int:
    """Swap-probe rows whose swapped call went through a panel or ``--repeats`` (the run has
    member verdicts) but which record no key of it: no ``swapped_cache_key`` and no
    ``swapped_member_cache_keys`` field (runs written before that field existed)."""
    rows = record.extra.get("swap_probe.jsonl", [])
    if not rows or not any(v.get("member_of") for v in record.verdict_rows()):
        return 0
    return sum(1 for r in rows if r.get("swapped_outcome") != "no_verdict"
               and not _KEY.match(str(r.get("swapped_cache_key") or ""))
               and "swapped_member_cache_keys" not in r)


def _inputs(record: RunRecord, bases: Sequence[Path]) -> tuple[dict[str, Path], dict[str, str]]:
    """Input files by role whose sha256 matches config.json, and the reasons for the others
    (:func:`judge.tasks.inputs.locate_input`)."""
    found: dict[str, Path] = {}
    missing: dict[str, str] = {}
    cfg = record.config.model_dump()
    for role in ROLES:
        path, problem = locate_input(record, role, bases)
        if problem is not None:
            missing[role] = f"{cfg[role]['path']}: {problem}"
        elif path is not None:
            found[role] = path
    return found, missing


def _templates(record: RunRecord) -> tuple[Path, list[str]]:
    """The prompts folder and, relative to it, the template files of the scorers named by the
    run's verdicts (``name@vN`` → ``name/vN.jinja``), plus ``versions.lock``."""
    from importlib import resources

    root = Path(str(resources.files("prompts")))
    out: set[str] = set()
    for v in record.verdict_rows():
        name, _, version = str(v.get("scorer") or "").partition("@")
        if name and version and (root / name / f"{version}.jinja").is_file():
            out.add(f"{name}/{version}.jinja")
    if out and (root / "versions.lock").is_file():
        out.add("versions.lock")
    return root, sorted(out)


def without_flags(command: Sequence[str], valued: Sequence[str],
                  bare: Sequence[str] = ()) -> list[str]:
    """``command`` without the options ``valued`` (with their values: ``--out DIR`` or
    ``--out=DIR``) and the switches ``bare`` (``--overwrite``)."""
    out: list[str] = []
    skip = False
    for tok in command:
        if skip:
            skip = False
            continue
        flag, eq, _ = tok.partition("=")
        if flag in valued:
            skip = not eq
        elif flag not in bare:
            out.append(tok)
    return out


def replay_command(command: Sequence[str], inputs: Mapping[str, str],
                   originals: Mapping[str, str], with_cache: bool = True) -> list[str]:
    """The run's command pointed into the bundle: each input path token (``originals[role]``,
    as written on the command line, alone or as ``--flag=PATH``) replaced by ``inputs[role]``;
    ``--out``, ``--cache-dir`` and ``--cache-mode`` dropped with their values; then
    ``--cache-dir cache --cache-mode cache-only --out replay`` appended (``--out replay`` only
    when ``with_cache`` is False: that replay calls the judges again).

    Args:
        command: ``config.json``'s ``command`` (``["simjudge", "eval", …]``).
        inputs: role → path inside the bundle (``input/data.jsonl``).
        originals: role → the path as config.json records it.
    """
    swap = {originals[r]: inputs[r] for r in inputs if r in originals}
    out: list[str] = []
    for tok in without_flags(command, _DROP_FLAGS):
        flag, eq, value = tok.partition("=")
        if eq and value in swap:
            out.append(f"{flag}={swap[value]}")
        else:
            out.append(swap.get(tok, tok))
    cache = ["--cache-dir", "cache", "--cache-mode", "cache-only"] if with_cache else []
    return [*out, *cache, "--out", "replay"]


def _add_file(tar: tarfile.TarFile, path: Path, arcname: str) -> None:
    if path.is_dir():  # an input folder (a BFCL result folder): its files, sorted
        for p in sorted(q for q in path.rglob("*") if q.is_file()):
            _add_file(tar, p, f"{arcname}/{p.relative_to(path).as_posix()}")
        return
    info = tar.gettarinfo(str(path), arcname)
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    with open(path, "rb") as fh:
        tar.addfile(info, fh)


def _add_bytes(tar: tarfile.TarFile, data: bytes, arcname: str) -> None:
    info = tarfile.TarInfo(arcname)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _files(root: Path) -> Iterable[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def export_run(record: RunRecord, out: Path, cache_dir: Path | None, with_cache: bool = True,
               started_in: Path | None = None) -> ExportResult:
    """Write the bundle of ``record`` to ``out`` (a ``.tar.gz``; see the module docstring).

    Args:
        record: a loaded run (``record.path`` set).
        out: the archive to write; it is written to a temporary name and renamed when complete,
            so nothing half-written is left.
        cache_dir: the cache the run used (None = the one its config.json names, else the
            default).
        with_cache: copy the entries the run used (False: run, inputs and templates only; the
            replay then calls the judges).
        started_in: the folder the run was started from, for config.json's relative paths
            (cache, inputs); default: the current folder, then the run directory's parent.

    Returns:
        :class:`ExportResult`.

    Raises:
        InputError: the run has no path, ``out`` does not end in ``.tar.gz``, the cache is
            missing, some entries the run used are not in it (the message gives how many
            and the first key), the run's swap probe did not record the keys of its panel or
            ``--repeats`` calls (:func:`unrecorded_swaps`), or an entry JSON cannot hold —
            checked before anything is written.
    """
    if record.path is None:
        raise InputError("the run has no directory")
    run_dir = Path(record.path)
    if not out.name.endswith(".tar.gz"):
        raise InputError(f"{out}: the bundle must be a .tar.gz file", field="out")
    if not out.parent.resolve().is_dir():
        raise InputError(f"{out}: no folder {out.parent} to write the bundle in", field="out")
    cfg = record.config.model_dump()
    bases = run_bases(record, started_in)
    if cache_dir is None and isinstance(cfg.get("cache"), Mapping):
        d = cfg["cache"].get("directory")
        cache_dir = resolve(str(d), bases) if d else None
    keys = used_cache_keys(record) if with_cache else []
    blind_swaps = unrecorded_swaps(record) if with_cache else 0
    if blind_swaps:
        raise InputError(f"{blind_swaps} swap-probe rows of this run went through a panel or "
                         "--repeats and record no cache key of their swapped calls (a run "
                         "written before simjudge recorded them): a cache-only replay would "
                         "miss those entries. Run it again, or export --without-cache",
                         run_dir / "swap_probe.jsonl", field="swapped_member_cache_keys")
    cache = JudgeCache(cache_dir, mode="read-only")
    if keys and not ((cache.directory / "cache.db").exists() or is_json_cache(cache.directory)):
        raise InputError(f"no cache at {cache.directory}: give --cache-dir", field="cache_dir")
    entries: dict[str, Any] = {}
    try:
        for k in keys:
            v = cache.get(k)
            if v is not None:
                entries[k] = v
    finally:
        cache.close()
    lost = [k for k in keys if k not in entries]
    if lost:
        raise InputError(f"{len(lost)} of the {len(keys)} cache entries the run used are not in "
                         f"{cache.directory} (first: {lost[0]}); a replay could not be exact",
                         field="cache_dir")
    found, missing = _inputs(record, bases)
    name = out.name.removesuffix(".tar.gz")
    result = ExportResult(out, len(entries), inputs_missing=missing)
    originals = {r: str(cfg[r]["path"]) for r in found}
    # a folder keeps its own name (a BFCL result folder names the model that wrote it)
    result.inputs = {r: f"input/{r}/{p.name}" if p.is_dir() else
                     f"input/{r}{''.join(p.suffixes[-1:])}" for r, p in found.items()}
    prompts_root, templates = _templates(record)
    result.replay = replay_command([str(x) for x in cfg.get("command") or []], result.inputs,
                                   originals, with_cache)
    with tempfile.TemporaryDirectory(prefix="simjudge-export-") as tmp:
        cache_sums: dict[str, str] = {}
        if with_cache:
            try:
                cache_sums = write_cache_dir(Path(tmp) / "cache", entries)
            except ValueError as exc:
                raise InputError(f"{exc}: it cannot go into the bundle as JSON",
                                 cache.directory, field="cache_dir") from None
        result.cache_sha256 = cache_sums
        sums: dict[str, str] = {}
        partial = out.with_name(out.name + ".partial")
        try:
            _write_tar(partial, name, run_dir, Path(tmp) / "cache" if with_cache else None,
                       found, result, prompts_root, templates, sums, record, cfg, missing)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
        partial.replace(out)
    return result


def _write_tar(partial: Path, name: str, run_dir: Path, cache_copy: Path | None,
               found: Mapping[str, Path], result: ExportResult, prompts_root: Path,
               templates: Sequence[str], sums: dict[str, str], record: RunRecord,
               cfg: Mapping[str, Any], missing: Mapping[str, str]) -> None:
    """Write the archive (see the module docstring) to ``partial``."""
    with tarfile.open(partial, "w:gz") as tar:
        for p in _files(run_dir):
            arc = f"run/{p.relative_to(run_dir).as_posix()}"
            sums[arc] = file_sha256(p)
            _add_file(tar, p, f"{name}/{arc}")
        if cache_copy is not None:
            for p in _files(cache_copy):
                arc = f"cache/{p.relative_to(cache_copy).as_posix()}"
                sums[arc] = file_sha256(p)
                _add_file(tar, p, f"{name}/{arc}")
        for role, p in found.items():
            sums[result.inputs[role]] = file_sha256(p)
            _add_file(tar, p, f"{name}/{result.inputs[role]}")
        for rel in templates:
            result.templates.append(rel)
            sums[f"prompts/{rel}"] = file_sha256(prompts_root / rel)
            _add_file(tar, prompts_root / rel, f"{name}/prompts/{rel}")
        manifest = {"bundle": name, "run": str(run_dir), "task": record.task,
                    "created_at": cfg.get("created_at"), "cache_entries": result.entries,
                    "cache": {"format": FORMAT, "directory": "cache",
                              "sha256": result.cache_sha256} if cache_copy is not None
                    else None,
                    "inputs": result.inputs, "inputs_missing": missing,
                    "templates": result.templates, "sha256": sums,
                    "replay": result.replay,
                    "replay_note": "run `simjudge replay BUNDLE`: it checks every file "
                                   "against this manifest, runs `replay` with cache-only "
                                   "(never a judge call), and compares the result with "
                                   "run/"}
        _add_bytes(tar, json.dumps(manifest, indent=2, ensure_ascii=False).encode(),
                   f"{name}/MANIFEST.json")

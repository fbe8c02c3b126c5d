"""Check an unpacked reproducibility bundle before anything in it is used (``simjudge replay``).

A bundle (:mod:`judge.runs.export`) comes from someone else, so nothing in it is trusted until
it matches its ``MANIFEST.json``, and nothing in it may steer the replay outside the bundle:

* ``MANIFEST.json`` must be there and name the JSON cache (a bundle exported
  ``--without-cache`` would call the judges; a bundle without its manifest cannot be checked:
  both are refused, never replayed "as far as possible");
* every file the manifest lists exists with its sha256, every file present is listed (an added
  ``cache/cache.db`` pickle, an extra input…), no file is a symlink and no listed path leaves
  the bundle;
* each input file's sha256 also equals the one the bundled run's ``config.json`` recorded, so
  an input edited and re-listed in the manifest is still caught;
* the replay command is ``simjudge eval …`` naming no absolute path and no ``..``; its
  ``--out``, ``--cache-dir``, ``--cache-mode`` and ``--overwrite`` are replaced by the
  replay's own (:func:`replay_argv`).

The cache entries are then checked once more, each against its sha256, when the replay opens
the cache (:class:`judge.jsoncache.JsonCacheStore`), and the replay itself runs in
``cache-only`` mode, which never calls a judge (:class:`judge.errors.CacheEntryError`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from judge.errors import InputError
from judge.io import file_sha256
from judge.jsoncache import FORMAT, MANIFEST, is_json_cache
from judge.runs.export import without_flags

_REPLACED = ("--out", "--cache-dir", "--cache-mode")
_DROPPED = ("--overwrite", "--no-overwrite")
_SHOWN = 5
"""How many problems of one kind a message names."""


@dataclass(frozen=True)
class Bundle:
    """A checked bundle folder.

    Attributes:
        root: the bundle's folder (holding ``MANIFEST.json``), resolved.
        manifest: the parsed ``MANIFEST.json``.
    """

    root: Path
    manifest: Mapping[str, Any]

    @property
    def run_dir(self) -> Path:
        """The bundled run (``run/``)."""
        return self.root / "run"


def _inside(rel: str) -> bool:
    """True when ``rel`` is a relative POSIX path that stays inside its base."""
    p = PurePosixPath(rel)
    return bool(rel) and not p.is_absolute() and ".." not in p.parts and "\\" not in rel


def _some(paths: list[str]) -> str:
    more = f" and {len(paths) - _SHOWN} more" if len(paths) > _SHOWN else ""
    return ", ".join(paths[:_SHOWN]) + more


def read_manifest(root: Path) -> dict[str, Any]:
    """The parsed ``root/MANIFEST.json``, its fields' types checked.

    Raises:
        InputError: no folder, no manifest, not JSON, or a field of the wrong type
            (``sha256``: object of path → 64-hex; ``replay``: list of strings starting
            ``simjudge eval``; ``cache``: the JSON cache's format); a bundle exported without
            its cache.
    """
    path = root / MANIFEST
    if not root.is_dir():
        raise InputError(f"{root}: no such folder (unpack the bundle first, or give its "
                         ".tar.gz)")
    if not path.is_file():
        run = " (this is a run folder: simjudge export RUN B.tar.gz --with-cache makes its " \
            "bundle)" if (root / "summary.json").is_file() else ""
        raise InputError(f"not a simjudge bundle: no {MANIFEST}{run}. A bundle without its "
                         "manifest cannot be checked, so it is not replayed", root)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"not JSON: {exc}", path) from None
    if not isinstance(doc, dict):
        raise InputError("not a JSON object", path)
    sums = doc.get("sha256")
    if not (isinstance(sums, dict) and sums and all(
            isinstance(k, str) and isinstance(v, str) and len(v) == 64 for k, v in sums.items())):
        raise InputError("expected an object of file → sha256", path, field="sha256")
    replay = doc.get("replay")
    if not (isinstance(replay, list) and all(isinstance(t, str) for t in replay)
            and replay[:2] == ["simjudge", "eval"]):
        raise InputError("expected the command 'simjudge eval …' as a list of strings", path,
                         field="replay")
    cache = doc.get("cache")
    if cache is None:
        raise InputError("this bundle was exported --without-cache: replaying it would call "
                         "the judges again, so it is not replayed (export it --with-cache)",
                         path, field="cache")
    if not (isinstance(cache, dict) and cache.get("format") == FORMAT
            and cache.get("directory") == "cache" and isinstance(cache.get("sha256"), dict)):
        raise InputError(f"expected {{'format': '{FORMAT}', 'directory': 'cache', 'sha256': "
                         "{…}}", path, field="cache")
    return doc


def check_files(root: Path, manifest: Mapping[str, Any], skip: Path | None = None) -> None:
    """Every listed file present with its sha256; every present file listed; no symlink.

    Args:
        root: the bundle folder.
        manifest: its parsed manifest (:func:`read_manifest`).
        skip: a folder inside ``root`` that is not the bundle's (the replay's own output);
            ``root/replay`` (a former replay's default output) is skipped too. Nothing in
            either is read.

    Raises:
        InputError: naming up to five files per problem (changed, missing, not listed,
            symlinks, paths leaving the bundle).
    """
    sums: Mapping[str, str] = manifest["sha256"]
    outside = sorted(k for k in sums if not _inside(k) or k == MANIFEST)
    if outside:
        raise InputError(f"{MANIFEST} lists paths outside the bundle: {_some(outside)}", root,
                         field="sha256")
    present: list[str] = []
    links: list[str] = []
    skipped = [root / "replay", *([skip] if skip is not None else [])]
    for p in sorted(root.rglob("*")):
        if any(p == s or s in p.parents for s in skipped):
            continue
        rel = p.relative_to(root).as_posix()
        if p.is_symlink():
            links.append(rel)
        elif p.is_file() and rel != MANIFEST:
            present.append(rel)
    if links:
        raise InputError(f"the bundle holds symlinks, which a bundle never has: {_some(links)}",
                         root)
    extra = sorted(set(present) - set(sums))
    if extra:
        raise InputError(f"files not listed in {MANIFEST} (added after the export, e.g. a "
                         f"pickled cache): {_some(extra)}", root)
    missing = sorted(set(sums) - set(present))
    if missing:
        raise InputError(f"files listed in {MANIFEST} are missing: {_some(missing)}", root)
    changed = [k for k in sorted(sums) if file_sha256(root / k) != sums[k]]
    if changed:
        raise InputError(f"files whose sha256 differs from {MANIFEST} (edited after the "
                         f"export): {_some(changed)}", root)


def check_inputs(root: Path, manifest: Mapping[str, Any]) -> None:
    """Each bundled input file's sha256 equals the one the bundled run's ``config.json``
    recorded for its role.

    Raises:
        InputError: an input role the run did not record, or a differing sha256.
    """
    from judge.tasks.inputs import ROLES

    config = root / "run" / "config.json"
    try:
        cfg = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read the bundled run's config: {exc}", config) from None
    inputs = manifest.get("inputs") or {}
    if not isinstance(inputs, dict):
        raise InputError("expected an object of role → path", root / MANIFEST, field="inputs")
    for role, rel in sorted(inputs.items()):
        entry = cfg.get(role) if role in ROLES else None
        if not (isinstance(entry, dict) and isinstance(rel, str) and _inside(rel)):
            raise InputError(f"input {role!r} is not an input of the bundled run", root /
                             MANIFEST, field="inputs")
        if not (root / rel).exists():
            raise InputError(f"the input {rel} is not in the bundle", root / MANIFEST,
                             field="inputs")
        got = file_sha256(root / rel)  # a folder (BFCL results): its files' sums
        if entry.get("sha256") not in (None, got):
            raise InputError(f"the input {rel} differs from the one the run read (sha256 "
                             f"{got[:12]}…, the run's config.json: {str(entry['sha256'])[:12]}…)",
                             config, field=role)


def replay_argv(manifest: Mapping[str, Any], root: Path, out: Path) -> list[str]:
    """The bundle's ``eval`` arguments (without ``simjudge``), run from ``root``: its own
    ``--out``/``--cache-dir``/``--cache-mode``/``--overwrite`` dropped, then ``--cache-dir
    ROOT/cache --cache-mode cache-only --out OUT`` appended.

    Raises:
        InputError: a token (or a ``--flag=VALUE``'s value) that is an absolute path or holds
            ``..`` — the replay reads nothing outside the bundle.
    """
    out_args = without_flags(manifest["replay"][2:], _REPLACED, _DROPPED)
    for tok in out_args:
        for part in (tok, tok.partition("=")[2]):
            if part.startswith(("/", "~")) or ".." in PurePosixPath(part).parts:
                raise InputError(f"the replay command names {part!r}, outside the bundle: "
                                 "not replayed", root / MANIFEST, field="replay")
    return [*out_args, "--cache-dir", str(root / "cache"), "--cache-mode", "cache-only",
            "--out", str(out)]


def open_bundle(root: Path, out: Path) -> Bundle:
    """Read and check the bundle in ``root`` (module docstring); ``out`` is the replay's own
    folder, skipped when it lies inside ``root``.

    Raises:
        InputError: the first problem found (:func:`read_manifest`, :func:`check_files`,
            :func:`check_inputs`, :func:`replay_argv`).
    """
    root = root.resolve()
    manifest = read_manifest(root)
    check_files(root, manifest, out.resolve())
    if not is_json_cache(root / "cache"):
        raise InputError("the bundle's cache/ is not a JSON cache (no index.json): it is not "
                         "read (a diskcache's values are pickles)", root / "cache")
    check_inputs(root, manifest)
    replay_argv(manifest, root, out)
    return Bundle(root, manifest)

"""The leaderboard's models: which decoder each uses and how it spells function names.

:data:`MODELS` lists every model of BFCL's ``model_handler/handler_map.py`` (gorilla commit
``de8307b4``) with its decoder family (:data:`judge.tasks.bfcldecoders.FAMILIES`, one per
handler's ``decode_ast``) and whether its function names carry dots as ``_``
(``model_handler/constant.py`` ``UNDERSCORE_TO_DOT``, read by ``checker.py`` line 63).

``--bfcl-model NAME`` takes a model name as BFCL spells it (``meta-llama/Meta-Llama-3-8B-Instruct``
or the result folder's ``meta-llama_Meta-Llama-3-8B-Instruct``), or a family name for a model
the table does not know (its function names then keep their dots).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from judge.tasks.bfcldecoders import FAMILIES


@dataclass(frozen=True)
class BfclModel:
    """How BFCL decodes and names one model's output.

    Attributes:
        name: the model as BFCL's ``handler_map.py`` spells it (``meta-llama/…``).
        family: its decoder (a key of :data:`FAMILIES`).
        names: ``underscore`` when the model writes dotted function names with ``_`` (BFCL's
            ``UNDERSCORE_TO_DOT``), else ``exact``.
    """

    name: str
    family: str
    names: str = "exact"

    def decode(self, result: Any, language: str) -> Any:
        """The model's raw result decoded (see the module docstring)."""
        return FAMILIES[self.family](result, language)


_U = "underscore"
MODELS: dict[str, BfclModel] = {m.name: m for m in [
    BfclModel("gorilla-openfunctions-v0", "gorilla"),
    BfclModel("gorilla-openfunctions-v2", "gorilla"),
    *[BfclModel(f"{g}-FC", "fc-json", _U) for g in (
        "gpt-4o-2024-08-06", "gpt-4o-2024-05-13", "gpt-4o-mini-2024-07-18",
        "gpt-4-turbo-2024-04-09", "gpt-4-1106-preview", "gpt-4-0125-preview", "gpt-4-0613",
        "gpt-3.5-turbo-0125", "claude-3-opus-20240229", "claude-3-sonnet-20240229",
        "claude-3-haiku-20240307", "claude-3-5-sonnet-20240620")],
    *[BfclModel(g, "python") for g in (
        "gpt-4o-2024-08-06", "gpt-4o-2024-05-13", "gpt-4o-mini-2024-07-18",
        "gpt-4-turbo-2024-04-09", "gpt-4-1106-preview", "gpt-4-0125-preview", "gpt-4-0613",
        "gpt-3.5-turbo-0125")],
    *[BfclModel(g, "claude-prompt") for g in (
        "claude-2.1", "claude-instant-1.2", "claude-3-opus-20240229",
        "claude-3-sonnet-20240229", "claude-3-haiku-20240307", "claude-3-5-sonnet-20240620")],
    *[BfclModel(g, "mistral-prompt") for g in (
        "open-mistral-nemo-2407", "open-mixtral-8x22b", "open-mixtral-8x7b",
        "mistral-large-2407", "mistral-medium-2312", "mistral-small-2402",
        "mistral-tiny-2312")],
    *[BfclModel(f"{g}-FC-{mode}", "fc-json", _U) for g in (
        "open-mistral-nemo-2407", "open-mixtral-8x22b", "mistral-large-2407",
        "mistral-small-2402") for mode in ("Any", "Auto")],
    BfclModel("firefunction-v1-FC", "fc-json"),
    BfclModel("firefunction-v2-FC", "fc-json"),
    BfclModel("Nexusflow-Raven-v2", "nexus"),
    *[BfclModel(g, "gemini", _U) for g in (
        "gemini-1.0-pro", "gemini-1.5-pro-preview-0409", "gemini-1.5-pro-preview-0514",
        "gemini-1.5-flash-preview-0514")],
    BfclModel("google/gemma-7b-it", "gemma"),
    BfclModel("deepseek-ai/deepseek-coder-6.7b-instruct", "deepseek"),
    *[BfclModel(f"meetkai/functionary-{g}-FC", "fc-json", _U) for g in (
        "small-v3.1", "small-v3.2", "medium-v3.1")],
    BfclModel("databricks-dbrx-instruct", "databricks"),
    *[BfclModel(f"NousResearch/Hermes-2-{g}", "hermes", _U) for g in (
        "Pro-Llama-3-8B", "Pro-Llama-3-70B", "Pro-Mistral-7B", "Theta-Llama-3-8B",
        "Theta-Llama-3-70B")],
    BfclModel("meta-llama/Meta-Llama-3-8B-Instruct", "llama"),
    BfclModel("meta-llama/Meta-Llama-3-70B-Instruct", "llama"),
    BfclModel("command-r-plus-FC", "cohere-fc", _U),
    BfclModel("command-r-plus", "bracketed"),
    BfclModel("command-r-plus-FC-optimized", "cohere-fc", _U),
    BfclModel("command-r-plus-optimized", "bracketed"),
    BfclModel("snowflake/arctic", "nvidia"),
    BfclModel("ibm-granite/granite-20b-functioncalling", "granite", _U),
    BfclModel("nvidia/nemotron-4-340b-instruct", "nvidia"),
    BfclModel("THUDM/glm-4-9b-chat", "glm", _U),
    BfclModel("yi-large-fc", "fc-json", _U),
    BfclModel("Salesforce/xLAM-1b-fc-r", "xlam"),
    BfclModel("Salesforce/xLAM-7b-fc-r", "xlam"),
]}
"""Every model of BFCL's ``handler_map.py`` (gorilla ``de8307b4``) by its name there."""
_FOLDERS = {k.replace("/", "_"): m for k, m in MODELS.items()}
"""The same models by their result folders' names (``/`` written ``_``)."""


def bfcl_model(name: str) -> BfclModel:
    """The model (or decoder family) named ``name``: a key of :data:`MODELS`, the same name
    with ``/`` written ``_`` (BFCL's result folders), or a family of :data:`FAMILIES`.

    Raises:
        KeyError: an unknown name (the message lists the families).

    Examples:
        >>> bfcl_model("meta-llama_Meta-Llama-3-8B-Instruct").family
        'llama'
        >>> bfcl_model("gpt-4o-2024-05-13-FC").names, bfcl_model("hermes").names
        ('underscore', 'exact')
    """
    if name in MODELS:
        return MODELS[name]
    if name in _FOLDERS:
        return _FOLDERS[name]
    if name in FAMILIES:
        # a model BFCL does not know: "generic" accepts dotted names either way
        return BfclModel(name, name, "either" if name == "generic" else "exact")
    raise KeyError(f"unknown BFCL model {name!r}: give a model of BFCL's handler_map (e.g. "
                   f"gpt-4o-2024-05-13-FC) or a decoder family ({', '.join(FAMILIES)})")

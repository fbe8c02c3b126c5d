"""BFCL model handlers' ``decode_ast``, family by family: a model's raw result turned into a
list of calls ``[{name: {param: value}}]`` before the AST checker runs.

Each decoder reimplements the behaviour of one handler of the leaderboard's
``model_handler/*_handler.py`` at gorilla commit ``de8307b4`` (Apache-2.0; nothing copied);
:mod:`judge.tasks.bfclmodels` says which model uses which. A decoder raises
:class:`~judge.tasks.fcformats.Unparseable` where BFCL's handler raises (the item fails; a
relevance item passes); it may also return a value that is not a list of calls (a string,
``{}``, None), which BFCL's format check refuses (and a relevance item passes).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from judge.tasks.bfclpython import decode_calls
from judge.tasks.fcformats import Unparseable

Decoder = Callable[[Any, str], Any]
"""``(raw result, language) -> decoded`` with language ``python``, ``java`` or ``javascript``."""


def prompt_calls(text: Any, language: str) -> Any:
    """BFCL's ``ast_parse``: Python call lists (:func:`judge.tasks.bfclpython.decode_calls`), or
    Java/JavaScript calls (:mod:`judge.tasks.bfclsource`) read from the text between its first
    and last character.

    Raises:
        Unparseable: see those decoders; a result that is not text.
    """
    if not isinstance(text, str):
        raise Unparseable(f"expected call text, got {type(text).__name__}")
    if language == "python":
        return decode_calls(text)
    from judge.tasks.bfclsource import java_calls, javascript_calls

    return java_calls(text) if language == "java" else javascript_calls(text)


def _bracketed(text: str) -> str:
    if not text.startswith("["):
        text = "[" + text
    if not text.endswith("]"):
        text = text + "]"
    return text


def _text(result: Any) -> str:
    if not isinstance(result, str):
        raise Unparseable(f"expected text, got {type(result).__name__}")
    return result


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise Unparseable(f"not JSON: {exc}") from None


def decode_fc_json(result: Any, language: str) -> Any:
    """FC models (``gpt_handler.py``, ``claude_fc_handler.py``, ``mistral_handler.py`` FC,
    ``yi_handler.py``, and the handlers built on OpenAI's: Fireworks, Functionary): a list of
    ``{name: "<JSON arguments>"}``; a text answer is not a list and fails."""
    if not isinstance(result, list):
        raise Unparseable(f"no function call: the model answered {type(result).__name__}")
    out = []
    for entry in result:
        if not isinstance(entry, dict) or not entry:
            raise Unparseable("each call must be {name: JSON arguments}")
        name = next(iter(entry))
        args = entry[name]
        if not isinstance(args, (str, bytes, bytearray)):
            raise Unparseable(f"arguments of {name!r} are not JSON text")
        out.append({name: _json(args if isinstance(args, str) else args.decode())})
    return out


def decode_gemini(result: Any, language: str) -> Any:
    """``gemini_handler.py``: as :func:`decode_fc_json`, a lone call not in a list included."""
    return decode_fc_json(result if isinstance(result, list) else [result], language)


def decode_cohere_fc(result: Any, language: str) -> Any:
    """``cohere_handler.py`` FC: a list of ``{name: {arguments}}`` taken as they are."""
    if not isinstance(result, list):
        raise Unparseable(f"no function call: the model answered {type(result).__name__}")
    out = []
    for entry in result:
        if not isinstance(entry, dict) or not entry:
            raise Unparseable("each call must be {name: arguments}")
        name = next(iter(entry))
        out.append({name: entry[name]})
    return out


def decode_plain(result: Any, language: str) -> Any:
    """``gpt_handler.py`` prompt models: the text parsed as it is (no brackets added)."""
    return prompt_calls(_text(result), language)


def decode_claude_prompt(result: Any, language: str) -> Any:
    """``claude_prompt_handler.py`` (also ``oss_handler.py``): one leading space dropped, the
    text wrapped in ``[…]`` where a bracket is missing."""
    text = _text(result)
    if not text:
        raise Unparseable("empty answer")
    if text[0] == " ":
        text = text[1:]
    return prompt_calls(_bracketed(text), language)


def decode_bracketed(result: Any, language: str) -> Any:
    """``cohere_handler.py`` prompt models: wrapped in ``[…]`` where a bracket is missing."""
    return prompt_calls(_bracketed(_text(result)), language)


def decode_llama(result: Any, language: str) -> Any:
    """``llama_handler.py``: newlines removed, wrapped in ``[…]`` where a bracket is missing
    (so an answer whose closing ``]`` is missing still decodes)."""
    return prompt_calls(_bracketed(_text(result).replace("\n", "")), language)


def decode_mistral_prompt(result: Any, language: str) -> Any:
    """``mistral_handler.py`` prompt models: Markdown's ``\\_`` read as ``_``, then wrapped."""
    return prompt_calls(_bracketed(_text(result).replace("\\_", "_")), language)


def decode_gorilla(result: Any, language: str) -> Any:
    """``gorilla_handler.py``: the calls wrapped in ``[…]`` always."""
    return prompt_calls("[" + _text(result) + "]", language)


def decode_nexus(result: Any, language: str) -> Any:
    """``nexus_handler.py``: ``f(a=1); g(b=2);`` — the last ``;`` dropped, the others read as
    commas, wrapped in ``[…]``; a text naming ``out_of_domain`` decodes to ``"irrelevant"``
    (not a list of calls) once it has parsed."""
    text = _text(result)
    if text.endswith(";"):
        text = text[:-1]
    text = text.replace(";", ",")
    decoded = prompt_calls("[" + text + "]", language)
    return "irrelevant" if "out_of_domain" in text else decoded


def decode_nvidia(result: Any, language: str) -> Any:
    """``nvidia_handler.py`` (also ``arctic_handler.py``): newlines removed, wrapped in
    ``[ … ]``; a list of quoted calls (``['f(a=1)', 'g()']``) unquoted."""
    text = _text(result).replace("\n", "")
    if not text.startswith("["):
        text = "[ " + text
    if not text.endswith("]"):
        text = text + " ]"
    if text.startswith("['"):
        text = text.replace("['", "[").replace("', '", ", ").replace("','", ", ")
    if text.endswith("']"):
        text = text.replace("']", "]")
    return prompt_calls(text, language)


def decode_databricks(result: Any, language: str) -> Any:
    """``databricks_handler.py``: every ``'…'`` unquoted and ``"\\n    "`` removed, wrapped in
    ``[…]``; if that fails to decode, the raw text is decoded instead."""
    raw = _text(result)
    text = re.sub(r"'([^']*)'", r"\1", raw).replace("\n    ", "")
    text = _bracketed(text)
    if text.startswith("['"):
        text = text.replace("['", "[")
    try:
        return prompt_calls(text, language)
    except Unparseable:
        return prompt_calls(raw, language)


def decode_deepseek(result: Any, language: str) -> Any:
    """``deepseek_handler.py``: the first ``[…]`` (no ``]`` inside) of the first fenced code
    block."""
    parts = _text(result).split("```")
    if len(parts) < 2:
        raise Unparseable("no ``` code block")
    found = re.findall(r"\[[^\]]*\]", parts[1])
    if not found:
        raise Unparseable("no [...] in the code block")
    return prompt_calls(found[0], language)


def decode_gemma(result: Any, language: str) -> Any:
    """``gemma_handler.py``: from the first ``[`` to the last ``]``."""
    m = re.search(r"\[(.*)\]", _text(result), re.DOTALL)
    if m is None:
        raise Unparseable("no [...] in the answer")
    return prompt_calls("[" + m.group(1) + "]", language)


def decode_glm(result: Any, language: str) -> Any:
    """``glm_handler.py``: ``name\\n{JSON arguments}`` (the first two lines); a single line is
    kept as text (not a call)."""
    lines = _text(result).split("\n")
    if len(lines) == 1:
        return [lines[0]]
    return [{lines[0]: _json(lines[1])}]


def decode_granite(result: Any, language: str) -> Any:
    """``granite_handler.py``: ``<function_call> {"name", "arguments"}`` blocks; a block that is
    not JSON is kept as text, ``no_function`` as a text (neither is a call)."""
    out: list[Any] = []
    for block in (b.strip() for b in _text(result).split("<function_call>")):
        if not block:
            continue
        try:
            call = json.loads(block)
        except (ValueError, RecursionError):
            out.append(block)
            continue
        if not isinstance(call, dict):
            raise Unparseable("a function_call block is not a JSON object")
        name = call.get("name", "")
        if not isinstance(name, str):
            raise Unparseable("a function_call name is not a string")
        name = name.strip()
        if name == "no_function":
            out.append("No function is called")
            continue
        out.append({name: call.get("arguments", {})})
    return out


def decode_hermes(result: Any, language: str) -> Any:
    """``hermes_handler.py``: the line after each ``<tool_call>`` line, its ``'`` read as
    ``"``, parsed as ``{"name", "arguments"}``; for Java/JavaScript each argument value becomes
    Python's ``str()`` of it (``True``, ``['a']``)."""
    calls = []
    inside = False
    for line in _text(result).split("\n"):
        if line == "<tool_call>":
            inside = True
            continue
        if line == "</tool_call>":
            inside = False
            continue
        if inside:
            call = _json(line.replace("'", '"'))
            try:
                args = call["arguments"]
                if language != "python":
                    for k in args:
                        args[k] = _python_str(args[k])
                calls.append({call["name"]: args})
            except (KeyError, TypeError, AttributeError) as exc:
                raise Unparseable(f"tool_call without name/arguments: {exc!r}") from None
        inside = False
    return calls


def _python_str(value: Any) -> str:
    """Python's ``str()`` of a JSON value, as BFCL's handlers cast Java/JavaScript values."""
    return str(value)


def decode_xlam(result: Any, language: str) -> Any:
    """``xlam_handler.py``: JSON ``{"tool_calls": [{"name", "arguments"}]}`` (or the list
    alone); text that is not JSON is kept as it is (not a list of calls)."""
    text = _text(result)
    try:
        data = json.loads(text)
    except ValueError:
        return text
    except RecursionError:
        raise Unparseable("JSON nested too deeply") from None
    if isinstance(data, list):
        calls = data
    elif isinstance(data, dict):
        calls = data.get("tool_calls", [])
    else:
        raise Unparseable(f"JSON {type(data).__name__} is not tool calls")
    try:
        return [{c.get("name", ""): c.get("arguments", {})} for c in calls if isinstance(c, dict)]
    except TypeError as exc:  # tool_calls not a list, or an unhashable name
        raise Unparseable(f"tool_calls: {exc}") from None


def decode_generic(result: Any, language: str) -> Any:
    """simjudge's reading of a model BFCL does not know: a list of calls is FC style (JSON
    argument text, or argument objects as they are); text is a call list, bracketed where a
    bracket is missing."""
    if isinstance(result, list):
        return [{n: (_json(a) if isinstance(a, str) else a) for n, a in c.items()}
                if isinstance(c, dict) else c for c in result]
    return prompt_calls(_bracketed(_text(result).strip()), language)


FAMILIES: dict[str, Decoder] = {
    "generic": decode_generic,
    "fc-json": decode_fc_json, "gemini": decode_gemini, "cohere-fc": decode_cohere_fc,
    "python": decode_plain, "claude-prompt": decode_claude_prompt,
    "bracketed": decode_bracketed, "llama": decode_llama, "mistral-prompt": decode_mistral_prompt,
    "gorilla": decode_gorilla, "nexus": decode_nexus, "nvidia": decode_nvidia,
    "databricks": decode_databricks, "deepseek": decode_deepseek, "gemma": decode_gemma,
    "glm": decode_glm, "granite": decode_granite, "hermes": decode_hermes, "xlam": decode_xlam}
"""Decoder family name → decoder (``--bfcl-model`` accepts these names too)."""



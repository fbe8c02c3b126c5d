"""Java and JavaScript calls in prompt-style model output, read as BFCL's decoder reads them.

BFCL parses ``[Foo.bar(x = 1)]`` in its ``java`` and ``javascript`` categories with tree-sitter
(``model_handler/java_parser.py`` and ``js_parser.py`` at gorilla commit ``de8307b4``, with
``tree-sitter`` 0.21.3, ``tree-sitter-java`` 0.21.0 and ``tree-sitter-javascript`` 0.21.4).
The parsing is tree-sitter's (the optional ``bfcl`` extra: ``pip install "simjudge[bfcl]"``);
which nodes are read, and how, is reimplemented here from that behaviour:

* the text with its first and last character removed (the list brackets) is parsed; any
  ``ERROR`` node in the tree refuses it;
* Java: the first method invocation in the tree (depth first) is the call, named
  ``object.method``; its ``name = value`` arguments become parameters with the value's source
  text (string and char literals without their quotes; nested literals keep them; ``new T[]{…}``
  and ``new T(…)`` rebuilt from their parts); a bare identifier or class literal argument is a
  parameter without a name (``None``), which no schema has; other positional arguments are
  dropped. Text is sliced by byte offsets as BFCL does (so non-ASCII text before a value shifts
  it, as in the official decoder);
* JavaScript: the first call expression that is a statement of its own is the call; ``name =
  value`` arguments keep their source text, without the quotes of a quoted string; a bare
  identifier or ``true`` is a parameter without a name;
* a parameter given twice refuses the text; no call at all decodes to ``{}`` (Java) or None
  (JavaScript), which is not a list of calls.
"""

from __future__ import annotations

import functools
from typing import Any

from judge.tasks.fcformats import Unparseable

INSTALL_HINT = 'pip install "simjudge[bfcl]" (tree-sitter and its Java/JavaScript grammars)'


@functools.cache
def _parser(language: str) -> Any:
    """A tree-sitter parser for ``java`` or ``javascript`` (tree-sitter 0.21 and later APIs).

    Raises:
        ImportError: tree-sitter or the grammar is not installed (:data:`INSTALL_HINT`).
    """
    import importlib

    try:
        ts: Any = importlib.import_module("tree_sitter")
        grammar: Any = importlib.import_module(
            "tree_sitter_java" if language == "java" else "tree_sitter_javascript")
    except ImportError as exc:
        raise ImportError(f"BFCL {language} items need tree-sitter: {INSTALL_HINT} "
                          f"({exc})") from None
    if hasattr(ts.Parser, "set_language"):  # tree-sitter 0.21: the API BFCL used
        parser = ts.Parser()
        parser.set_language(ts.Language(grammar.language(), language))
        return parser
    return ts.Parser(ts.Language(grammar.language()))


def _has_error(root: Any) -> bool:
    """Whether the tree's S-expression names an ``ERROR`` node (BFCL tests ``"ERROR" in
    root_node.sexp()``; missing tokens the parser inserted do not count)."""
    sexp = root.sexp() if hasattr(root, "sexp") else str(root)
    return "ERROR" in sexp


def _parse(text: str, language: str) -> Any:
    tree = _parser(language).parse(text.encode("utf8"))
    if _has_error(tree.root_node):
        raise Unparseable(f"not {language}: tree-sitter found a syntax error")
    return tree.root_node


def _single(args: dict[Any, Any], key: Any, value: Any) -> None:
    if key in args:
        raise Unparseable(f"parameter {key!r} given twice")
    args[key] = value


def java_calls(text: str) -> Any:
    """BFCL's ``parse_java_function_call`` of ``text[1:-1]``.

    Returns:
        ``[{name: {param: source text}}]``, or ``{}`` when the text holds no method call.

    Raises:
        Unparseable: a syntax error, a parameter given twice, an array creation without an
            initialiser (BFCL's decoder fails on those too).
        ImportError: tree-sitter is not installed.
    """
    source = text[1:-1]
    root = _parse(source, "java")

    def get(node: Any) -> str:
        return source[node.start_byte:node.end_byte]  # byte offsets on a str, as BFCL

    def value_text(node: Any, nested: bool = False) -> str:
        kind = node.type
        if kind in ("string_literal", "character_literal"):
            return get(node) if nested else get(node)[1:-1]
        if kind in ("identifier", "class_literal", "type_identifier", "method_invocation"):
            return get(node)
        if kind == "array_creation_expression":
            type_node, init = node.child_by_field_name("type"), node.child_by_field_name("value")
            if type_node is None or init is None:
                raise Unparseable("array creation without an initialiser")
            return f"new {value_text(type_node, True)}[]{value_text(init, True)}"
        if kind == "object_creation_expression":
            type_node = node.child_by_field_name("type")
            args = node.child_by_field_name("arguments")
            type_text = value_text(type_node, True)
            if args is None:
                return f"new {type_text}()"
            parts = [value_text(c, True) for c in args.children if c.type not in (",", "(", ")")]
            return f"new {type_text}({', '.join(parts)})"
        if node.child_count > 0:
            return "".join(value_text(c, True) for c in node.children)
        return get(node)

    def find(node: Any) -> Any:
        if node.type == "method_invocation":
            name = get(node.child_by_field_name("name"))
            obj = node.child_by_field_name("object")
            args_node = node.child_by_field_name("arguments")
            if args_node is None:
                return None
            args: dict[Any, Any] = {}
            for child in args_node.children:
                if child.type == "assignment_expression":
                    _single(args, get(child.children[0]), value_text(child.children[2]))
                elif child.type in ("identifier", "class_literal"):
                    _single(args, None, value_text(child))
            return [{f"{get(obj)}.{name}" if obj is not None else name: args}]
        for child in node.children:
            found = find(child)
            if found:
                return found
        return None

    return find(root) or {}


def javascript_calls(text: str) -> Any:
    """BFCL's ``parse_javascript_function_call`` of ``text[1:-1]``.

    Returns:
        ``[{name: {param: source text}}]``, or None when no statement is a call.

    Raises:
        Unparseable: a syntax error or a parameter given twice.
        ImportError: tree-sitter is not installed.
    """
    root = _parse(text[1:-1], "javascript")
    if root.type != "program":
        return None
    for statement in root.children:
        if statement.type != "expression_statement":
            continue
        for node in statement.children:
            if node.type != "call_expression":
                continue
            name = node.children[0].text.decode("utf8")
            args: dict[Any, Any] = {}
            for child in node.children[1].children:
                if child.type == "assignment_expression":
                    value = child.children[2].text.decode("utf8")
                    if len(value) >= 1 and ((value[0] == value[-1] == '"')
                                            or (value[0] == value[-1] == "'")):
                        value = value[1:-1]
                    _single(args, child.children[0].text.decode("utf8"), value)
                elif child.type in ("identifier", "true"):
                    _single(args, None, child.text.decode("utf8"))
            return [{name: args}]
    return None

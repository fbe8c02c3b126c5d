"""Text made safe to print on a terminal.

A judge server's error body, a proxy's HTML page or a model's answer can hold terminal control
sequences: ``ESC ] 0 ; title BEL`` retitles the window, ``ESC [ 31 m`` recolours everything
after it, ``ESC [ 2 J`` clears the screen, an OSC 8 sequence plants a hidden link, and a bidi
override (U+202E) makes text read backwards. simjudge prints such text in its error and warning
lines (``judge X stopped early: HTTP 401 …: <the server's message>``), so every line it prints
passes through :func:`terminal_safe` first: the CLI's consoles are :class:`SafeConsole` (every
string and text they render, table cells included), its one-line errors and warnings and the
Batch API's progress lines call it directly.

What is replaced, each character by its visible escape (``\\x1b``, ``\\x07``, ``\\u202e``):

- the C0 controls U+0000–U+001F except tab and newline (ESC, BEL, carriage return, backspace…),
  and DEL U+007F;
- the C1 controls U+0080–U+009F (CSI U+009B and OSC U+009D start sequences by themselves);
- the bidirectional formatting characters: embeddings and overrides U+202A–U+202E, isolates
  U+2066–U+2069, and the marks U+200E, U+200F, U+061C.

An escape sequence thus becomes plain text (``\\x1b[31m``): nothing of it reaches the terminal
as a command, and the reader sees that the server sent one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _visible(m: re.Match[str]) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def is_terminal_safe(text: str) -> bool:
    """True when ``text`` holds no character :func:`terminal_safe` would replace."""
    return _UNSAFE.search(text) is None


def terminal_safe(text: str) -> str:
    """``text`` with every control and bidi formatting character replaced by its visible
    escape (see the module docstring); tab and newline are kept. Text without any is returned
    as it is.

    Examples:
        >>> terminal_safe("bad key \\x1b]0;pwned\\x07\\x1b[31m!")
        'bad key \\\\x1b]0;pwned\\\\x07\\\\x1b[31m!'
    """
    if _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_visible, text)


class SafeConsole(Console):
    """A rich console that prints no terminal control character it was given: every string and
    :class:`~rich.text.Text` it renders (table cells included) passes through
    :func:`terminal_safe` before layout. Its own styling and cursor movement (control
    segments) are untouched."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        """As :meth:`rich.console.Console.render_str`, on the terminal-safe ``text``."""
        return super().render_str(terminal_safe(text), **kwargs)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None,
               ) -> Iterable[Segment]:
        """As :meth:`rich.console.Console.render`; a :class:`~rich.text.Text` holding a control
        character is rendered as its terminal-safe plain text in its base style."""
        if isinstance(renderable, Text) and not is_terminal_safe(renderable.plain):
            renderable = Text(terminal_safe(renderable.plain), style=renderable.style,
                              justify=renderable.justify, overflow=renderable.overflow,
                              no_wrap=renderable.no_wrap, end=renderable.end)
        return super().render(renderable, options)

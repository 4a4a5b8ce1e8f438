"""Reading the window back: what the widgets show and what the user was told.

Snapshots (``citeview screenshot --json``) and tests check the window through this module, never
through attributes kept for them: :func:`view_state` reads the widgets (not the core), and
:class:`MessageLog` records what went through the message bridge.
"""

from __future__ import annotations

from types import TracebackType

from citeview.gui.message import Level, Message, bridge


class MessageLog:
    """Every message told through :mod:`citeview.gui.message` while it is open, in order."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        bridge().shown.connect(self._record)

    def _record(self, message: Message) -> None:
        self.messages.append(message)

    @property
    def errors(self) -> list[str]:
        return [m.text for m in self.messages if m.level is Level.ERROR]

    def last_error(self) -> str | None:
        errors = self.errors
        return errors[-1] if errors else None

    def close(self) -> None:
        """Stop recording."""
        bridge().shown.disconnect(self._record)

    def __enter__(self) -> MessageLog:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

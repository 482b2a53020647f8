"""The style the peers' adapters implement. They render the messages a peer sends with the
suite's own convention, lcb_conformance.adapters.rendering.render_messages."""

from __future__ import annotations

STYLE = "generic"


def check_style(style: object, styles: tuple[str, ...]) -> None:
    if style not in styles:
        raise ValueError(f"style must be one of {styles}; got {style!r}")

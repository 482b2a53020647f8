"""Decoding a genlm.control generation context into text."""

from __future__ import annotations

from collections.abc import Iterable


def decode_context(context: str | bytes | Iterable[bytes | int | str] | None) -> str:
    """Decode a genlm.control context (str, bytes, or a list/tuple of byte tokens, int byte ids
    or str pieces) into text. Empty or None gives "". Bytes are joined first and decoded once,
    so a multi-byte character split across tokens survives; invalid UTF-8 is dropped
    (errors="ignore"). Any other type (even a falsy one: 0, False, {}), or an int outside
    0..255, raises naming the culprit."""
    if context is None:
        return ""
    if isinstance(context, str):
        return context
    if isinstance(context, bytes | bytearray):
        return bytes(context).decode("utf-8", errors="ignore")
    if not isinstance(context, list | tuple):
        raise TypeError(
            f"context must be str, bytes, or a list/tuple of tokens; got {type(context).__name__}"
        )
    return b"".join(_token_bytes(i, token) for i, token in enumerate(context)).decode(
        "utf-8", errors="ignore"
    )


def _token_bytes(position: int, token: object) -> bytes:
    if isinstance(token, bool):  # a bool is an int to Python, never a byte id to a caller
        raise TypeError(f"context[{position}] is a bool, not a byte id")
    if isinstance(token, int):
        if not 0 <= token <= 255:
            raise ValueError(f"context[{position}] = {token} is not a byte id (0..255)")
        return bytes((token,))
    if isinstance(token, bytes | bytearray):
        return bytes(token)
    if isinstance(token, str):
        return token.encode("utf-8", errors="ignore")
    raise TypeError(f"context[{position}] must be bytes, int or str; got {type(token).__name__}")

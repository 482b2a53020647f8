"""extract_code_prefix for a stream: the answer after each chunk, at a cost per chunk.

    extractor = PrefixExtractor("generic")
    for chunk in stream:
        prefix = extractor.feed(chunk)  # == extract_code_prefix(text so far, "generic")

Calling extract_code_prefix on the whole text after every chunk costs O(text) per step,
O(n²) over a stream. PrefixExtractor keeps just enough state to answer from the new text:

- the last 7 characters fed, so a "```", "<think>" or "</think>" split across chunks is
  still seen (a marker that ends inside the new chunk starts at most 7 characters back);
- whether a <think> is open in the answer (then the answer is "" until the next </think>);
- the parity of fence lines in the answer, and whether the unfinished line is one;
- while a block is open, the code after its fence line (the answer itself).

A </think> resets all of it: the answer starts again after it.

Cost of feed(chunk) for the fence styles: O(len(chunk)) scanning, plus building the
returned string, which is the open block's code so far (O(len(code)); any API returning the
prefix as a str pays that). style="genericbase" answers with the whole stripped answer, so
each step there is inherently O(len(answer)); the fence styles are the fast path.
"""

from __future__ import annotations

from .extraction import FENCE, THINK_CLOSE, THINK_OPEN
from .prompts import _check_style

# A marker ending in the new chunk starts at most this many characters before it.
_CARRY = max(len(FENCE), len(THINK_OPEN), len(THINK_CLOSE)) - 1


class PrefixExtractor:
    """feed(chunk) -> extract_code_prefix(everything fed so far, style)."""

    def __init__(self, style: str = "generic") -> None:
        _check_style(style)
        self.style = style
        self._carry = ""  # the last _CARRY characters fed
        self._prefix = ""  # the answer after the last feed
        self._reset_answer()

    @property
    def prefix(self) -> str:
        """The current answer: what the last feed returned ("" before any)."""
        return self._prefix

    def feed(self, chunk: str) -> str:
        if not isinstance(chunk, str):
            raise TypeError(f"chunk must be str; got {type(chunk).__name__}")
        if not chunk:
            return self._prefix
        window = self._carry + chunk
        new = len(self._carry)  # window[new:] is the chunk
        self._carry = window[-_CARRY:]

        # The answer starts after the last </think>. A marker that ends in the chunk has its
        # last character there: no ">", no new <think> or </think>. Being 8 characters long,
        # any </think> in the window ends inside the chunk, so it is new.
        start = 0
        if ">" in chunk:
            cut = window.rfind(THINK_CLOSE)
            if cut != -1:
                start = cut + len(THINK_CLOSE)
                self._reset_answer()
            if not self._thinking:
                begin = max(start, new - len(THINK_OPEN) + 1)
                self._thinking = window.find(THINK_OPEN, begin) != -1
        if self._thinking:  # nothing is the answer until the next </think>
            self._code = None
            self._answer = ""
            self._prefix = ""
        elif self.style == "genericbase":
            self._answer = window[start:] if start else self._answer + chunk
            self._prefix = self._answer.strip()
        else:
            # Only a new ``` (its last ` is in the chunk) or the end of a fence line changes
            # the fence state; any other chunk is more code in an open block, or nothing.
            if "`" in chunk or (self._on_fence_line and "\n" in chunk):
                self._scan_fences(window, new, start)
            elif self._code is not None:
                self._code += chunk
            self._prefix = "" if self._code is None else self._code
        return self._prefix

    def _reset_answer(self) -> None:
        self._thinking = False  # a <think> is open in the answer
        self._odd = False  # the answer has an odd number of fence lines
        self._on_fence_line = False  # the answer's unfinished last line contains ```
        self._code: str | None = None  # text after the last fence line, while a block is open
        self._answer = ""  # genericbase only: the answer so far

    def _scan_fences(self, window: str, new: int, start: int) -> None:
        """Update the fence state with window[max(new, start):], the new part of the answer.
        The loop runs once per fence line; the scanning is str.find's."""
        first_new = max(new, start)  # a "\n" before this was counted already
        pos = max(new - (len(FENCE) - 1), start)  # a new ``` may begin here, in the carry
        code_start = None  # where the open block's code begins, if it begins in this chunk
        while True:
            if not self._on_fence_line:
                fence = window.find(FENCE, pos)
                if fence == -1:
                    break
                self._on_fence_line = True
                self._odd = not self._odd
                self._code = code_start = None
                pos = fence + len(FENCE)
            end = window.find("\n", max(pos, first_new))
            if end == -1:
                break
            self._on_fence_line = False
            pos = end + 1
            if self._odd:
                code_start = pos
        if code_start is not None:
            self._code = window[code_start:]
        elif self._code is not None:  # no fence line in the chunk: it is all code
            self._code += window[first_new:]

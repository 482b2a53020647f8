"""The implementation under test: any importable module with (some of) lcb_prompts' API.

Chosen with ``--impl MODULE``. A function the module does not define is reported as not
provided (its tests skip with that reason), never as a failure.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType

API = ("format_lcb_prompt", "extract_code", "extract_code_prefix", "decode_context")
REFERENCE = "lcb_prompts"


class NotProvided(LookupError):
    pass


@dataclass(frozen=True)
class Implementation:
    name: str
    module: ModuleType

    def provides(self, function: str) -> bool:
        return callable(getattr(self.module, function, None))

    def __getattr__(self, function: str):
        if function not in API:
            raise AttributeError(function)
        found = getattr(self.module, function, None)
        if not callable(found):
            raise NotProvided(f"{self.name} does not provide {function}")
        return found


def load(name: str = REFERENCE) -> Implementation:
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        raise ImportError(f"--impl {name}: cannot import it ({error})") from error
    if not any(callable(getattr(module, function, None)) for function in API):
        raise ImportError(f"--impl {name}: provides none of {', '.join(API)}")
    return Implementation(name, module)

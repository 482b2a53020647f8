"""syrupy glue: each golden is one raw file, read as bytes, never rewritten by a test.

syrupy's Amber format and its text mode normalise newlines, which would hide exactly the
\\r\\n and trailing-whitespace drift this suite exists to catch; this extension compares
bytes and renders a mismatch with :func:`lcb_conformance.common.showdiff.report`.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from lcb_conformance.common import showdiff
from lcb_conformance.suite import families, goldens

NEVER_WRITTEN = (
    f"tests never write goldens; regenerate them from upstream with `{goldens.REGEN_COMMAND}`"
)


class GoldenExtension(SingleFileSnapshotExtension):
    """Snapshots stored at conformance/goldens/<family>/<group>/<case>.txt (or .json)."""

    _write_mode = WriteMode.BINARY
    file_extension = goldens.SUFFIX.lstrip(".")
    golden_dir = goldens.GOLDENS_DIR

    def serialize(self, data, **kwargs) -> bytes:
        if not isinstance(data, str):
            raise TypeError(f"a golden compares str output; got {type(data).__name__}")
        return data.encode("utf-8", errors="surrogatepass")

    @classmethod
    def dirname(cls, *, test_location) -> str:
        return str(cls.golden_dir)

    @classmethod
    def discovery_dirname(cls, *, test_location) -> str:
        return str(cls.golden_dir)

    @classmethod
    def get_snapshot_name(cls, *, test_location, index=0) -> str:
        return str(index)

    def discover_snapshots(self, *, test_location, ignore_extensions=None):
        """None: which goldens no test read is test_no_orphan_goldens' business (it knows
        another transformers line's are not stale), so syrupy reports nothing unused and
        advises no --snapshot-update."""
        from syrupy.data import SnapshotCollections

        return SnapshotCollections()

    @classmethod
    def write_snapshot(cls, **kwargs) -> None:
        raise PermissionError(NEVER_WRITTEN)

    def diff_lines(self, serialized_data, snapshot_data) -> Iterator[str]:
        def text(data) -> str:
            return (
                data.decode("utf-8", errors="surrogatepass")
                if isinstance(data, bytes)
                else str(data)
            )

        label = self.__class__.__doc__ or "golden"
        if label.startswith(goldens.MESSAGES + "/"):  # a conversation: say what differs first
            yield from showdiff.messages_differences(text(serialized_data), text(snapshot_data))
        yield from showdiff.report(text(serialized_data), text(snapshot_data), label=label).split(
            "\n"
        )


@cache
def extension_for(family: str, group: str) -> type[GoldenExtension]:
    """The extension class whose snapshot folder is one family/group of goldens."""
    folder = goldens.GOLDENS_DIR / family / group if group else goldens.GOLDENS_DIR / family
    label = f"{family}/{group}" if group else family
    return type(
        f"Golden[{label}]",
        (GoldenExtension,),
        {
            "golden_dir": folder,
            "__doc__": label,
            "file_extension": families.suffix_of(family).lstrip("."),
        },
    )

"""Arrow arrays built from their buffers, not by ``pa.array``.

``pa.array`` (and ``pa.table`` of Python lists) asks whether its argument is a pandas object
before converting it, and to ask it imports pandas where pandas is installed: 170-190 ms and
48 MB, once per process, in a store that never uses pandas. A Cognee worker's first
``add_nodes`` of 2,000 nodes took 320-450 ms where its next took 90-110 (issue 43's first
batch); with pandas already imported, 86-94. The writes' columns are built here: a numpy
array or Python bytes as the values' buffer, a bitmap where a value is null. The reads take a
numeric column's values from its buffer (``arrow_numbers``), as ``to_numpy`` would import
pandas the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

#: The largest byte length of a ``string`` array's values (its offsets are int32); past it
#: the array is a ``large_string`` one (int64 offsets), which DuckDB reads alike.
_STRING_BYTES = 2**31 - 1


def int64s(values: Sequence[int | None] | np.ndarray) -> pa.Array:
    """An ``int64`` array of ``values`` (None: null)."""
    return _numbers(values, np.int64, pa.int64())


def int32s(values: Sequence[int | None] | np.ndarray) -> pa.Array:
    """An ``int32`` array of ``values`` (None: null)."""
    return _numbers(values, np.int32, pa.int32())


def float32s(values: np.ndarray) -> pa.Array:
    """A ``float`` array of a one-dimensional numpy array's values."""
    return _numbers(values, np.float32, pa.float32())


def strings(values: Sequence[str | None]) -> pa.Array:
    """A ``string`` array of ``values`` (None: null; ``large_string`` past 2 GiB of text)."""
    try:
        joined = "".join(values)  # type: ignore[arg-type]
    except TypeError:  # (a None among them)
        nulls = _nulls(values)
        if nulls == len(values):
            return pa.nulls(nulls, pa.string())
        present = [v or "" for v in values]
        return _string_array(present, "".join(present), _validity(values), nulls)
    return _string_array(values, joined, None, 0)  # type: ignore[arg-type]


def _string_array(
    present: Sequence[str], joined: str, valid: pa.Buffer | None, nulls: int
) -> pa.Array:
    """The array of ``present`` (``joined``: their text), ``valid`` saying which are null."""
    if joined.isascii():  # (a character a byte: the lengths are the strings')
        data = joined.encode("ascii")
        lengths: Sequence[int] = list(map(len, present))
    else:
        encoded = [v.encode() for v in present]
        data = b"".join(encoded)
        lengths = list(map(len, encoded))
    large = len(data) > _STRING_BYTES
    offsets = np.zeros(len(present) + 1, dtype=np.int64 if large else np.int32)
    np.cumsum(lengths, out=offsets[1:])
    kind = pa.large_string() if large else pa.string()
    buffers = [valid, pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(kind, len(present), buffers, null_count=nulls)


def string_lists(lists: Sequence[Sequence[str]]) -> pa.Array:
    """A ``list<string>`` array of ``lists`` (none null)."""
    offsets = np.zeros(len(lists) + 1, dtype=np.int32)
    np.cumsum(list(map(len, lists)), out=offsets[1:])
    items = strings([s for one in lists for s in one])
    return pa.ListArray.from_arrays(int32s(offsets), items)


def columns_table(columns: dict[str, pa.Array]) -> pa.Table:
    """A table of these named columns (``pa.table`` of a dict asks about pandas too)."""
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


#: Arrow types whose values ``arrow_numbers`` reads straight from the data buffer.
_BUFFER_DTYPES: dict[str, type] = {
    "int32": np.int32,
    "int64": np.int64,
    "float": np.float32,
    "double": np.float64,
}


def arrow_numbers(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A numeric Arrow array's values as numpy: without nulls, a read-only view of its buffer
    (``.astype`` where a writable copy or another type is wanted); otherwise (nulls, another
    type) through ``to_numpy``."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    dtype = _BUFFER_DTYPES.get(str(arr.type))
    if dtype is None or arr.null_count:
        return arr.to_numpy(zero_copy_only=False)
    if len(arr) == 0:  # its data buffer may be absent
        return np.zeros(0, dtype=dtype)
    data: Any = arr.buffers()[1]
    return np.frombuffer(data, dtype=dtype)[arr.offset : arr.offset + len(arr)]


def _numbers(values: Sequence[int | None] | np.ndarray, dtype: type, kind: pa.DataType) -> pa.Array:
    if isinstance(values, np.ndarray):
        data = np.ascontiguousarray(values, dtype=dtype)
        return pa.Array.from_buffers(kind, len(data), [None, pa.py_buffer(data)])
    n = len(values)
    try:
        data = np.array(values, dtype=dtype)  # (a None among them: TypeError)
    except TypeError:
        pass
    else:
        return pa.Array.from_buffers(kind, n, [None, pa.py_buffer(data)])
    nulls = _nulls(values)
    if nulls == n:
        return pa.nulls(n, kind)
    column = np.array(values, dtype=object)
    column[column == None] = 0  # noqa: E711 (numpy compares each value)
    data = column.astype(dtype)
    return pa.Array.from_buffers(kind, n, [_validity(values), pa.py_buffer(data)], null_count=nulls)


def _nulls(values: Sequence[object]) -> int:
    return values.count(None) if isinstance(values, list | tuple) else list(values).count(None)


def _validity(values: Sequence[object]) -> pa.Buffer:
    """The bitmap of which ``values`` are not None (Arrow's order: least significant first)."""
    present = np.fromiter((v is not None for v in values), dtype=bool, count=len(values))
    return pa.py_buffer(np.packbits(present, bitorder="little"))


__all__ = [
    "arrow_numbers",
    "columns_table",
    "float32s",
    "int32s",
    "int64s",
    "string_lists",
    "strings",
]

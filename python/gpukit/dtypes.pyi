from typing import Any, Tuple, Union

import numpy as np

class DataType:
    name: str
    short: str
    gk: int
    itemsize: int
    kind: str
    numpy_dtype: np.dtype
    bits_dtype: np.dtype
    dl_code: int
    is_float: bool
    def __init__(self, name: str, short: str, gk: int, itemsize: int, kind: str, numpy_dtype: np.dtype,
                 bits_dtype: np.dtype, dl_code: int) -> None: ...
    @property
    def is_numpy_native(self) -> bool: ...
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

DTypeLike = Union[DataType, str, np.dtype, type]

float32: DataType
float64: DataType
float16: DataType
bfloat16: DataType
float8_e4m3fn: DataType
float8_e5m2: DataType
int8: DataType
uint8: DataType
int32: DataType
int64: DataType
all_dtypes: Tuple[DataType, ...]

def dtype(x: Any) -> DataType: ...
def from_gk(value: int) -> DataType: ...
def from_numpy_dtype(nd: Any) -> DataType: ...
def from_string(s: str) -> DataType: ...
def result_type(a: DataType, b: DataType) -> DataType: ...

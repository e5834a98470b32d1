from typing import Any, Optional

from ._array import GPUArray
from .context import Context

def from_dlpack(obj: Any, ctx: Optional[Context] = ..., copy: Optional[bool] = ...) -> GPUArray: ...

from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

from .context import Context
from .stream import Graph, Stream

QOS: Dict[str, int]
TASK_STATES: Dict[int, str]

class TaskInfo:
    id: int
    name: str
    qos: str
    state: str
    result: int
    reason: str
    queued_ms: float
    run_ms: float
    gpu_ms: float
    memory_peak: int
    cancel_requested: bool
    deadline_missed: bool

class Task:
    id: int
    name: Optional[str]
    admission: Optional[Tuple[str, str]]
    def info(self) -> TaskInfo: ...
    @property
    def state(self) -> str: ...
    def wait(self, timeout: Optional[float] = ...) -> TaskInfo: ...
    def cancel(self) -> None: ...
    def release(self) -> None: ...
    def add_dependency(self, on: Union["Task", int]) -> None: ...

class Scheduler:
    def __init__(self, ctx: Optional[Context] = ..., workers: int = ..., max_queued: int = ..., memory: int = ...,
                 reserved_share: float = ..., besteffort_inflight: int = ..., besteffort_hold: bool = ...,
                 guaranteed_linger_ms: float = ..., burstable_inflight: int = ..., share_window_ms: float = ...,
                 keep_finished: int = ...) -> None: ...
    def submit(self, fn: Optional[Callable[[Stream], Any]] = ..., *, qos: str = ..., name: Optional[str] = ...,
               memory: int = ..., memory_limit: int = ..., share: float = ..., share_limit: float = ...,
               deps: Sequence[Union[Task, int]] = ..., deadline_ms: float = ..., hold: bool = ...,
               graph: Optional[Graph] = ...) -> Task: ...
    def wait_all(self, timeout: Optional[float] = ...) -> None: ...
    def cancel_requested(self) -> bool: ...
    def stats(self) -> Dict[str, Any]: ...
    def shutdown(self, cancel_pending: bool = ...) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> "Scheduler": ...
    def __exit__(self, *exc: Any) -> bool: ...

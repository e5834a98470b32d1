import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from .context import Context

Audio = Union[str, "os.PathLike[str]", bytes, np.ndarray]

class Word:
    word: str
    start: float
    end: float
    probability: float

class Segment:
    id: int
    seek: int
    start: float
    end: float
    text: str
    tokens: List[int]
    temperature: float
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float
    words: List[Word]
    def as_dict(self) -> Dict[str, Any]: ...

class Transcript:
    segments: List[Segment]
    text: str
    language: Optional[str]
    duration: float
    windows: int
    skipped: int
    sampled_tokens: int
    def write(self, fmt: str) -> str: ...
    def to_srt(self) -> str: ...
    def to_vtt(self) -> str: ...
    def to_json(self) -> str: ...
    def to_tsv(self) -> str: ...
    def to_txt(self) -> str: ...

class WhisperModel:
    folder: str
    config: Dict[str, Any]
    def close(self) -> None: ...
    def __enter__(self) -> "WhisperModel": ...
    def __exit__(self, *exc: Any) -> bool: ...
    @property
    def has_tokenizer(self) -> bool: ...
    def mel(self, audio: Audio, sample_rate: int = ...) -> np.ndarray: ...
    def transcribe(self, audio: Audio, *, sample_rate: int = ..., language: Optional[str] = ..., task: str = ...,
                   without_timestamps: bool = ..., max_tokens: int = ..., condition_on_previous_text: bool = ...,
                   initial_prompt: Union[str, Sequence[int], None] = ..., suppress_tokens: Optional[Sequence[int]] = ...,
                   no_speech_threshold: Union[float, bool, None] = ..., logprob_threshold: Union[float, bool, None] = ...,
                   compression_ratio_threshold: Union[float, bool, None] = ...,
                   temperature: Union[float, Sequence[float]] = ..., beam_size: Optional[int] = ..., best_of: Optional[int] = ...,
                   patience: Optional[float] = ..., length_penalty: Optional[float] = ..., seed: int = ...,
                   word_timestamps: bool = ..., progress: Optional[Callable[[float, float], Any]] = ...) -> Transcript: ...
    def transcribe_batch(self, audios: Sequence[Audio], *, sample_rate: int = ...,
                         progress: Optional[Callable[[float, float], Any]] = ..., **options: Any) -> List[Transcript]: ...

def load(folder: Union[str, "os.PathLike[str]"], ctx: Optional[Context] = ..., dtype: Optional[str] = ...,
         max_windows: int = ..., max_ctx: int = ..., max_beams: int = ..., progress: Optional[Callable[[int, int], Any]] = ...) -> WhisperModel: ...
def load_audio(path: Union[str, "os.PathLike[str]", bytes], sample_rate: Optional[int] = ...) -> np.ndarray: ...

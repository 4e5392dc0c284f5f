"""The exceptions of the samrt package: one class per status family of the C library.

Every call into libsamrt that returns a status other than SAMRT_OK raises a subclass of
:class:`Error` carrying the status and the library's own log lines for that call. The families
follow the exit codes of the ``samrt`` program (docs/errors.md): bad input (2), a failure while
running (3), not available in this build or on this machine (4).

Arguments that the package can check itself (an array's dtype or shape, a click outside the
frame) raise a plain :class:`ValueError` before any C code runs.
"""
from typing import Dict, Optional, Sequence, Type

# enum samrt_status of include/samrt.h, in its order
OK = 0
E_INVALID_ARG = 1
E_IO = 2
E_FORMAT = 3
E_FORBIDDEN = 4
E_KEYS = 5
E_MODEL_MISMATCH = 6
E_UNSUPPORTED = 7
E_ARENA_TOO_SMALL = 8
E_NO_DEVICE = 9
E_CUDA = 10
E_HOST_MEMORY = 11
E_BAD_STATE = 12
E_NOT_IMPLEMENTED = 13
E_NUMERIC = 14


class Error(Exception):
    """A samrt failure.

    Attributes:
        status: the ``enum samrt_status`` value (an int, see docs/errors.md).
        status_name: the library's short name for it, e.g. ``"arena too small"``.
        messages: the library's error lines logged during the failing call (may be empty).
    """

    def __init__(self, message: str, status: int = E_BAD_STATE, status_name: str = "",
                 messages: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.status_name = status_name
        self.messages = list(messages)


class InputError(Error):
    """The input is wrong: an argument, a file, a checkpoint (the samrt program's exit 2)."""


class InvalidArgumentError(InputError, ValueError):
    """SAMRT_E_INVALID_ARG: a parameter is out of range or missing."""


class FileError(InputError, OSError):
    """SAMRT_E_IO: a file could not be opened, read or written."""


class FormatError(InputError):
    """SAMRT_E_FORMAT: a malformed zip, pickle, safetensors, JPEG or PNG."""


class CheckpointError(InputError):
    """SAMRT_E_FORBIDDEN, SAMRT_E_KEYS, SAMRT_E_MODEL_MISMATCH: the checkpoint is refused
    (a pickle opcode or global the reader refuses, missing or mis-shaped keys, another model)."""


class ExecutionError(Error):
    """A failure while running (the samrt program's exit 3)."""


class ArenaTooSmallError(ExecutionError):
    """SAMRT_E_ARENA_TOO_SMALL: the plan does not fit the platform profile's pool."""


class CudaError(ExecutionError):
    """SAMRT_E_CUDA: a CUDA, cuBLASLt or cuDNN call failed."""


class HostMemoryError(ExecutionError):
    """SAMRT_E_HOST_MEMORY: a host allocation during setup failed."""


class StateError(ExecutionError):
    """SAMRT_E_BAD_STATE: the engine refuses work after an earlier failure. Also raised by the
    package for a closed model and for a tracking session that a newer one replaced."""


class NumericError(ExecutionError):
    """SAMRT_E_NUMERIC: a frame's image embedding, logits, memories or object pointers were
    not finite (fp16 storage overflowed: open the model with precision "bf16"). The tracking
    session refuses further frames, as after any failed frame."""


class UnavailableError(Error):
    """Not available in this build or on this machine (the samrt program's exit 4)."""


class UnsupportedError(UnavailableError):
    """SAMRT_E_UNSUPPORTED, SAMRT_E_NOT_IMPLEMENTED: valid input this build does not handle."""


class NoDeviceError(UnavailableError):
    """SAMRT_E_NO_DEVICE: a GPU is needed and none is visible."""


_BY_STATUS: Dict[int, Type[Error]] = {
    E_INVALID_ARG: InvalidArgumentError,
    E_IO: FileError,
    E_FORMAT: FormatError,
    E_FORBIDDEN: CheckpointError,
    E_KEYS: CheckpointError,
    E_MODEL_MISMATCH: CheckpointError,
    E_UNSUPPORTED: UnsupportedError,
    E_ARENA_TOO_SMALL: ArenaTooSmallError,
    E_NO_DEVICE: NoDeviceError,
    E_CUDA: CudaError,
    E_HOST_MEMORY: HostMemoryError,
    E_BAD_STATE: StateError,
    E_NOT_IMPLEMENTED: UnsupportedError,
    E_NUMERIC: NumericError,
}


def error_for(status: int, status_name: str, what: str, messages: Sequence[str]) -> Error:
    """The exception for a failed call: `what` (the call), the status name and the library's
    lines, e.g. ``samrt_engine_init: invalid argument: imgsz 1000: must be a multiple of 16``."""
    text = f"{what}: {status_name}"
    if messages:
        text += ": " + "; ".join(messages)
    cls = _BY_STATUS.get(status, Error)
    return cls(text, status, status_name, messages)


def state_error(message: str, status_name: Optional[str] = None) -> StateError:
    """A StateError raised by the package itself (a closed model, a replaced session)."""
    return StateError(message, E_BAD_STATE, status_name or "bad state", [message])

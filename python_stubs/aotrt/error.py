"""Exceptions raised for failing C calls, chosen from AOTRTGetLastErrorCode() (never from the text).

Every class derives from TVMError (itself a RuntimeError, like TVM's) and, where one fits, from the
matching Python builtin, so both ``except aotrt.TVMError`` and ``except ValueError`` work:

=====  ==================  ===================================
code   class               also a
=====  ==================  ===================================
1      InvalidArgumentError ValueError
2      NotFoundError       LookupError
3      OutOfRangeError     IndexError
4      TypeMismatchError   TypeError
5      ShapeMismatchError  ValueError
6      FormatError         (TVMError only)
7      TVMIOError          OSError
8      OutOfMemoryError    MemoryError
9      ModelError          (TVMError only: the model's code failed)
10     TVMNotImplementedError NotImplementedError
11     InternalError       (TVMError only)
12     InterruptedRunError KeyboardInterrupt
=====  ==================  ===================================
"""
import threading

from . import _ffi


class TVMError(RuntimeError):
    """Base class of every error reported by the runtime. ``code`` is the aotrt error code."""

    code = 0


class InvalidArgumentError(TVMError, ValueError):
    code = 1


class NotFoundError(TVMError, LookupError):
    code = 2


class OutOfRangeError(TVMError, IndexError):
    code = 3


class TypeMismatchError(TVMError, TypeError):
    code = 4


class ShapeMismatchError(TVMError, ValueError):
    code = 5


class FormatError(TVMError):
    code = 6


class TVMIOError(TVMError, OSError):
    code = 7


class OutOfMemoryError(TVMError, MemoryError):
    code = 8


class ModelError(TVMError):
    code = 9


class TVMNotImplementedError(TVMError, NotImplementedError):
    code = 10


class InternalError(TVMError):
    code = 11


class InterruptedRunError(TVMError, KeyboardInterrupt):
    """A timing loop stopped on request (Ctrl-C): see interruptible()."""
    code = 12


class FunctionNotFoundError(NotFoundError, AttributeError):
    """``module["name"]`` / ``get_function`` on a missing function (TVM raises AttributeError)."""


class GlobalFuncNotFoundError(NotFoundError, ValueError):
    """``get_global_func`` on a missing name (TVM raises ValueError)."""


ERROR_CLASSES = {cls.code: cls for cls in (
    InvalidArgumentError, NotFoundError, OutOfRangeError, TypeMismatchError, ShapeMismatchError, FormatError,
    TVMIOError, OutOfMemoryError, ModelError, TVMNotImplementedError, InternalError, InterruptedRunError)}

# The exception a Python callback raised on this thread, so that it can be re-raised as itself
# when the C call that invoked the callback fails with its message.
_callback_error = threading.local()


def last_error():
    """The exception for the calling thread's last runtime error (not raised)."""
    msg = _ffi.TVMGetLastError()
    msg = msg.decode("utf-8", "replace") if msg else "unknown error"
    pending = getattr(_callback_error, "exc", None)
    if pending is not None:
        _callback_error.exc = None
        if str(pending) and str(pending) in msg:
            return pending
    cls = ERROR_CLASSES.get(_ffi.AOTRTGetLastErrorCode(), TVMError)
    return cls(msg)


def interruptible(fn, *args):
    """``fn(*args)`` such that Ctrl-C stops it: a long C call (a time evaluator) holds the main thread,
    where Python delivers KeyboardInterrupt, so it runs on a worker while the main thread waits; on
    KeyboardInterrupt the runtime's interrupt request (AOTRTSetInterrupt) stops the timing loops and
    the KeyboardInterrupt is re-raised once the call has returned."""
    if threading.current_thread() is not threading.main_thread():
        return fn(*args)
    box = {}

    def work():
        try:
            box["value"] = fn(*args)
        except BaseException as e:   # handed to the caller's thread
            box["error"] = e

    worker = threading.Thread(target=work, name="aotrt-interruptible", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.05)
    except KeyboardInterrupt:
        _ffi.AOTRTSetInterrupt(1)
        try:
            worker.join()
        finally:
            _ffi.AOTRTSetInterrupt(0)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def raise_last_error():
    raise last_error()


def check_call(rc):
    """Raise the calling thread's last error if a C call returned non-zero."""
    if rc != 0:
        raise last_error()

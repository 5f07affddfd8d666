"""Keep the process offline: no usage telemetry from the libraries paperscope loads.

OpenVINO (the embedding runtime) imports its model converter on ``import openvino``, and the
converter, like NNCF (the int8 preparation), reports usage to Google Analytics through the
``openvino_telemetry`` package unless the user has opted out (it also writes a client id and a
usage counter under ``~/intel``). Both fall back to a no-op stub when that package cannot be
imported, so :func:`block_telemetry` makes it unimportable in this process (a ``None`` entry in
``sys.modules``) before either is loaded. paperscope promises to run offline; this is the only
network traffic its dependencies would make.
"""

from __future__ import annotations

import sys

__all__ = ["block_telemetry", "TELEMETRY_MODULES"]

#: Modules that send usage data when imported or used.
TELEMETRY_MODULES = ("openvino_telemetry",)


def block_telemetry() -> None:
    """Make the telemetry modules unimportable in this process (idempotent; no effect once loaded)."""
    for name in TELEMETRY_MODULES:
        if name not in sys.modules:
            sys.modules[name] = None  # type: ignore[assignment]  # import raises ImportError

"""JSON HTTP API and the web UI; a thin shell over Library."""

from .app import create_app

__all__ = ["create_app"]

"""Triage: turning the user's stars, tags and notes into reading lists and recommendations."""

from .export import EXPORT_FORMATS, export_papers

__all__ = ["EXPORT_FORMATS", "export_papers"]

"""Readers, one module per input format, each returning plain records (``records.py``).

:mod:`.registry` lists them and decides by content which one reads a file; :mod:`.roles` is
the one table of what each file is to an engine (its role); :mod:`.discovery` finds an engine's
files; :mod:`.text`, :mod:`.logtext` and :mod:`.units` are shared by every reader (decoding,
log-line prefixes, units).
"""

from .readers import READERS, InputCache, Reader, detect_kind

__all__ = ["READERS", "InputCache", "Reader", "detect_kind"]

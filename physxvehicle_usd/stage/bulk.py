"""Building many small long-lived objects at once (a stage description, its JSON form) without the cyclic GC.

A description holds a few hundred small objects per vehicle (millions on a big stage) and building it makes
no reference cycles (tests/test_read_composition.py checks this for reading). With the collector running,
its passes over the growing structure cost a fifth of a read at 1,000 cars, more beyond; paused, its first
pass afterwards would still walk every new object once, only to find nothing (a tenth of the read). So
`bulk_objects()` pauses it, and on leaving hands the new objects straight to the oldest generation
(freeze + unfreeze), where they wait for the next full collection like any long-lived data. That hand-over
is skipped when the application has frozen objects itself (as before a fork): unfreezing would undo that.
A caller who switched the collector off keeps it off.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def bulk_objects() -> Iterator[None]:
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()

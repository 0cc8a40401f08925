"""Every view of the Concepts tab, in the order the tab lists them: a new view is one module
and one line here (and its name in :data:`transviz.gui.CONCEPTS`, which the command line reads
without loading Qt)."""
from __future__ import annotations

from .additive import AdditiveView
from .alignment import AlignmentView
from .attribution import AttributionView
from .base import ConceptView
from .bilinear import BilinearView
from .cost import CostView
from .ffn import FfnView
from .flash import FlashView
from .hull import HullView
from .kv_cache import KVCacheView
from .lens import LensView
from .lookup import LookupView
from .parallel import ParallelView
from .sharing import SharingView
from .similarity import SimilarityView

CONCEPT_VIEWS: tuple[type[ConceptView], ...] = (
    LookupView,
    BilinearView,
    HullView,
    SimilarityView,
    AdditiveView,
    FfnView,
    CostView,
    ParallelView,
    SharingView,
    AttributionView,
    FlashView,
    KVCacheView,
    LensView,
    AlignmentView,
)

"""Shared test set-up.

Hypothesis runs a small number of examples by default, so the whole suite
stays fast in CI; HYPOTHESIS_PROFILE=fuzz runs 10,000 per property (see the
README's "Fuzzing" section).
"""

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

settings.register_profile("default", max_examples=150, deadline=None)
settings.register_profile(
    "fuzz", max_examples=10_000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

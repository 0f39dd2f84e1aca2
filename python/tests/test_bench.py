"""The bench's row statistics (python -m streamscan.bench needs a GPU; this does not)."""

import pytest

from streamscan.bench import _timing


def test_timing_carries_median_spread_count_and_extremes():
    t = _timing([3.0, 1.0, 2.0, 5.0, 4.0])
    assert t.ms == 3.0
    assert (t.samples, t.min, t.max) == (5, 1.0, 5.0)
    assert t.noise == pytest.approx((5.0 - 1.0) / 3.0)  # (p90 - p10) / median


def test_timing_of_equal_samples_has_no_noise():
    t = _timing([2.0] * 30)
    assert (t.ms, t.noise, t.samples, t.min, t.max) == (2.0, 0.0, 30, 2.0, 2.0)

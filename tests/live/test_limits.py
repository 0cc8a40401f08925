"""The rate limit and the wrong-code count, on a clock the test drives."""
from __future__ import annotations

from transviz.live.limits import FailedJoins, TokenBucket


def test_a_burst_passes_then_the_rate_holds():
    bucket = TokenBucket(rate=10, burst=20)
    assert sum(bucket.take(0.0) for _ in range(50)) == 20
    assert not bucket.take(0.05)
    assert bucket.take(0.1)  # 0.1 s refills one
    assert sum(bucket.take(10.0) for _ in range(50)) == 20  # never more than the burst, however long the pause


def test_an_address_with_too_many_wrong_codes_is_blocked_until_the_window_passes():
    failed = FailedJoins(limit=3, window=60)
    for now in (0, 1, 2):
        assert not failed.blocked("10.0.0.5", now)
        failed.fail("10.0.0.5", now)
    assert failed.blocked("10.0.0.5", 3)
    assert not failed.blocked("10.0.0.6", 3)  # another student's computer
    assert failed.blocked("10.0.0.5", 59.9)
    assert not failed.blocked("10.0.0.5", 60.5)


def test_the_count_stays_bounded_under_many_addresses():
    failed = FailedJoins(limit=2, window=1)
    for i in range(10_000):
        failed.fail(f"10.{i // 65536}.{i // 256 % 256}.{i % 256}", now=i * 0.01)
    assert len(failed._failures) <= FailedJoins.MAX_ADDRESSES

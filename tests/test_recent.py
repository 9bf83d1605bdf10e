"""helpers.core.recent: a few values kept by key, the one used longest ago dropped first."""

import pytest

from helpers.core.recent import Recent


def test_a_kept_value_is_not_made_again_and_the_one_used_longest_ago_goes_first():
    made = []
    recent = Recent(2)

    def make(key):
        return lambda: made.append(key) or f"value of {key}"

    assert recent.get("a", make("a")) == "value of a"
    assert recent.get("b", make("b")) == "value of b"
    assert recent.get("a", make("a")) == "value of a"  # kept: not made again, and now the most recently used
    recent.get("c", make("c"))  # full: "b", used longest ago, goes
    assert len(recent) == 2
    recent.get("a", make("a"))
    recent.get("b", make("b"))
    assert made == ["a", "b", "c", "b"]


def test_a_size_below_one_is_refused():
    with pytest.raises(ValueError, match="size must be at least 1; got 0"):
        Recent(0)

"""Numbered pagers: how far a list's pages are known to go, and the URLs of the pages ahead.

A list's next link and the pager's numbered links beside it (`NextTarget.pager`, read by the page
agent) share one URL shape and differ in one number: a page (`?page=7`, `/p/7/`) or an offset
(`?start=150`). From them the engine learns which number that is, its step and the last page linked,
and fetches the pages after the one being read before their next links are read. Never past the last
page linked: a page past the end costs the server a 404 or an empty page, so a next link with no
numbered link beyond it tells nothing, and nothing is fetched ahead on a guess.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

_NUMBER = re.compile(r"(\d+)")


def _parts(url: str) -> list[str]:
    """`url` split around its numbers: the numbers at odd indexes."""
    return _NUMBER.split(url)


def differs(a: str, b: str) -> int | None:
    """The index (in `_parts`) of the one number in which `b` differs from `a`, when everything else is
    the same; else None."""
    pa, pb = _parts(a), _parts(b)
    if len(pa) != len(pb):
        return None
    diff = [i for i, (x, y) in enumerate(zip(pa, pb, strict=True)) if x != y]
    if len(diff) != 1 or diff[0] % 2 == 0:
        return None
    return diff[0]


def _plain(digits: str) -> bool:
    # `007` would come back as `7`: a zero-padded number is not told in advance.
    return digits == "0" or not digits.startswith("0")


@dataclass(frozen=True)
class Run:
    """Pages told in advance: the URL's `parts`, the `index` of the number that counts pages, its `step`
    (negative when the numbers go down) and the `last` value a link is known for."""

    parts: tuple[str, ...]
    index: int
    step: int
    last: int

    def same_shape(self, url: str) -> int | None:
        """The page number of `url` when it has this run's shape, else None."""
        got = _parts(url)
        if len(got) != len(self.parts) or not _plain(got[self.index]):
            return None
        if any(x != y for i, (x, y) in enumerate(zip(got, self.parts, strict=True)) if i != self.index):
            return None
        return int(got[self.index])

    def ahead(self, url: str, count: int) -> list[str]:
        """Up to `count` URLs of the pages after `url`, in order, none past the last page linked."""
        value = self.same_shape(url)
        if value is None or count <= 0 or (value - self.last) % self.step:
            return []
        out: list[str] = []
        value += self.step
        while len(out) < count and (self.last - value) * self.step >= 0:
            parts = list(self.parts)
            parts[self.index] = str(value)
            out.append("".join(parts))
            value += self.step
        return out


def learn(here: str | None, nxt: str, pager: list[str]) -> Run | None:
    """What a page tells: `here` its URL, `nxt` its next link's URL, `pager` the numbered links beside
    it. None when it tells nothing certain (no shape shared, no direction, no numbered link)."""
    own = differs(nxt, here) if here else None
    linked = [(i, _parts(url)[i]) for url in pager if (i := differs(nxt, url)) is not None]
    if own is not None:
        index = own
    else:
        counts = Counter(i for i, _ in linked).most_common(2)
        if not counts or (len(counts) == 2 and counts[0][1] == counts[1][1]):
            return None
        index = counts[0][0]
    parts = _parts(nxt)
    digits = [parts[index], *(d for i, d in linked if i == index)]
    if here is not None and own is not None:
        digits.append(_parts(here)[index])
    if not all(_plain(d) for d in digits):
        return None
    n = int(parts[index])
    values = {int(d) for d in digits} - {n}
    if own is not None and here is not None:
        sign = 1 if n > int(_parts(here)[index]) else -1
    elif values and all(v > n for v in values):
        sign = 1  # page 1 links only to the pages after it (its own URL has no number)
    else:
        # Links only below the next one, and the page's own number unknown: the pages before it of a
        # list counting up (a "previous" link) as likely as the pages after it of one counting down.
        return None
    step = math.gcd(*(abs(v - n) for v in values))
    beyond = [v for v in values if (v - n) * sign > 0]
    last = (max if sign > 0 else min)(beyond, default=n)
    return Run(tuple(parts), index, sign * step, last)


def merge(old: Run | None, new: Run | None) -> Run | None:
    """What the pages read so far tell together: the farthest last page of one URL shape."""
    if old is None or new is None:
        return old or new
    if (
        old.index != new.index
        or (old.step > 0) != (new.step > 0)
        or new.same_shape("".join(old.parts)) is None
    ):
        return new
    sign = 1 if new.step > 0 else -1
    last = max(old.last * sign, new.last * sign) * sign
    return Run(new.parts, new.index, sign * math.gcd(old.step, new.step), last)
